"""Execution accuracy's result equality: bags of rows, column order free, numbers to a tolerance."""

from collections import Counter

from biarena.db.result import QueryResult
from biarena.metrics.columns import (
    Column,
    Tolerance,
    columns_equal,
    common_places,
    may_match,
    normalised_rows,
)
from biarena.metrics.result_similarity import to_columns

_MAX_PERMUTATIONS = 200


def assignments(candidates: list[list[int]], most: int) -> list[list[int]]:
    """Up to `most` one-to-one assignments gold column -> predicted column, the predicted ones for each gold column
    taken from its `candidates` in order."""
    out: list[list[int]] = []

    def walk(position: int, chosen: list[int], used: set[int]) -> None:
        if len(out) >= most:
            return
        if position == len(candidates):
            out.append(list(chosen))
            return
        for option in candidates[position]:
            if option not in used:
                chosen.append(option)
                used.add(option)
                walk(position + 1, chosen, used)
                chosen.pop()
                used.discard(option)

    walk(0, [], set())
    return out


def results_match(
    predicted: QueryResult,
    gold: QueryResult,
    *,
    ordered: bool = False,
    tolerance: Tolerance | None = None,
    predicted_columns: list[Column] | None = None,
    gold_columns: list[Column] | None = None,
) -> bool:
    """True when `predicted` holds the same rows as `gold`, up to column order and rounding."""
    tolerance = tolerance or Tolerance()
    if len(predicted.columns) != len(gold.columns) or len(predicted.rows) != len(gold.rows):
        return False
    if not gold.rows:
        return True
    pred_cols = predicted_columns if predicted_columns is not None else to_columns(predicted)
    gold_cols = gold_columns if gold_columns is not None else to_columns(gold)
    candidates = []
    for b in gold_cols:
        options = [
            i
            for i, a in enumerate(pred_cols)
            if may_match(a, b, ordered, tolerance) and columns_equal(a, b, ordered, tolerance)
        ]
        if not options:
            return False
        candidates.append(options)
    for assignment in assignments(candidates, _MAX_PERMUTATIONS):
        if _rows_equal([pred_cols[i] for i in assignment], gold_cols, ordered, tolerance):
            return True
    return False


def _rows_equal(pred: list[Column], gold: list[Column], ordered: bool, tolerance: Tolerance) -> bool:
    places = [common_places(a, b, tolerance) if a.is_numeric else None for a, b in zip(pred, gold, strict=True)]
    left, right = normalised_rows(pred, places), normalised_rows(gold, places)
    if ordered:
        return left == right
    return Counter(left) == Counter(right)
