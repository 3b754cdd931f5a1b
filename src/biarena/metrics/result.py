"""`result_precision`, `result_recall`, `result_f1`: BIS result partial similarity against the best gold."""

from biarena.db import SqlProblem
from biarena.metrics.context import ScoringContext, orders_rows, result_columns
from biarena.metrics.result_similarity import result_similarity
from biarena.metrics.scorer import MetricScorer, make_score
from biarena.records import Answer, Question, Score
from biarena.scoring.score_info import ScoreInfo

_GOLD = frozenset({"gold_sql", "database"})
_INFOS = (
    ScoreInfo(
        "result_precision", "Res P", "BIS result precision: answer columns that match a gold column", needs=_GOLD
    ),
    ScoreInfo("result_recall", "Res R", "BIS result recall: gold columns matched by an answer column", needs=_GOLD),
    ScoreInfo("result_f1", "Res F1", "BIS result F1 of the columns matched by value", needs=_GOLD, headline=True),
)
_NAMES = tuple(info.name for info in _INFOS)


class ResultSimilarityScorer(MetricScorer):
    """Columns matched by value (names ignored), one to one; the best F1 over gold queries."""

    name = "result_similarity"
    version = "1"
    infos = _INFOS

    def _all(self, question: Question, values: tuple, why: str, **sub: object) -> list[Score]:
        return [make_score(self, question, n, v, rationale=why, **sub) for n, v in zip(_NAMES, values, strict=True)]

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Score one answer."""
        golds = [(sql, r) for sql, r in context.gold(question) if not isinstance(r, SqlProblem)]
        if not golds:
            why = "no gold query" if not question.has_gold else "every gold query fails"
            return self._all(question, (None, None, None), why)
        outcome = context.answer_result(question, answer)
        if outcome is None or isinstance(outcome, SqlProblem):
            return self._all(question, (0.0, 0.0, 0.0), "the answer's SQL did not run")
        dialect = context.databases.source_dialect(question.database)
        best = None
        for sql, gold in golds:
            found = result_similarity(
                outcome,
                gold,
                ordered=orders_rows(sql, dialect),
                tolerance=context.tolerance,
                predicted_columns=result_columns(context, outcome),
                gold_columns=result_columns(context, gold),
            )
            if best is None or found.f1 > best.f1:
                best = found
        assert best is not None
        return self._all(
            question,
            (best.precision, best.recall, best.f1),
            f"{len(best.matched)} columns match",
            matched=[list(p) for p in best.matched],
        )
