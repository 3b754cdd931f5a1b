"""Execution scores: `execution` (final SQL runs), `ser` (share of SQL that runs), `valid_sql`."""

import math

from biarena.db import SqlProblem
from biarena.metrics.context import ScoringContext
from biarena.metrics.scorer import MetricScorer, make_score
from biarena.records import Answer, Question, Score
from biarena.scoring.score_info import ScoreInfo
from biarena.scoring.valid_sql import valid_sql

_RUNS = frozenset({"database"})


class ExecutionScorer(MetricScorer):
    """Whether the answer's SQL runs; SER as a 0-1 fraction; statements with non-empty results."""

    name = "execution"
    version = "1"
    infos = (
        ScoreInfo("execution", "Exec", "whether the answer's final SQL runs", needs=_RUNS, shown=False),
        ScoreInfo(
            "ser",
            "SER",
            "SQL success execution rate: the share of the answer's statements that ran",
            needs=_RUNS,
            headline=True,
        ),
        ScoreInfo(
            "valid_sql",
            "Valid SQL",
            "statements that ran and returned rows",
            range=(0.0, math.inf),
            higher_is_better=None,
            needs=_RUNS,
            shown=False,
        ),
    )

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Score one answer."""
        outcome = context.answer_result(question, answer)
        if outcome is None:
            execution, why = 0.0, "the answer offers no final SQL"
        elif isinstance(outcome, SqlProblem):
            execution, why = 0.0, f"final SQL failed ({outcome.kind}): {outcome}"
        else:
            execution, why = 1.0, f"final SQL ran and returned {outcome.row_count} rows"
        steps = answer.steps
        if steps:
            ran = sum(1 for s in steps if s.ok)
            ser = ran / len(steps)
            total = len(steps)
        elif outcome is not None:
            ran = int(execution)
            ser, total = float(execution), 1
        else:
            ran, ser, total = 0, 0.0, 0
        valid = valid_sql(answer, outcome)
        return [
            make_score(self, question, "execution", execution, rationale=why),
            make_score(
                self,
                question,
                "ser",
                ser if total else None,
                ran=ran,
                total=total,
                rationale=f"{ran} of {total} statements ran" if total else "no SQL was run",
            ),
            make_score(
                self,
                question,
                "valid_sql",
                float(valid),
                total=total,
                rationale=f"{valid} statements ran and returned rows",
            ),
        ]
