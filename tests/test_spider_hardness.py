"""Spider's hardness rule (easy / medium / hard / extra) on hand-derived queries: each line of
fixtures/spider_hardness.jsonl gives a query, the counts (component 1, component 2, others) derived by hand from
`eval_hardness` in Spider's evaluator, the hardness they give, and why."""

import json
from pathlib import Path

import pytest

from biarena.benchmarks.spider_hardness import hardness_counts, spider_hardness

CASES = [json.loads(line) for line in (Path(__file__).parent / "fixtures" / "spider_hardness.jsonl").open()]


@pytest.mark.parametrize("case", CASES, ids=[c["why"] for c in CASES])
def test_hardness_as_spider_defines_it(case: dict) -> None:
    counts = hardness_counts(case["sql"])
    assert counts is not None
    assert [counts.component1, counts.component2, counts.others] == case["counts"]
    assert spider_hardness(case["sql"]) == case["hardness"]


def test_the_fixture_covers_every_level() -> None:
    assert {c["hardness"] for c in CASES} == {"easy", "medium", "hard", "extra"}
    assert len(CASES) >= 12


def test_unreadable_sql_has_no_hardness() -> None:
    assert spider_hardness("SELEC name FRM singer") is None
    assert spider_hardness("UPDATE singer SET age = 1") is None
