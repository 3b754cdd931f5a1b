"""mutants: near misses of a gold query (a literal, a comparison, LIMIT, DISTINCT, an aggregate or an ORDER BY
direction changed), the wrong answers a test suite's databases must tell apart from the gold."""

import random
from collections.abc import Callable, Iterator

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

Domain = Callable[[str], list]
"""Other values of a column, by column name (to put a plausible wrong value in a filter)."""

_FLIPS: dict[type, type] = {
    exp.GT: exp.GTE,
    exp.GTE: exp.GT,
    exp.LT: exp.LTE,
    exp.LTE: exp.LT,
    exp.EQ: exp.NEQ,
    exp.NEQ: exp.EQ,
}
_AGGREGATES: dict[type, type] = {exp.Sum: exp.Avg, exp.Avg: exp.Sum, exp.Min: exp.Max, exp.Max: exp.Min}


def _number_edits(node: exp.Literal) -> list[exp.Expression]:
    text = node.this
    try:
        value = int(text)
        return [exp.Literal.number(value + 1), exp.Literal.number(value - 1)]
    except ValueError:
        try:
            number = float(text)
        except ValueError:
            return []
        return [exp.Literal.number(round(number * 1.1 + 0.01, 6))]


def _string_edits(node: exp.Literal, domain: Domain | None) -> list[exp.Expression]:
    parent = node.parent
    column = None
    if isinstance(parent, exp.Binary | exp.In):
        column = next((c for c in parent.find_all(exp.Column) if c is not node), None)
    others = [v for v in (domain(column.name) if domain and column is not None else []) if v != node.this]
    edits: list[exp.Expression] = [exp.Literal.string(str(v)) for v in others[:2]]
    return edits or [exp.Literal.string(node.this + "_")]


def _edits(node: exp.Expression, domain: Domain | None) -> Iterator[exp.Expression | None]:
    """Replacements of one node (None: the change is made in place on the node's copy)."""
    if isinstance(node, exp.Literal):
        yield from (_string_edits(node, domain) if node.is_string else _number_edits(node))
    elif type(node) in _FLIPS:
        yield _FLIPS[type(node)](this=node.this.copy(), expression=node.expression.copy())
    elif type(node) in _AGGREGATES:
        yield _AGGREGATES[type(node)](this=node.this.copy())
    elif isinstance(node, exp.Count) and not isinstance(node.this, exp.Distinct | exp.Star):
        yield exp.Count(this=exp.Distinct(expressions=[node.this.copy()]))


def _toggles(tree: exp.Expression) -> Iterator[exp.Expression]:
    """Copies of the tree with LIMIT moved, DISTINCT switched or an ORDER BY direction turned."""
    if isinstance(tree, exp.Select):
        flipped = tree.copy()
        flipped.set("distinct", None if tree.args.get("distinct") else exp.Distinct())
        yield flipped
    for index, node in enumerate(tree.walk()):
        if isinstance(node, exp.Limit) and isinstance(node.expression, exp.Literal) and node.expression.is_int:
            copy = tree.copy()
            target = list(copy.walk())[index]
            target.set("expression", exp.Literal.number(int(node.expression.this) + 1))
            yield copy
        if isinstance(node, exp.Ordered):
            copy = tree.copy()
            target = list(copy.walk())[index]
            target.set("desc", not node.args.get("desc"))
            yield copy


def mutants(
    sql: str, dialect: str = "sqlite", *, domain: Domain | None = None, limit: int = 12, seed: int = 0
) -> list[str]:
    """Up to `limit` distinct near misses of `sql` (chosen by `seed`), each one change away; none when it does not
    parse."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, RecursionError):
        return []
    if tree is None:
        return []
    made: list[exp.Expression] = list(_toggles(tree))
    for index, node in enumerate(list(tree.walk())):
        for replacement in _edits(node, domain):
            copy = tree.copy()
            target = list(copy.walk())[index]
            if replacement is not None:
                target.replace(replacement)
            made.append(copy)
    original = tree.sql(dialect=dialect)
    texts = []
    for variant in made:
        try:
            texts.append(variant.sql(dialect=dialect))
        except (SqlglotError, RecursionError, ValueError):
            continue
    unique = [t for t in dict.fromkeys(texts) if t != original]
    random.Random(seed).shuffle(unique)
    return unique[:limit]


def numbers_in(sql: str, dialect: str = "sqlite") -> list[float]:
    """The numeric literals of `sql` (none when it does not parse)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, RecursionError):
        return []
    found = []
    for literal in tree.find_all(exp.Literal) if tree is not None else []:
        if not literal.is_string:
            try:
                found.append(float(literal.this))
            except ValueError:
                continue
    return found
