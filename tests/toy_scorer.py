"""A scorer written the way a new one is: this file and one registry line (the tests add the line)."""

import math

from pydantic import Field

from biarena.metrics import MetricScorer, ScoringContext
from biarena.options import Options
from biarena.records import Answer, Question, Score
from biarena.scoring import ScoreInfo, make_score


class SqlLengthOptions(Options):
    """What the toy scorer counts in."""

    unit: int = Field(100, ge=1)
    """Characters per unit of the score."""


class SqlLengthScorer(MetricScorer):
    """The length of the answer's final SQL, in hundreds of characters; it does not score the question `q0001`."""

    name = "sql_length"
    version = "1"
    infos = (
        ScoreInfo(
            "sql_length",
            "SQL len",
            "hundreds of characters in the final SQL",
            range=(0.0, math.inf),
            higher_is_better=None,
            headline=True,
        ),
    )
    Options = SqlLengthOptions
    options: SqlLengthOptions

    def applies(self, question: Question) -> bool:
        """Every question but `q0001`."""
        return question.id != "q0001"

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Count the characters."""
        length = len(answer.final_sql or "")
        return [make_score(self, question, "sql_length", length / self.options.unit, rationale=f"{length} characters")]
