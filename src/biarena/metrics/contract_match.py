"""contract_score: a predicted result against a gold one under a ResultContract (1 or 0, or Soft-F1)."""

import math
from collections import Counter
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.db.result import QueryResult
from biarena.metrics.columns import Tolerance
from biarena.metrics.context import orders_rows
from biarena.metrics.contracts import ResultContract
from biarena.metrics.execution_match import assignments, results_match
from biarena.metrics.soft_f1 import soft_f1
from biarena.records import Question

_MAX_ASSIGNMENTS = 10_000
"""Column assignments tried at most; values prune them long before, except in columns full of one value."""


def order_matters(contract: ResultContract, gold_sql: str, dialect: str, question: Question | None = None) -> bool:
    """Whether row order is part of the answer under `contract`, for this gold query (and question)."""
    if contract.order == "never":
        return False
    if contract.order == "any_order_by":
        return "order by" in gold_sql.lower()
    if contract.order == "flag_or_outer_order_by" and question is not None:
        flag = (question.evidence or {}).get("ignore_order")
        if isinstance(flag, bool):
            return not flag
    return orders_rows(gold_sql, dialect)


def condition_columns(question: Question | None, gold_index: int = 0) -> list[int] | None:
    """The gold columns a question says to compare (its evidence `condition_cols`, as Spider 2.0 gives them: one
    list for every gold, or a list per gold, `gold_index` choosing)."""
    found = (question.evidence or {}).get("condition_cols") if question is not None else None
    if isinstance(found, list) and found and all(isinstance(i, list) for i in found):
        found = found[gold_index] if 0 <= gold_index < len(found) else None
    if isinstance(found, list) and found and all(isinstance(i, int) and not isinstance(i, bool) for i in found):
        return found
    return None


def remove_distinct(sql: str, dialect: str = "sqlite") -> str:
    """`sql` with every DISTINCT taken out (of SELECT and of aggregates), as Spider's evaluator runs queries."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, RecursionError):
        return " ".join(word for word in sql.split(" ") if word.lower() != "distinct")
    if tree is None:
        return sql
    found = False
    for select in list(tree.find_all(exp.Select)):
        if select.args.get("distinct") is not None:
            select.set("distinct", None)
            found = True
    for node in list(tree.find_all(exp.Distinct)):
        if len(node.expressions) == 1:
            node.replace(node.expressions[0])
            found = True
    return tree.sql(dialect=dialect) if found else sql


def contract_score(
    contract: ResultContract,
    predicted: QueryResult,
    gold: QueryResult,
    *,
    ordered: bool,
    tolerance: Tolerance | None = None,
    gold_columns: list[int] | None = None,
) -> float:
    """1.0 when `predicted` holds the gold's answer under `contract` (else 0.0); Soft-F1 for a graded contract.

    `ordered` says whether row order matters (see `order_matters`); `tolerance` is biarena's rounding rule;
    `gold_columns`, for a gold_subset contract, the gold columns that must be found (Spider 2.0's condition_cols;
    all when None)."""
    if contract.score == "soft_f1":
        return soft_f1([_cells(r, contract) for r in predicted.rows], [_cells(r, contract) for r in gold.rows])
    if contract.numbers == "rounding_aware":
        tolerance = tolerance or Tolerance(max_decimals=contract.decimals)
        return float(results_match(predicted, gold, ordered=ordered, tolerance=tolerance))
    if contract.columns == "gold_subset":
        return float(_columns_found(contract, predicted, gold, ordered, gold_columns))
    return float(_rows_equal(contract, predicted, gold, ordered))


def _hashable(value: Any) -> Any:
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    try:
        hash(value)
    except TypeError:
        return str(value)
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal)


def _cell(value: Any, contract: ResultContract) -> Any:
    """A value as the contract compares it (NULL policy, rounding to places)."""
    if value is None or (isinstance(value, float) and math.isnan(value) and contract.nulls == "zero"):
        return 0 if contract.nulls == "zero" else None
    if contract.numbers == "decimals" and _is_number(value):
        rounded = round(float(value), contract.decimals)
        return 0.0 if rounded == 0 else rounded
    return _hashable(value)


def _cells(row: Sequence[Any], contract: ResultContract) -> tuple:
    return tuple(_cell(v, contract) for v in row)


def _close(a: Any, b: Any, contract: ResultContract) -> bool:
    """Two normalised values equal under the contract's number rule."""
    if _is_number(a) and _is_number(b):
        if contract.numbers == "absolute":
            return math.isclose(float(a), float(b), abs_tol=contract.tolerance)
        if contract.numbers == "relative":
            return math.isclose(float(a), float(b), rel_tol=contract.tolerance)
    return a == b


def _hashed_numbers(contract: ResultContract) -> bool:
    """True when equal values have equal normalised forms (no tolerance), so rows can be counted by hashing."""
    return contract.numbers in ("exact", "decimals")


# --- rows compared whole, columns paired one to one -----------------------------------------------------------


def _rows_equal(contract: ResultContract, predicted: QueryResult, gold: QueryResult, ordered: bool) -> bool:
    if not predicted.rows and not gold.rows:
        return contract.empty == "equal" or len(predicted.columns) == len(gold.columns)
    width = len(gold.rows[0]) if gold.rows else len(gold.columns)
    if (len(predicted.rows[0]) if predicted.rows else len(predicted.columns)) != width:
        return False
    if (contract.rows == "bag" or ordered) and len(predicted.rows) != len(gold.rows):
        return False
    pred_rows = [_cells(r, contract) for r in predicted.rows]
    gold_rows = [_cells(r, contract) for r in gold.rows]
    same = _same_rows(contract, ordered)
    for assignment in _assignments(contract, predicted.columns, gold.columns, pred_rows, gold_rows, ordered):
        permuted = [tuple(row[i] for i in assignment) for row in pred_rows]
        if same(permuted, gold_rows):
            return True
    return False


def _same_rows(contract: ResultContract, ordered: bool) -> Callable[[list[tuple], list[tuple]], bool]:
    """The test of two lists of rows (columns already paired) the contract's rows and numbers call for."""
    if _hashed_numbers(contract):
        if ordered:
            return lambda a, b: a == b
        if contract.rows == "set":
            return lambda a, b: set(a) == set(b)
        return lambda a, b: Counter(a) == Counter(b)

    def pairwise(a: list[tuple], b: list[tuple]) -> bool:
        if not ordered:
            if contract.rows == "set":
                a, b = list(dict.fromkeys(a)), list(dict.fromkeys(b))
            # with a tolerance rows are not hashable into a bag: both sides sorted by their text, then paired
            a, b = sorted(a, key=_text_key), sorted(b, key=_text_key)
        return len(a) == len(b) and all(
            all(_close(x, y, contract) for x, y in zip(ra, rb, strict=True)) for ra, rb in zip(a, b, strict=True)
        )

    return pairwise


def _text_key(row: tuple) -> tuple:
    return tuple((v is None, str(v)) for v in row)


def _assignments(
    contract: ResultContract,
    pred_names: list[str],
    gold_names: list[str],
    pred_rows: list[tuple],
    gold_rows: list[tuple],
    ordered: bool,
) -> list[list[int]]:
    """Predicted column index for each gold column, for each pairing worth trying."""
    width = len(gold_rows[0]) if gold_rows else len(gold_names)
    if contract.columns == "position":
        return [list(range(width))]
    if contract.columns == "name":
        names = [n.lower() for n in pred_names]
        chosen: list[int] = []
        for name in (n.lower() for n in gold_names):
            free = [i for i, n in enumerate(names) if n == name and i not in chosen]
            if not free:
                return []
            chosen.append(free[0])
        return [chosen]
    pred_cols = list(zip(*pred_rows, strict=True)) if pred_rows else [() for _ in range(width)]
    gold_cols = list(zip(*gold_rows, strict=True)) if gold_rows else [() for _ in range(width)]
    candidates = [[i for i, p in enumerate(pred_cols) if _may_pair(contract, p, g, ordered)] for g in gold_cols]
    return assignments(candidates, _MAX_ASSIGNMENTS)


def _may_pair(contract: ResultContract, pred: tuple, gold: tuple, ordered: bool) -> bool:
    """A necessary test that a predicted column can stand for a gold one (the rows test settles it)."""
    if not _hashed_numbers(contract):
        return True
    if contract.rows == "set" and not ordered:
        return set(pred) == set(gold)
    return Counter(pred) == Counter(gold)


# --- each gold column found among the predicted ones (Spider 2.0) ---------------------------------------------


def _columns_found(
    contract: ResultContract, predicted: QueryResult, gold: QueryResult, ordered: bool, chosen: list[int] | None
) -> bool:
    gold_cols = _vectors(gold, contract)
    if chosen:
        gold_cols = [gold_cols[i] for i in chosen if 0 <= i < len(gold_cols)]
    pred_cols = _vectors(predicted, contract)
    if not ordered:
        gold_cols = [sorted(v, key=_vector_key) for v in gold_cols]
        pred_cols = [sorted(v, key=_vector_key) for v in pred_cols]
    return all(any(_vectors_match(g, p, contract) for p in pred_cols) for g in gold_cols)


def _vectors(result: QueryResult, contract: ResultContract) -> list[list[Any]]:
    if not result.rows:
        return [[] for _ in result.columns]
    return [[_cell(v, contract) for v in column] for column in zip(*result.rows, strict=True)]


def _vector_key(value: Any) -> tuple:
    # Spider 2.0 sorts a column by the text of its values (NULLs last) when order does not matter
    return (value is None, str(value), _is_number(value))


def _vectors_match(gold: list[Any], pred: list[Any], contract: ResultContract) -> bool:
    if len(gold) != len(pred):
        return False
    for a, b in zip(gold, pred, strict=True):
        if a is None and b is None:
            continue
        if not _close(a, b, contract):
            return False
    return True
