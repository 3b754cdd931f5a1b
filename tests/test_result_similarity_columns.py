"""Typed columns built block by block from a result's rows are the columns `Column.of` builds from each column."""

import datetime
import decimal
import random

import numpy as np
import pytest

import biarena.metrics.typed_columns as typed_module
from biarena.db.result import QueryResult
from biarena.metrics import Tolerance, result_similarity
from biarena.metrics.columns import Column, columns_equal
from biarena.metrics.typed_columns import ColumnOfRows, typed_columns


class _Text(str):
    """A text value of a type other than `str` (typed as the mixed path types it)."""


def _pool(rng: random.Random) -> list:
    return [
        None,
        rng.randint(-5, 5),
        rng.choice([0.5, 2.0, 2.0000000001, -0.0, 1 / 3, 1e16, float("inf")]),
        decimal.Decimal("2.50"),
        datetime.date(2024, 1, rng.randint(1, 3)),
        datetime.datetime(2024, 1, 1, 12, rng.randint(0, 2)),
        b"\x00\x01",
        rng.choice([True, False]),
        rng.choice(["a", "b", "2"]),
        np.int64(2),
        np.float64(2.5),
        _Text("a"),
        2**70 + 1,
    ]


def _column(rng: random.Random, n: int) -> list:
    """A column of one of the shapes results have, sometimes with one odd value in a later block."""
    kind = rng.choice(["int", "float", "int_null", "float_null", "text", "text_null", "null", "bool", "any"])
    if kind == "int":
        values = [rng.randint(-3, 3) for _ in range(n)]
    elif kind == "float":
        values = [round(rng.uniform(-3, 3), rng.randint(0, 3)) for _ in range(n)]
    elif kind == "int_null":
        values = [None if rng.random() < 0.3 else rng.randint(0, 3) for _ in range(n)]
    elif kind == "float_null":
        values = [None if rng.random() < 0.3 else rng.choice([1.0, 1.5, 2.0000000001]) for _ in range(n)]
    elif kind == "text":
        values = [rng.choice("abc") for _ in range(n)]
    elif kind == "text_null":
        values = [None if rng.random() < 0.3 else rng.choice("ab") for _ in range(n)]
    elif kind == "null":
        values = [None] * n
    elif kind == "bool":
        values = [rng.random() < 0.5 for _ in range(n)]
    else:
        values = [rng.choice(_pool(rng)) for _ in range(n)]
    if n and rng.random() < 0.4:
        values[rng.randrange(n)] = rng.choice(_pool(rng))
    return values


def _assert_same(built: Column, expected: Column) -> None:
    assert built.size == expected.size
    assert list(built.values) == list(expected.values)
    assert (built.numeric is None) == (expected.numeric is None)
    if expected.numeric is not None:
        assert built.numeric is not None
        assert built.numeric.tobytes() == expected.numeric.tobytes()
    assert (built.others is None) == (expected.others is None)
    if expected.others is not None:
        assert built.others == expected.others and expected.others == built.others
        assert built.counts == expected.counts
        assert built.bag_hash() == expected.bag_hash()
        assert built.seq_hash() == expected.seq_hash()


@pytest.mark.parametrize("seed", range(40))
def test_typed_columns_are_the_columns_of_their_values(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(typed_module, "BLOCK", rng.choice([1, 3, 4, 512]))
    n, width = rng.randint(1, 13), rng.randint(1, 6)
    raw = [_column(rng, n) for _ in range(width)]
    built = typed_columns(list(zip(*raw, strict=True)), width)
    assert len(built) == width
    for values, column in zip(raw, built, strict=True):
        _assert_same(column, Column.of(tuple(values)))


@pytest.mark.parametrize("seed", range(40))
def test_similarity_is_the_same_as_on_columns_built_one_by_one(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(1000 + seed)
    monkeypatch.setattr(typed_module, "BLOCK", rng.choice([2, 5, 512]))
    n = rng.randint(1, 12)
    gold_raw = [_column(rng, n) for _ in range(rng.randint(1, 5))]
    # The prediction keeps some gold columns (rows in the same or another order) and adds others.
    kept = [list(c) for c in rng.sample(gold_raw, rng.randint(0, len(gold_raw)))]
    pred_raw = kept + [_column(rng, n) for _ in range(rng.randint(0, 3))] or [_column(rng, n)]
    rng.shuffle(pred_raw)
    if rng.random() < 0.5:
        order = list(range(n))
        rng.shuffle(order)
        pred_raw = [[c[i] for i in order] for c in pred_raw]
    pred = QueryResult([f"p{i}" for i in range(len(pred_raw))], list(zip(*pred_raw, strict=True)))
    gold = QueryResult([f"g{j}" for j in range(len(gold_raw))], list(zip(*gold_raw, strict=True)))
    for ordered in (False, True):
        for tolerance in (Tolerance(), Tolerance(rounding_aware=False)):
            fast = result_similarity(pred, gold, ordered=ordered, tolerance=tolerance)
            one_by_one = result_similarity(
                pred,
                gold,
                ordered=ordered,
                tolerance=tolerance,
                predicted_columns=[Column.of(tuple(c)) for c in pred_raw],
                gold_columns=[Column.of(tuple(c)) for c in gold_raw],
            )
            assert fast == one_by_one
            edges = {
                (i, j)
                for i, a in enumerate(pred_raw)
                for j, b in enumerate(gold_raw)
                if columns_equal(Column.of(tuple(a)), Column.of(tuple(b)), ordered, tolerance)
            }
            assert set(fast.matched) <= edges


def test_a_column_of_rows_is_its_tuple() -> None:
    rows = [(1, "a"), (2, "b"), (3, "a")]
    column = ColumnOfRows(rows, 1)
    assert len(column) == 3
    as_tuple = ("a", "b", "a")
    assert column == as_tuple and as_tuple == column
    assert column != ("a", "b") and column != ["a", "b", "a"]
    assert column == ColumnOfRows(rows, 1) and column != ColumnOfRows(rows, 0)
    assert hash(column) == hash(("a", "b", "a"))
    assert column[1] == "b" and column[-1] == "a" and list(column) == ["a", "b", "a"]
    assert column.values() == ("a", "b", "a") and len(column) == 3


def test_rows_of_another_width_are_refused() -> None:
    with pytest.raises(ValueError):
        typed_columns([(1, 2), (3, 4)], 3)
    with pytest.raises(ValueError):
        typed_columns([(1, 2, 3), (3, 4, 5)], 2)
    with pytest.raises(ValueError):
        typed_columns([(1, 2), (3,)], 2)


def test_text_columns_count_without_holding_the_values() -> None:
    rows = [("x", 1.5), ("y", None), ("x", 2.0)]
    text, numbers = typed_columns(rows, 2)
    assert text.counts == {"x": 2, "y": 1}
    assert isinstance(text.others, ColumnOfRows) and text.others == ("x", "y", "x")
    assert np.array_equal(numbers.numeric, [1.5, np.nan, 2.0], equal_nan=True)
