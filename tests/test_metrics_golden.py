"""Golden SQL pairs drive the semantic and result similarity metrics (a new case is a new line)."""

from pathlib import Path

import pytest
import yaml

from biarena.db import DatabasePool
from biarena.metrics import ScoringContext
from biarena.records import Answer, Benchmark, DatabaseRef, Question, SystemSpec
from biarena.scoring import SCORERS, default_scorers
from tests.conftest import ROOT, make_sales_db

PAIRS = yaml.safe_load((ROOT / "tests" / "fixtures" / "sql_pairs.yaml").read_text(encoding="utf-8"))
FIELDS = ("semantic_similarity", "result_precision", "result_recall", "result_f1", "execution_accuracy")


def sales_benchmark(directory: Path) -> tuple[Benchmark, ScoringContext]:
    """A one-database benchmark over the sales database, and a scoring context for it."""
    db = make_sales_db(directory / "sales.sqlite")
    benchmark = Benchmark(name="golden", databases={"sales": DatabaseRef(path=str(db))})
    return benchmark, ScoringContext(benchmark=benchmark, databases=DatabasePool(benchmark))


def score_pair(benchmark: Benchmark, context: ScoringContext, gold: str, pred: str) -> dict[str, float]:
    """Every score of one predicted query against one gold query."""
    question = Question(id="q", text="golden pair", database="sales", gold_sql=[gold])
    answer = Answer(question_id="q", system=SystemSpec(agent="test"), final_sql=pred)
    values: dict[str, float] = {}
    for name in default_scorers():
        for score in SCORERS[name]()(question, answer, context):
            values[score.name] = score.value
    context.forget(question)
    return values


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory) -> tuple[Benchmark, ScoringContext]:
    return sales_benchmark(tmp_path_factory.mktemp("golden"))


def test_fixture_has_enough_cases() -> None:
    assert len(PAIRS) >= 40
    ids = [p["id"] for p in PAIRS]
    assert len(set(ids)) == len(ids)
    assert {"fig2-drop-column", "fig2-alias", "fig2-other-table"} <= set(ids)


@pytest.mark.parametrize("case", PAIRS, ids=[p["id"] for p in PAIRS])
def test_golden_pair(golden: tuple[Benchmark, ScoringContext], case: dict) -> None:
    benchmark, context = golden
    values = score_pair(benchmark, context, case["gold"], case["pred"])
    for field in FIELDS:
        expected = case[field]
        assert values[field] == (None if expected is None else pytest.approx(expected, abs=1e-3)), field


def test_figure_2_edits_rank_as_the_paper_says(golden: tuple[Benchmark, ScoringContext]) -> None:
    by_id = {p["id"]: p for p in PAIRS}
    alias = by_id["fig2-alias"]["semantic_similarity"]
    dropped = by_id["fig2-drop-column"]["semantic_similarity"]
    table = by_id["fig2-other-table"]["semantic_similarity"]
    assert alias == 1.0 and table == 0.0 and 0.0 < dropped < 1.0
