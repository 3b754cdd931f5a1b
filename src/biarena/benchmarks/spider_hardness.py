"""spider_hardness: a query's hardness (easy, medium, hard, extra) by the rule of Spider's evaluator.

Spider's `eval_hardness` reads the parsed top-level query (for `A UNION B`, the part `A`) and counts:
- component 1: WHERE, GROUP BY, ORDER BY and LIMIT present (1 each), one per table joined beyond the first, one per
  OR and one per LIKE among the conditions of ON, WHERE and HAVING;
- component 2: subqueries that are values of those conditions, and one for a UNION, INTERSECT or EXCEPT;
- others: more than one "aggregation", more than one selected item, more than one WHERE condition, more than one
  GROUP BY column (1 each).

Its aggregation count keeps the evaluator's reading: a selected item counts when an aggregate is applied to all of it
(`max(a) - min(a)` does not), an ORDER BY term for each side that is an aggregate, a WHERE condition when it is
negated (NOT IN, NOT LIKE, NOT BETWEEN: the count looks at the condition's NOT flag), and a HAVING clause for each
negated condition and each AND/OR that joins its conditions. Then easy: component 1 <= 1 and nothing else; medium:
(others <= 2, component 1 <= 1) or (component 1 <= 2, others < 2), without component 2; hard: (others > 2,
component 1 <= 2) or (component 1 = 3, others <= 2) without component 2, or (component 1 <= 1, others = 0,
component 2 <= 1); else extra. A query the parser cannot read is `None`.
"""

from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

_AGGREGATES = (exp.Max, exp.Min, exp.Count, exp.Sum, exp.Avg)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div)


@dataclass(frozen=True)
class HardnessCounts:
    """The three counts Spider's hardness rule reads."""

    component1: int
    component2: int
    others: int


def _unwrap(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _conditions(node: exp.Expression | None) -> tuple[list[exp.Expression], int, int]:
    """The conditions joined by AND/OR in `node` (flattened as Spider's parser reads them), the number of ORs, and
    the number of joining ANDs and ORs."""
    if node is None:
        return [], 0, 0
    node = _unwrap(node)
    if isinstance(node, exp.And | exp.Or):
        left, left_or, left_joins = _conditions(node.this)
        right, right_or, right_joins = _conditions(node.expression)
        return left + right, left_or + right_or + isinstance(node, exp.Or), left_joins + right_joins + 1
    return [node], 0, 0


def _negated(condition: exp.Expression) -> tuple[exp.Expression, bool]:
    if isinstance(condition, exp.Not):
        return _unwrap(condition.this), True
    return condition, bool(condition.args.get("negate"))


def _is_like(condition: exp.Expression) -> bool:
    return isinstance(_negated(condition)[0], exp.Like)


def _subqueries(condition: exp.Expression) -> int:
    """Values of the condition that are queries (`x IN (SELECT ...)`, `x > (SELECT ...)`)."""
    inner, _ = _negated(condition)
    found = 0
    for value in inner.args.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, exp.Expression) and isinstance(_unwrap(item), exp.Subquery | exp.Query):
                found += 1
    return found


def _aggregated(node: exp.Expression | None) -> bool:
    """An aggregate applied to the whole of `node` (an alias or ORDER BY direction set aside)."""
    if node is None:
        return False
    if isinstance(node, exp.Alias | exp.Ordered):
        node = node.this
    return isinstance(_unwrap(node), _AGGREGATES)


def _order_aggregates(term: exp.Expression) -> int:
    node = _unwrap(term.this if isinstance(term, exp.Ordered) else term)
    if isinstance(node, _ARITHMETIC):
        return int(_aggregated(node.this)) + int(_aggregated(node.expression))
    return int(_aggregated(node))


def _leftmost(tree: exp.Expression) -> exp.Select | None:
    while isinstance(tree, exp.SetOperation):
        tree = tree.this
    while isinstance(tree, exp.Subquery):
        tree = tree.this
    return tree if isinstance(tree, exp.Select) else None


def hardness_counts(sql: str, dialect: str = "sqlite") -> HardnessCounts | None:
    """The counts of Spider's hardness rule for `sql`, or None when it cannot be parsed as a query."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, RecursionError):
        return None
    if tree is None:
        return None
    select = _leftmost(tree)
    if select is None:
        return None
    where_node = select.args.get("where")
    having_node = select.args.get("having")
    group_node = select.args.get("group")
    order_node = select.args.get("order")
    joins = select.args.get("joins") or []
    where, where_or, _ = _conditions(where_node.this if where_node else None)
    having, having_or, having_joins = _conditions(having_node.this if having_node else None)
    on: list[exp.Expression] = []
    on_or = 0
    for join in joins:
        found, ors, _ = _conditions(join.args.get("on"))
        on += found
        on_or += ors
    groups = group_node.expressions if group_node else []
    orders = order_node.expressions if order_node else []
    tables = (1 if select.args.get("from_") is not None else 0) + len(joins)

    component1 = sum(1 for part in (where, groups, orders) if part) + (select.args.get("limit") is not None)
    component1 += max(tables - 1, 0) + on_or + where_or + having_or
    component1 += sum(1 for c in on + where + having if _is_like(c))

    component2 = sum(_subqueries(c) for c in on + where + having)
    component2 += isinstance(tree, exp.SetOperation)

    aggregates = sum(1 for item in select.expressions if _aggregated(item))
    aggregates += sum(1 for c in where if _negated(c)[1])
    aggregates += sum(_order_aggregates(term) for term in orders)
    aggregates += sum(1 for c in having if _negated(c)[1]) + having_joins
    others = sum((aggregates > 1, len(select.expressions) > 1, len(where) > 1, len(groups) > 1))
    return HardnessCounts(component1, component2, others)


def spider_hardness(sql: str, dialect: str = "sqlite") -> str | None:
    """Spider's hardness of `sql`: easy, medium, hard or extra (None when it cannot be parsed)."""
    counts = hardness_counts(sql, dialect)
    if counts is None:
        return None
    c1, c2, others = counts.component1, counts.component2, counts.others
    if c1 <= 1 and others == 0 and c2 == 0:
        return "easy"
    if c2 == 0 and ((others <= 2 and c1 <= 1) or (c1 <= 2 and others < 2)):
        return "medium"
    if (c2 == 0 and ((others > 2 and c1 <= 2) or (2 < c1 <= 3 and others <= 2))) or (
        c1 <= 1 and others == 0 and c2 <= 1
    ):
        return "hard"
    return "extra"
