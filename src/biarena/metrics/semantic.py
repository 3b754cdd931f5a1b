"""`semantic_similarity` scorer: the best BIS semantic similarity over the gold queries."""

from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.db import SqlProblem
from biarena.metrics.context import ScoringContext
from biarena.metrics.scorer import MetricScorer, make_score
from biarena.metrics.semantic_similarity import ComparableQuery, SemanticSimilarity, comparable, compare
from biarena.records import Answer, Question, Score
from biarena.scoring.budget import OverBudget
from biarena.scoring.score_info import ScoreInfo


def _source(context: ScoringContext, question: Question, sql: str) -> str | exp.Expression:
    """The answer's query as the engine would run it (its tree), or its text when the engine's reader cannot parse
    it (then `comparable` tries the lenient readers)."""
    statement = context.statement(question, sql)
    if isinstance(statement, SqlProblem):
        return sql
    try:
        return statement.tree
    except (SqlglotError, RecursionError):
        return sql


class SemanticSimilarityScorer(MetricScorer):
    """BIS 5.1 with the errata, both queries transpiled to the benchmark's dialect, within the scoring budget."""

    name = "semantic_similarity"
    version = "1"
    infos = (
        ScoreInfo(
            "semantic_similarity",
            "Sem",
            "BIS semantic similarity: how close the final SQL's syntax tree is to the nearest gold query's",
            needs=frozenset({"gold_sql", "database"}),
            headline=True,
        ),
    )

    def _gold(self, question: Question, sql: str, context: ScoringContext, dialect: str) -> ComparableQuery | None:
        statement = context.statement(question, sql, gold=True)
        if isinstance(statement, SqlProblem):
            return None
        try:
            return comparable(statement.tree, dialect, budget=context.budget)
        except OverBudget:
            return None

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Score one answer."""
        if not question.gold_sql:
            return [make_score(self, question, "semantic_similarity", None, rationale="no gold query")]
        if not answer.final_sql:
            return [make_score(self, question, "semantic_similarity", 0.0, rationale="no SQL in the answer")]
        # Both sides as the engine runs them: one dialect, the clock resolved the same way.
        dialect = context.databases.get(question.database).dialect
        golds = [
            context.memo(question, ("semantic", sql), lambda sql=sql: self._gold(question, sql, context, dialect))
            for sql in question.gold_sql
        ]
        if all(g is None for g in golds):
            return [make_score(self, question, "semantic_similarity", 0.0, rationale="no gold query parses")]
        budget = context.budget
        deadline = budget.deadline()
        best: SemanticSimilarity | None = None
        try:
            source = _source(context, question, answer.final_sql)
            predicted = comparable(source, dialect, budget=budget, deadline=deadline)
            if predicted is None:
                # a syntax metric has nothing to compare: not a miss, and not the scorer failing either
                why = "unparsable: the answer's SQL is not one query any SQL reader here parses"
                return [make_score(self, question, "semantic_similarity", None, unparsable=True, rationale=why)]
            for gold in golds:
                if gold is None:
                    continue
                found = compare(gold, predicted, budget=budget, deadline=deadline)
                if best is None or found.value > best.value:
                    best = found
        except OverBudget as why:
            return [
                make_score(
                    self, question, "semantic_similarity", 0.0, over_budget=True, rationale=f"not compared: {why}"
                )
            ]
        assert best is not None
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
