"""evaluate: a rule's SQL expression (comparisons, AND/OR/NOT, IN, BETWEEN, IS NULL, arithmetic) on numpy columns.

Rules are written once, in portable SQL. The generator evaluates them here, vectorized, chunk by chunk; the
verifier runs the same text as SQL on the written data, so the two must agree row by row.
"""

import operator
from collections.abc import Callable
from functools import lru_cache

import numpy as np
import sqlglot
from sqlglot import exp

from biarena.errors import FormatError

_COMPARE: dict[type, Callable] = {
    exp.EQ: operator.eq,
    exp.NEQ: operator.ne,
    exp.GT: operator.gt,
    exp.GTE: operator.ge,
    exp.LT: operator.lt,
    exp.LTE: operator.le,
}
_ARITHMETIC: dict[type, Callable] = {
    exp.Add: operator.add,
    exp.Sub: operator.sub,
    exp.Mul: operator.mul,
    exp.Div: operator.truediv,
}


def _literal(node: exp.Literal) -> object:
    if node.is_string:
        return node.this
    text = str(node.this)
    return float(text) if any(c in text for c in ".eE") else int(text)


def _eval(node: exp.Expression, columns: dict[str, np.ndarray], n: int) -> np.ndarray | object:
    if isinstance(node, exp.Paren):
        return _eval(node.this, columns, n)
    if isinstance(node, exp.Column):
        if node.name not in columns:
            raise FormatError(f"unknown column '{node.name}' (columns: {', '.join(columns)})")
        return columns[node.name]
    if isinstance(node, exp.Literal):
        return _literal(node)
    if isinstance(node, exp.Boolean):
        return 1 if node.this else 0
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Neg):
        return -_as_array(_eval(node.this, columns, n), n)
    if type(node) in _COMPARE:
        left, right = _eval(node.this, columns, n), _eval(node.expression, columns, n)
        return np.asarray(_COMPARE[type(node)](_as_array(left, n), right), dtype=bool)
    if type(node) in _ARITHMETIC:
        left, right = _eval(node.this, columns, n), _eval(node.expression, columns, n)
        return _ARITHMETIC[type(node)](_as_array(left, n).astype(float), right)
    if isinstance(node, exp.And):
        return _truth(_eval(node.this, columns, n), n) & _truth(_eval(node.expression, columns, n), n)
    if isinstance(node, exp.Or):
        return _truth(_eval(node.this, columns, n), n) | _truth(_eval(node.expression, columns, n), n)
    if isinstance(node, exp.Not):
        return ~_truth(_eval(node.this, columns, n), n)
    if isinstance(node, exp.In):
        values = [_eval(e, columns, n) for e in node.expressions]
        return np.isin(_as_array(_eval(node.this, columns, n), n), np.array(values, dtype=object))
    if isinstance(node, exp.Between):
        value = _as_array(_eval(node.this, columns, n), n)
        low, high = _eval(node.args["low"], columns, n), _eval(node.args["high"], columns, n)
        return np.asarray((value >= low) & (value <= high), dtype=bool)
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        value = _as_array(_eval(node.this, columns, n), n)
        return np.array([v is None for v in value.tolist()], dtype=bool) if value.dtype == object else np.isnan(value)
    allowed = "comparisons, AND/OR/NOT, IN, BETWEEN, IS NULL, + - * /"
    raise FormatError(f"unsupported in a rule: {node.sql()!r} (use {allowed})")


def _as_array(value: np.ndarray | object, n: int) -> np.ndarray:
    return value if isinstance(value, np.ndarray) else np.full(n, value, dtype=object)


def _truth(value: np.ndarray | object, n: int) -> np.ndarray:
    array = _as_array(value, n)
    return array.astype(bool) if array.dtype != object else np.array([bool(v) for v in array.tolist()], dtype=bool)


@lru_cache(maxsize=256)
def _parse(expression: str) -> exp.Expression:
    """Parsed once per expression, not once per chunk."""
    try:
        return sqlglot.parse_one(expression)
    except sqlglot.errors.ParseError as error:
        raise FormatError(f"cannot parse {expression!r}: {str(error).splitlines()[0]}") from None


def evaluate(expression: str, columns: dict[str, np.ndarray], n: int) -> np.ndarray:
    """The expression's value for each of the `n` rows (a bool array for conditions)."""
    return _as_array(_eval(_parse(expression), columns, n), n)
