"""Result similarity and execution accuracy: fingerprinted matching equals an all-pairs comparison."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from biarena.db import QueryResult
from biarena.metrics import Tolerance, result_similarity, results_match
from biarena.metrics.columns import Column, columns_equal


def naive(pred: QueryResult, gold: QueryResult, ordered: bool) -> tuple[float, float]:
    """The paper's method: compare every column pair in full, then match one to one."""
    tol = Tolerance()
    pc = [Column.of([r[i] for r in pred.rows]) for i in range(len(pred.columns))]
    gc = [Column.of([r[j] for r in gold.rows]) for j in range(len(gold.columns))]
    edges = {(i, j) for i in range(len(pc)) for j in range(len(gc)) if columns_equal(pc[i], gc[j], ordered, tol)}
    # maximum matching by brute force over small sizes
    best = 0

    def walk(i: int, used: frozenset, count: int) -> None:
        nonlocal best
        best = max(best, count)
        if i == len(pc):
            return
        walk(i + 1, used, count)
        for j in range(len(gc)):
            if j not in used and (i, j) in edges:
                walk(i + 1, used | {j}, count + 1)

    walk(0, frozenset(), 0)
    return best / len(pc), best / len(gc)


values = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, 1.25, 2.0, None]), st.sampled_from(["a", "b"]))


@st.composite
def result_pairs(draw: st.DrawFn) -> tuple[QueryResult, QueryResult]:
    rows = draw(st.integers(1, 5))
    gold_cols = draw(st.integers(1, 4))
    gold = [[draw(values) for _ in range(rows)] for _ in range(gold_cols)]
    pred = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            column = list(draw(st.sampled_from(gold)))
            if draw(st.booleans()):
                column = list(reversed(column))
            pred.append(column)
        else:
            pred.append([draw(values) for _ in range(rows)])
    to_result = lambda cols: QueryResult([f"c{i}" for i in range(len(cols))], list(zip(*cols, strict=True)))  # noqa: E731
    return to_result(pred), to_result(gold)


@settings(max_examples=300, deadline=None)
@given(pair=result_pairs(), ordered=st.booleans())
def test_fingerprinted_matching_equals_all_pairs(pair: tuple[QueryResult, QueryResult], ordered: bool) -> None:
    pred, gold = pair
    found = result_similarity(pred, gold, ordered=ordered)
    precision, recall = naive(pred, gold, ordered)
    assert math.isclose(found.precision, precision) and math.isclose(found.recall, recall)


def test_recall_is_matched_over_gold_columns() -> None:
    gold = QueryResult(["a", "b", "c"], [(1, 2, 3), (4, 5, 6)])
    pred = QueryResult(["x"], [(2,), (5,)])
    found = result_similarity(pred, gold)
    assert (found.precision, found.recall) == (1.0, 1 / 3)
    assert math.isclose(found.f1, 0.5)


def test_columns_match_by_values_not_names() -> None:
    gold = QueryResult(["revenue"], [(10.0,), (20.0,)])
    pred = QueryResult(["total"], [(20.0,), (10.0,)])
    assert result_similarity(pred, gold).f1 == 1.0
    assert result_similarity(pred, gold, ordered=True).f1 == 0.0


def test_empty_gold_compares_headers() -> None:
    gold = QueryResult(["name", "qty"], [])
    assert result_similarity(QueryResult(["NAME"], []), gold).precision == 1.0
    assert result_similarity(QueryResult(["other"], []), gold).f1 == 0.0


def test_execution_accuracy_rules() -> None:
    gold = QueryResult(["a", "b"], [(1, 0.3333333), (2, 0.6666667), (2, 0.6666667)])
    # column order free, rounding free, row order free (gold does not order)
    assert results_match(QueryResult(["b", "a"], [(0.67, 2), (0.33, 1), (0.67, 2)]), gold)
    # bags, not sets: a missing duplicate row fails
    assert not results_match(QueryResult(["a", "b"], [(1, 0.3333333), (2, 0.6666667)]), gold)
    # rows must pair the same values, not just hold equal columns
    crossed = QueryResult(["a", "b"], [(1, 0.6666667), (2, 0.3333333), (2, 0.6666667)])
    assert not results_match(crossed, gold)
    # ordered gold: order counts
    ordered_gold = QueryResult(["a"], [(1,), (2,)])
    assert results_match(QueryResult(["a"], [(2,), (1,)]), ordered_gold)
    assert not results_match(QueryResult(["a"], [(2,), (1,)]), ordered_gold, ordered=True)
    # an integer is not a rounded non-integer
    assert not results_match(QueryResult(["a"], [(3,)]), QueryResult(["a"], [(2.6,)]))
    # exact comparison when rounding tolerance is off
    assert not results_match(
        QueryResult(["a"], [(0.33,)]), QueryResult(["a"], [(1 / 3,)]), tolerance=Tolerance(rounding_aware=False)
    )


def test_column_permutation_with_equal_columns() -> None:
    gold = QueryResult(["a", "b"], [(1, 2), (2, 1)])
    pred = QueryResult(["b", "a"], [(2, 1), (1, 2)])
    assert results_match(pred, gold)


