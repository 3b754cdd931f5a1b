"""`execution_accuracy`: the final SQL's rows equal one gold query's rows, under a result contract.

The `biarena` contract (the default) stores `execution_accuracy`; any other stores `execution_accuracy[NAME]`
from a scorer of that name, so several contracts sit side by side in one run.
"""

from typing import Any

from biarena.db import QueryResult, SqlProblem
from biarena.db.result_csv import as_read_from_csv
from biarena.metrics.context import Outcome, ScoringContext, orders_rows, result_columns
from biarena.metrics.contract_match import condition_columns, contract_score, order_matters, remove_distinct
from biarena.metrics.contracts import DEFAULT_CONTRACT, ContractName, ResultContract
from biarena.metrics.execution_match import results_match
from biarena.metrics.scorer import MetricScorer, make_score
from biarena.options import Options
from biarena.records import Answer, Question, Score
from biarena.scoring.contract_names import contract_named
from biarena.scoring.score_info import ScoreInfo

BASE = "execution_accuracy"


class ExecutionAccuracyOptions(Options):
    """Which definition of "the same result" the score uses."""

    contract: ContractName = DEFAULT_CONTRACT
    """The result contract: biarena (the default), spider, spider-keep-distinct, bird, bird-f1, spider2, strict."""


def contract_score_name(base: str, contract: str) -> str:
    """The stored name of a score under a contract: `base` for biarena, `base[contract]` for any other."""
    return base if contract == DEFAULT_CONTRACT else f"{base}[{contract}]"


def contract_info(contract: ResultContract) -> ScoreInfo:
    """The declaration of execution accuracy under `contract`."""
    graded = "" if contract.binary else " (graded 0-1)"
    return ScoreInfo(
        contract_score_name(BASE, contract.name),
        "EA" if contract.name == DEFAULT_CONTRACT else f"EA[{contract.name}]",
        f"execution accuracy under the {contract.name} contract{graded}: {contract.description}",
        needs=frozenset({"gold_sql", "database"}),
        headline=True,
    )


def contract_results(
    contract: ResultContract, question: Question, answer: Answer, context: ScoringContext
) -> tuple[Outcome | None, list[tuple[str, Outcome]]]:
    """The answer's outcome and each gold query's, as the contract runs them (DISTINCT taken out for Spider)."""
    golds = context.gold(question)
    outcome = context.answer_result(question, answer)
    if question.gold_results:
        return (as_read_from_csv(outcome) if isinstance(outcome, QueryResult) else outcome), golds
    if contract.distinct == "remove":
        source = context.databases.source_dialect(question.database)
        golds = [(sql, context.run(question, remove_distinct(sql, source), gold=True)) for sql, _ in golds]
        if answer.final_sql and not isinstance(outcome, SqlProblem):
            engine = context.engine_dialect(question.database)
            outcome = context.run(question, remove_distinct(answer.final_sql, engine))
    return outcome, golds


def best_under(
    contract: ResultContract,
    question: Question,
    outcome: Any,
    golds: list[tuple[str, Any]],
    dialect: str,
    context: ScoringContext,
) -> tuple[float, int, bool]:
    """(value, gold index, ordered) of the gold the outcome comes closest to under the contract."""
    best = (0.0, -1, False)
    for index, (sql, gold) in enumerate(golds):
        ordered = order_matters(contract, sql, dialect, question)
        value = contract_score(
            contract,
            outcome,
            gold,
            ordered=ordered,
            tolerance=context.tolerance,
            gold_columns=condition_columns(question, index),
        )
        if value > best[0]:
            best = (value, index, ordered)
        if value >= 1.0:
            break
    return best


class ContractScorer(MetricScorer):
    """A metric held to the result contract its `contract` option names; under any contract but biarena's, its score
    is named `NAME[contract]`."""

    variant_option = "contract"
    """`NAME[bird]` names the scorer with `contract=bird`."""
    contract: ResultContract

    @staticmethod
    def info_under(contract: ResultContract) -> ScoreInfo:
        """The declaration of the metric's score under `contract`."""
        raise NotImplementedError

    def __init__(self, options: Options | None = None, **values: Any) -> None:
        super().__init__(options, **values)
        self.contract = contract_named(self.options.contract)  # type: ignore[attr-defined]
        self.name = contract_score_name(type(self).name, self.contract.name)
        self.infos = (self.info_under(self.contract),)


class ExecutionAccuracyScorer(ContractScorer):
    """Bag equality of rows, ordered only when the gold orders; column order and rounding free (the biarena
    contract; `contract` names another)."""

    name = BASE
    version = "1"
    Options = ExecutionAccuracyOptions
    infos = (contract_info(contract_named(DEFAULT_CONTRACT)),)
    info_under = staticmethod(contract_info)

    def __init__(self, options: Options | None = None, **values: Any) -> None:
        super().__init__(options, **values)
        if self.contract.name != DEFAULT_CONTRACT:
            self.version = type(self).version  # the name carries the contract

    def _scored(self, question: Question, value: float | None, rationale: str, **sub_scores: object) -> list[Score]:
        """The answer's one score (with the contract among its sub-scores when it is not biarena's)."""
        if self.contract.name != DEFAULT_CONTRACT:
            sub_scores = {"contract": self.contract.name, **sub_scores}
        return [make_score(self, question, self.name, value, rationale=rationale, **sub_scores)]

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Score one answer."""
        if self.contract.name != DEFAULT_CONTRACT:
            return self._under_contract(question, answer, context)
        if context.kept is not None:
            # the run keeps what every contract needs: Spider's runs both queries without DISTINCT
            contract_results(contract_named("spider"), question, answer, context)
        golds = [(sql, r) for sql, r in context.gold(question) if not isinstance(r, SqlProblem)]
        if not golds:
            return self._scored(question, None, "no gold query" if not question.has_gold else "every gold query fails")
        outcome = context.answer_result(question, answer)
        if question.gold_results and isinstance(outcome, QueryResult):
            outcome = as_read_from_csv(outcome)
        if outcome is None or isinstance(outcome, SqlProblem):
            return self._scored(question, 0.0, "the answer's SQL did not run")
        dialect = context.databases.source_dialect(question.database)
        for index, (sql, gold) in enumerate(golds):
            ordered = orders_rows(sql, dialect)
            same = results_match(
                outcome,
                gold,
                ordered=ordered,
                tolerance=context.tolerance,
                predicted_columns=result_columns(context, outcome),
                gold_columns=result_columns(context, gold),
            )
            if same:
                return self._scored(question, 1.0, "rows equal the gold result", gold_index=index, ordered=ordered)
        return self._scored(question, 0.0, "rows differ from every gold result")

    def _under_contract(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        contract = self.contract
        outcome, golds = contract_results(contract, question, answer, context)
        golds = [(sql, r) for sql, r in golds if not isinstance(r, SqlProblem)]
        if not golds:
            return self._scored(question, None, "no gold query" if not question.has_gold else "every gold query fails")
        if outcome is None or isinstance(outcome, SqlProblem):
            return self._scored(question, 0.0, "the answer's SQL did not run")
        dialect = context.databases.source_dialect(question.database)
        value, index, ordered = best_under(contract, question, outcome, golds, dialect, context)
        if contract.binary:
            why = (
                f"rows equal the gold result ({contract.name})"
                if value
                else f"differs from every gold ({contract.name})"
            )
        else:
            why = f"{contract.name}: {value:.3f} against the closest gold"
        sub = {"gold_index": index, "ordered": ordered} if index >= 0 else {}
        return self._scored(question, value, why, **sub)
