"""`test_suite_accuracy` (`test_suite_accuracy[CONTRACT]` under a contract other than biarena): the answer matches
the gold, under the contract, on the benchmark's database and on each of K neighbour databases (Zhong et al. 2020),
so a wrong filter that happens to return the right rows on one database does not pass."""

import threading
from typing import Any

from pydantic import Field

from biarena.db import DatabasePool, SqlProblem
from biarena.metrics.context import ScoringContext
from biarena.metrics.contract_match import contract_score, order_matters
from biarena.metrics.contracts import DEFAULT_CONTRACT, ContractName, ResultContract
from biarena.metrics.execution_accuracy import ContractScorer, best_under, contract_results, contract_score_name
from biarena.metrics.neighbour_suite import NeighbourSuite, suite_for
from biarena.metrics.scorer import make_score
from biarena.options import Options
from biarena.records import Answer, Question, Score, SystemSpec
from biarena.scoring.contract_names import contract_named
from biarena.scoring.score_info import ScoreInfo

BASE = "test_suite_accuracy"


class TestSuiteOptions(Options):
    """The contract answers are held to, and the suite's size and seed."""

    contract: ContractName = DEFAULT_CONTRACT
    """The result contract on every database (see `execution_accuracy`'s)."""
    k: int = Field(10, ge=1, le=100)
    """Neighbour databases besides the benchmark's own."""
    seed: int = 0
    """Seed of the neighbours (the same seed gives the same suite)."""


def suite_info(contract: ResultContract) -> ScoreInfo:
    """The declaration of test-suite accuracy under `contract`."""
    return ScoreInfo(
        contract_score_name(BASE, contract.name),
        "TS" if contract.name == DEFAULT_CONTRACT else f"TS[{contract.name}]",
        f"test-suite accuracy under the {contract.name} contract: the answer matches the gold on the benchmark's "
        "database and on every neighbour database",
        needs=frozenset({"gold_sql", "database"}),
        headline=True,
    )


class TestSuiteAccuracyScorer(ContractScorer):
    """Execution accuracy on the benchmark's database and on K neighbours, all of which must pass."""

    __test__ = False  # not a pytest class, whatever its name
    name = BASE
    version = "1"
    Options = TestSuiteOptions
    infos = (suite_info(contract_named(DEFAULT_CONTRACT)),)
    info_under = staticmethod(suite_info)

    def __init__(self, options: Options | None = None, **values: Any) -> None:
        super().__init__(options, **values)
        self._lock = threading.Lock()
        self._suite: tuple[int, NeighbourSuite, list[ScoringContext], list[ScoringContext]] | None = None

    def suite(self, context: ScoringContext) -> tuple[NeighbourSuite, list[ScoringContext], list[ScoringContext]]:
        """The suite (built on first use) and a scoring context on each neighbour and on each twin."""
        with self._lock:
            if self._suite is None or self._suite[0] != id(context):
                chosen: TestSuiteOptions = self.options  # type: ignore[assignment]
                suite = suite_for(context.benchmark, context.databases, chosen.k, seed=chosen.seed)

                def on(files: dict[str, str]) -> ScoringContext:
                    pool = DatabasePool(context.benchmark, overrides=files, limits=context.databases.limits)
                    return ScoringContext(context.benchmark, pool, tolerance=context.tolerance)

                self._suite = (
                    id(context),
                    suite,
                    [on(n.databases) for n in suite.neighbours],
                    [on(n.twins) for n in suite.neighbours],
                )
            return self._suite[1], self._suite[2], self._suite[3]

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Score one answer."""
        name = self.name
        if question.gold_results:  # a fixed table cannot be run again on neighbour databases
            return [make_score(self, question, name, None, rationale="gold given as results, not queries")]
        if not any(not isinstance(r, SqlProblem) for _, r in context.gold(question)):
            why = "no gold query" if not question.gold_sql else "every gold query fails"
            return [make_score(self, question, name, None, rationale=why)]
        suite, neighbours, twins = self.suite(context)
        if question.database in suite.unsupported:
            why = f"no neighbour databases: {suite.unsupported[question.database]}"
            return [make_score(self, question, name, None, rationale=why)]
        try:
            return [self._judged(question, answer, context, neighbours, twins)]
        finally:
            for each in (*neighbours, *twins):
                each.forget(question)

    def _judged(
        self,
        question: Question,
        answer: Answer,
        context: ScoringContext,
        neighbours: list[ScoringContext],
        twins: list[ScoringContext],
    ) -> Score:
        name, contract = self.name, self.contract
        dialect = context.databases.source_dialect(question.database)
        k = len(neighbours)
        lowest = 1.0
        for index, on in enumerate([context, *neighbours]):
            outcome, golds = contract_results(contract, question, answer, on)
            if index > 0:
                unsettled = _undetermined(contract, question, golds, twins[index - 1], dialect)
                if unsettled:
                    why = f"the gold's answer is not determined by the data on neighbour {index} ({unsettled})"
                    return make_score(self, question, name, None, rationale=why, undetermined=index, k=k)
            golds = [(sql, r) for sql, r in golds if not isinstance(r, SqlProblem)]
            if not golds:
                why = f"every gold query fails on neighbour {index}"
                return make_score(self, question, name, None, rationale=why, k=k)
            if outcome is None or isinstance(outcome, SqlProblem):
                where = "the benchmark's database" if index == 0 else f"neighbour {index}"
                return make_score(self, question, name, 0.0, rationale=f"the answer's SQL fails on {where}", k=k)
            value, _, _ = best_under(contract, question, outcome, golds, dialect, context)
            lowest = min(lowest, value)
            if contract.binary and value < 1.0:
                where = "the benchmark's database" if index == 0 else f"neighbour {index} of {k}"
                return make_score(self, question, name, 0.0, rationale=f"differs from the gold on {where}", k=k)
        why = f"matches the gold on the benchmark's database and {k} neighbours"
        return make_score(self, question, name, lowest, rationale=why if lowest >= 1.0 else f"lowest {lowest:.3f}", k=k)


def _undetermined(
    contract: ResultContract, question: Question, golds: list[tuple[str, Any]], twin: ScoringContext, dialect: str
) -> str | None:
    """Why a gold query's answer changes with the order rows are stored in (None when it does not).

    Checked under biarena's contract whatever the score's: an exact contract would take the last bits of a float sum,
    which move with the order rows are added in, for an answer the data leave open."""
    check = contract_named(DEFAULT_CONTRACT)
    for (sql, result), (_, again) in zip(golds, contract_results(contract, question, _NO_ANSWER, twin)[1], strict=True):
        if isinstance(result, SqlProblem) or isinstance(again, SqlProblem):
            continue
        ordered = order_matters(check, sql, dialect, question)
        if contract_score(check, again, result, ordered=ordered, tolerance=twin.tolerance) < 1.0:
            return "its rows change with the order rows are stored in"
    return None


_NO_ANSWER = Answer(question_id="-", system=SystemSpec(agent="-"))
