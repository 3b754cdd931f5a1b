"""`semantic_similarity` scorer: the best BIS semantic similarity over the gold queries."""

from biarena.metrics.context import ScoringContext
from biarena.metrics.scorer import make_score
from biarena.metrics.semantic_similarity import semantic_similarity
from biarena.records import Answer, Question, Score


class SemanticSimilarityScorer:
    """BIS 5.1 with the errata, both queries transpiled to the benchmark's dialect."""

    name = "semantic_similarity"
    version = "1"
    produces = ("semantic_similarity",)

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Score one answer."""
        if not question.gold_sql:
            return [make_score(self, question, "semantic_similarity", None, rationale="no gold query")]
        if not answer.final_sql:
            return [make_score(self, question, "semantic_similarity", 0.0, rationale="no SQL in the answer")]
        # Both sides as the engine runs them: one dialect, the clock resolved the same way.
        dialect = context.databases.get(question.database).dialect
        predicted = context.prepared(question, answer.final_sql) or answer.final_sql
        best = None
        for sql in question.gold_sql:
            gold_text = context.prepared(question, sql, gold=True)
            if gold_text is None:
                continue
            found = semantic_similarity(gold_text, predicted, dialect=dialect)
            if best is None or found.value > best.value:
                best = found
        if best is None:
            return [make_score(self, question, "semantic_similarity", 0.0, rationale="no gold query parses")]
        why = (
            "the queries read different tables"
            if best.table_changed
            else f"{best.counted} of {best.total} diff edits count"
        )
        return [
            make_score(
                self,
                question,
                "semantic_similarity",
                best.value,
                counted=best.counted,
                total=best.total,
                table_changed=best.table_changed,
                rationale=why,
            )
        ]
