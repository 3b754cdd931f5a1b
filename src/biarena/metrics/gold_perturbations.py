"""perturb_gold: a fixed set of edits of a gold query that tell result contracts apart, for measuring them without a
model: a value rounded, DISTINCT switched, columns swapped, a wrong literal."""

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.metrics.sql_mutations import Domain, mutants

KINDS = ("gold", "round", "distinct", "swap", "literal")
"""The edits, `gold` (none) first."""


def _rounded(tree: exp.Select) -> exp.Select | None:
    """The first selected expression that computes a number (an aggregate or arithmetic) wrapped in ROUND(_, 1)."""
    copy = tree.copy()
    for index, item in enumerate(copy.expressions):
        inner = item.this if isinstance(item, exp.Alias) else item
        if inner.find(exp.AggFunc, exp.Div, exp.Mul, exp.Sub, exp.Add) is not None and not isinstance(inner, exp.Count):
            wrapped = exp.Round(this=inner.copy(), decimals=exp.Literal.number(1))
            copy.expressions[index].replace(exp.alias_(wrapped, item.alias) if item.alias else wrapped)
            return copy
    return None


def perturb_gold(sql: str, kind: str, dialect: str = "sqlite", *, domain: Domain | None = None) -> str | None:
    """`sql` with the edit `kind` made (see KINDS), or None when the edit does not apply to it."""
    if kind == "gold":
        return sql
    if kind == "literal":
        found = [m for m in mutants(sql, dialect, domain=domain, limit=200) if _literal_only(sql, m, dialect)]
        return found[0] if found else None
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, RecursionError):
        return None
    if not isinstance(tree, exp.Select):
        return None
    if kind == "round":
        made = _rounded(tree)
    elif kind == "distinct":
        made = tree.copy()
        made.set("distinct", None if tree.args.get("distinct") else exp.Distinct())
    elif kind == "swap":
        if len(tree.expressions) < 2 or any(isinstance(e, exp.Star) for e in tree.expressions):
            return None
        made = tree.copy()
        made.set("expressions", [e.copy() for e in reversed(tree.expressions)])
    else:
        raise ValueError(f"unknown perturbation '{kind}'")
    return made.sql(dialect=dialect) if made is not None else None


def _literal_only(sql: str, mutant: str, dialect: str) -> bool:
    """True when the mutant differs from `sql` in literals of its filters only (a wrong filter value)."""
    try:
        a, b = sqlglot.parse_one(sql, read=dialect), sqlglot.parse_one(mutant, read=dialect)
    except (SqlglotError, RecursionError):
        return False
    left, right = list(a.walk()), list(b.walk())
    if len(left) != len(right):
        return False
    changed = [(x, y) for x, y in zip(left, right, strict=True) if type(x) is not type(y) or x.args != y.args]
    literals = [(x, y) for x, y in changed if isinstance(x, exp.Literal) and isinstance(y, exp.Literal)]
    # a changed literal also changes each of its ancestors' args: the literal pair is what must differ
    return (
        bool(literals)
        and all(
            isinstance(x, exp.Literal) or (type(x) is type(y) and x.find(exp.Literal) is not None) for x, y in changed
        )
        and all(x.find_ancestor(exp.Where, exp.Having, exp.Join) is not None for x, _ in literals)
    )
