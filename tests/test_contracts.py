"""Result contracts: a golden file per preset (one case per documented rule of its peer), and each peer's rule as
its evaluator states it, run on generated pairs against the contract."""

import itertools
import math
from collections import Counter

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from biarena.db import QueryResult
from biarena.errors import NotFoundError
from biarena.metrics.contract_match import condition_columns, contract_score, order_matters, remove_distinct
from biarena.records import Question
from biarena.scoring.contract_names import CONTRACTS, contract_named, split_contract_names
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "fixtures" / "contracts"


def _result(data: dict) -> QueryResult:
    return QueryResult(columns=list(data["columns"]), rows=[tuple(r) for r in data["rows"]])


def _cases() -> list[tuple[str, dict]]:
    out = []
    for path in sorted(GOLDEN.glob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")):
            out.append((path.stem, case))
    return out


def test_every_preset_has_a_golden_file() -> None:
    assert {path.stem for path in GOLDEN.glob("*.yaml")} == set(CONTRACTS)


@pytest.mark.parametrize(("preset", "case"), _cases(), ids=[f"{p}: {c['rule']}" for p, c in _cases()])
def test_golden_case(preset: str, case: dict) -> None:
    contract = contract_named(preset)
    sql = case.get("gold_sql", "SELECT a FROM t")
    flags = {key: case[key] for key in ("ignore_order", "condition_cols") if key in case}
    question = Question(id="q", text="t", database="d", evidence=flags or None)
    ordered = order_matters(contract, sql, "sqlite", question)
    chosen = condition_columns(question)
    value = contract_score(contract, _result(case["pred"]), _result(case["gold"]), ordered=ordered, gold_columns=chosen)
    assert value == pytest.approx(case["expect"], abs=1e-6), case["rule"]


def test_unknown_contract_is_named_with_a_suggestion() -> None:
    with pytest.raises(NotFoundError, match="did you mean 'bird'"):
        split_contract_names(["spider,brid"])
    assert split_contract_names(["bird,spider", "bird", "strict"]) == ["bird", "spider", "strict"]


def test_spider_takes_every_distinct_out() -> None:
    assert remove_distinct("SELECT DISTINCT a FROM t") == "SELECT a FROM t"
    assert remove_distinct("SELECT COUNT(DISTINCT a) FROM t") == "SELECT COUNT(a) FROM t"
    assert remove_distinct("SELECT a FROM t") == "SELECT a FROM t"


# --- the peers' rules as their evaluators state them -------------------------------------------------------------


def spider_reference(gold: list[tuple], pred: list[tuple], order_matters: bool) -> bool:
    """test-suite-sql-eval result_eq: empty pair equal; rows and widths must agree; some column permutation makes
    the rows equal as lists (order matters) or as multisets."""
    if not gold and not pred:
        return True
    if len(gold) != len(pred) or len(gold[0]) != len(pred[0]):
        return False
    for perm in itertools.permutations(range(len(gold[0]))):
        moved = [tuple(row[i] for i in perm) for row in pred]
        if (gold == moved) if order_matters else (Counter(gold) == Counter(moved)):
            return True
    return False


def bird_reference(gold: list[tuple], pred: list[tuple]) -> bool:
    """BIRD calculate_ex."""
    return set(pred) == set(gold)


def bird_f1_reference(gold: list[tuple], pred: list[tuple]) -> float:
    """BIRD calculate_f1_score as its docstrings describe it."""
    if not pred and not gold:
        return 1.0
    pred, gold = list(dict.fromkeys(pred)), list(dict.fromkeys(gold))
    tp = fp = fn = 0.0
    for i, g in enumerate(gold):
        if i >= len(pred):
            fn += 1
            continue
        p = pred[i]
        tp += sum(v in g for v in p) / len(g)
        fp += sum(v not in g for v in p) / len(g)
        fn += sum(v not in p for v in g) / len(g)
    fp += max(0, len(pred) - len(gold))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def spider2_reference(gold: list[tuple], gold_width: int, pred: list[tuple], pred_width: int, ignore: bool) -> bool:
    """Spider 2.0 compare_pandas_table: NULL read as 0; each gold column equal (abs_tol 0.01, each column sorted by
    its text when order is ignored) to some predicted column."""

    def columns(rows: list[tuple], width: int) -> list[list]:
        return [[0 if row[i] is None else row[i] for row in rows] for i in range(width)]

    def same(v1: list, v2: list) -> bool:
        if ignore:
            v1 = sorted(v1, key=lambda x: (x is None, str(x), isinstance(x, int | float)))
            v2 = sorted(v2, key=lambda x: (x is None, str(x), isinstance(x, int | float)))
        if len(v1) != len(v2):
            return False
        for a, b in zip(v1, v2, strict=True):
            if isinstance(a, int | float) and isinstance(b, int | float):
                if not math.isclose(float(a), float(b), abs_tol=1e-2):
                    return False
            elif a != b:
                return False
        return True

    return all(any(same(g, p) for p in columns(pred, pred_width)) for g in columns(gold, gold_width))


VALUES = st.sampled_from([None, 0, 1, 2, 2.0, 0.5, 0.504, 0.6, "a", "b", "1"])


@st.composite
def pairs(draw: st.DrawFn) -> tuple[int, list[tuple], int, list[tuple]]:
    """A gold result and a prediction made from it by the edits models make: columns moved, rows shuffled,
    duplicated or dropped, a value changed, a column added."""
    width = draw(st.integers(1, 3))
    gold = draw(st.lists(st.tuples(*[VALUES] * width), max_size=4))
    pred = list(gold)
    pred_width = width
    if draw(st.booleans()):
        perm = draw(st.permutations(range(width)))
        pred = [tuple(row[i] for i in perm) for row in pred]
    if pred and draw(st.booleans()):
        pred = draw(st.permutations(pred))
    if pred and draw(st.booleans()):
        pred = [*pred, pred[draw(st.integers(0, len(pred) - 1))]]
    if pred and draw(st.booleans()):
        pred = pred[:-1]
    if pred and draw(st.booleans()):
        row = draw(st.integers(0, len(pred) - 1))
        col = draw(st.integers(0, pred_width - 1))
        changed = list(pred[row])
        changed[col] = draw(VALUES)
        pred[row] = tuple(changed)
    if draw(st.booleans()):
        extra = draw(VALUES)
        pred = [(*row, extra) for row in pred]
        pred_width += 1
    return width, gold, pred_width, pred


def _as_results(pair: tuple[int, list[tuple], int, list[tuple]]) -> tuple[QueryResult, QueryResult]:
    width, gold, pred_width, pred = pair
    gold_result = QueryResult(columns=[f"g{i}" for i in range(width)], rows=gold)
    return gold_result, QueryResult(columns=[f"p{i}" for i in range(pred_width)], rows=pred)


@settings(max_examples=400, deadline=None)
@given(pairs(), st.booleans())
def test_spider_agrees_with_its_evaluator(pair: tuple, ordered_gold: bool) -> None:
    gold, pred = _as_results(pair)
    sql = "SELECT a FROM t ORDER BY a" if ordered_gold else "SELECT a FROM t"
    for name in ("spider", "spider-keep-distinct"):
        contract = contract_named(name)
        value = contract_score(contract, pred, gold, ordered=order_matters(contract, sql, "sqlite"))
        assert value == float(spider_reference(gold.rows, pred.rows, ordered_gold))


@settings(max_examples=400, deadline=None)
@given(pairs())
def test_bird_agrees_with_its_evaluator(pair: tuple) -> None:
    gold, pred = _as_results(pair)
    ex = contract_score(contract_named("bird"), pred, gold, ordered=False)
    assert ex == float(bird_reference(gold.rows, pred.rows))
    f1 = contract_score(contract_named("bird-f1"), pred, gold, ordered=False)
    assert f1 == pytest.approx(bird_f1_reference(gold.rows, pred.rows))
    assert 0.0 <= f1 <= 1.0


@settings(max_examples=400, deadline=None)
@given(pairs(), st.booleans())
def test_spider2_agrees_with_its_evaluator(pair: tuple, ignore_order: bool) -> None:
    gold, pred = _as_results(pair)
    value = contract_score(contract_named("spider2"), pred, gold, ordered=not ignore_order)
    expected = spider2_reference(gold.rows, len(gold.columns), pred.rows, len(pred.columns), ignore_order)
    assert value == float(expected)


@settings(max_examples=300, deadline=None)
@given(pairs(), st.booleans())
def test_biarena_contract_is_execution_accuracy_as_before(pair: tuple, ordered: bool) -> None:
    from biarena.metrics.execution_match import results_match

    gold, pred = _as_results(pair)
    value = contract_score(contract_named("biarena"), pred, gold, ordered=ordered)
    assert value == float(results_match(pred, gold, ordered=ordered))


def test_contract_shapes_are_checked() -> None:
    from biarena.metrics.contracts import ResultContract

    with pytest.raises(ValueError, match="Soft-F1"):
        ResultContract("x", "x", columns="permutation", score="soft_f1")
    with pytest.raises(ValueError, match="rounding-aware"):
        ResultContract("x", "x", columns="position", numbers="rounding_aware")
