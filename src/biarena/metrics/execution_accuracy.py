"""`execution_accuracy`: the final SQL's rows equal one gold query's rows."""

from biarena.db import SqlProblem
from biarena.metrics.context import ScoringContext, orders_rows
from biarena.metrics.execution_match import results_match
from biarena.metrics.scorer import MetricScorer, make_score
from biarena.records import Answer, Question, Score
from biarena.scoring.score_info import ScoreInfo


class ExecutionAccuracyScorer(MetricScorer):
    """Bag equality of rows, ordered only when the gold orders; column order and rounding free."""

    name = "execution_accuracy"
    version = "1"
    infos = (
        ScoreInfo(
            "execution_accuracy",
            "EA",
            "execution accuracy: the final SQL's rows equal one gold query's rows",
            needs=frozenset({"gold_sql", "database"}),
            headline=True,
        ),
    )

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Score one answer."""
        golds = [(sql, r) for sql, r in context.gold(question) if not isinstance(r, SqlProblem)]
        if not golds:
            why = "no gold query" if not question.gold_sql else "every gold query fails"
            return [make_score(self, question, "execution_accuracy", None, rationale=why)]
        outcome = context.answer_result(question, answer)
        if outcome is None or isinstance(outcome, SqlProblem):
            return [
                make_score(
                    self,
                    question,
                    "execution_accuracy",
                    0.0,
                    rationale="the answer's SQL did not run",
                )
            ]
        dialect = context.databases.source_dialect(question.database)
        for index, (sql, gold) in enumerate(golds):
            ordered = orders_rows(sql, dialect)
            same = results_match(
                outcome,
                gold,
                ordered=ordered,
                tolerance=context.tolerance,
                predicted_columns=context.columns(outcome),
                gold_columns=context.columns(gold),
            )
            if same:
                return [
                    make_score(
                        self,
                        question,
                        "execution_accuracy",
                        1.0,
                        gold_index=index,
                        ordered=ordered,
                        rationale="rows equal the gold result",
                    )
                ]
        return [
            make_score(
                self,
                question,
                "execution_accuracy",
                0.0,
                rationale="rows differ from every gold result",
            )
        ]
