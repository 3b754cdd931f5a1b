"""Clock anchoring: rewrite every way a statement reads the current time (`now()`, `CURRENT_DATE`, 'today'::date,
one-argument `age(x)`, ...) to a fixed moment in the AST, and guard the values only the run can show."""

import re
from collections.abc import Callable
from datetime import datetime

from sqlglot import exp

from biarena.db.clock_guard import (
    SQLITE_GUARD_NODES,
    guard_postgres_cast,
    guard_sqlite_time_value,
    postgres_cast_to_guard,
    sqlite_needs_guard,
    sqlite_time_values,
)
from biarena.db.clock_names import (
    CLOCK_NODES,
    DATE_NODES,
    NOW_FUNCTIONS,
    SQLITE_NOW_WHEN_EMPTY,
    SQLITE_TIME_FUNCTIONS,
    TIME_NODES,
    TIME_OF_DAY_FUNCTIONS,
    TODAY_FUNCTIONS,
)
from biarena.db.clock_strings import CLOCK_WORD, anchored_string, cast_target, clock_string_action, refusal
from biarena.db.dialect import dialect_of
from biarena.db.errors import SqlRejected
from biarena.db.sql_text import Sql, compose

# Dialects with PostgreSQL's one-argument age(x) but no engine here: the time from x to today's midnight.
_AGE_DIALECTS = frozenset({"redshift", "materialize", "risingwave"})


def _empty_call_classes() -> tuple[type, ...]:
    found = []
    for value in vars(exp).values():
        if isinstance(value, type) and issubclass(value, exp.Func) and not issubclass(value, exp.Anonymous):
            try:
                if value.sql_name().lower() in SQLITE_NOW_WHEN_EMPTY:
                    found.append(value)
            except Exception:  # abstract classes have no SQL name
                continue
    return tuple(found)


_EMPTY_CALLS = _empty_call_classes()
# Node classes that can read the clock: the tree's own search (compiled) skips every other node.
_CANDIDATES: tuple[type, ...] = (*CLOCK_NODES, exp.Anonymous, exp.Literal, exp.Column, *_EMPTY_CALLS)
_POSTGRES_GUARD_NODES: tuple[type, ...] = (exp.Cast, exp.Date, exp.Time, exp.Timestamp, exp.Anonymous)

Edit = tuple[exp.Expression, Callable[[], exp.Expression]]
"""(the node to replace, what builds its replacement from the tree as it then is)."""


def _literal(now: datetime, kind: str, dialect: str) -> exp.Expression:
    text = {
        "timestamp": now.strftime("%Y-%m-%d %H:%M:%S"),
        "date": now.strftime("%Y-%m-%d"),
        "time": now.strftime("%H:%M:%S"),
    }[kind]
    if dialect_of(dialect).text_times:
        return exp.Literal.string(text)
    return exp.cast(exp.Literal.string(text), kind.upper())


def _stamp(now: datetime) -> exp.Literal:
    return exp.Literal.string(now.strftime("%Y-%m-%d %H:%M:%S"))


def _site(node: exp.Expression) -> exp.Expression:
    """What a call stands for in the tree: `pg_catalog.now()` as a whole, not its last part."""
    parent = node.parent
    return parent if isinstance(parent, exp.Dot) and parent.expression is node else node


def _is_sqlite_time_value(node: exp.Expression) -> bool:
    parent = node.parent
    if isinstance(parent, exp.TsOrDsToTimestamp):
        parent = parent.parent
    return parent is not None and any(value is node for value in sqlite_time_values(parent))


def _age_edit(node: exp.Anonymous, now: datetime, dialect: str) -> Edit | None:
    """age(x) is the time from x to today's midnight: age(anchor's midnight, x). DuckDB also reads `x.age()` so."""
    site = _site(node)
    arguments = node.expressions
    if site is not node and dialect_of(dialect).method_calls:
        if len(arguments) == 1:  # `s.age(x)`: age(x) when s is a schema, age(s, x) when it is a value
            raise SqlRejected("a qualified age() call may read the clock: write age(a, b) with both arguments")
        if arguments:
            return None
        return site, lambda: exp.Anonymous(this="AGE", expressions=[_midnight(now), site.this.copy()])
    if len(arguments) != 1:
        return None
    return site, lambda: exp.Anonymous(this="AGE", expressions=[_midnight(now), node.expressions[0].copy()])


def _midnight(now: datetime) -> exp.Expression:
    return exp.cast(exp.Literal.string(now.strftime("%Y-%m-%d")), "TIMESTAMP")


def _anchor_edit(node: exp.Expression, now: datetime, dialect: str) -> Edit | None:
    """How `node` is rewritten when the clock reads `now`; None when it does not read the clock, SqlRejected when it
    may and cannot be anchored."""
    if isinstance(node, CLOCK_NODES):
        kind = "date" if isinstance(node, DATE_NODES) else "time" if isinstance(node, TIME_NODES) else "timestamp"
        return _site(node), lambda: _literal(now, kind, dialect)
    if isinstance(node, _EMPTY_CALLS) and dialect_of(dialect).text_times and not any(node.args.values()):
        return node, lambda: exp.Anonymous(this=node.sql_name().upper(), expressions=[_stamp(now)])
    if isinstance(node, exp.Anonymous):
        return _call_edit(node, now, dialect)
    if isinstance(node, exp.Literal) and node.is_string:
        return _string_edit(node, now, dialect)
    if dialect_of(dialect).text_times and _quoted_now_argument(node):
        return node, lambda: _stamp(now)
    return None


def _call_edit(node: exp.Anonymous, now: datetime, dialect: str) -> Edit | None:
    name = str(node.name).lower()
    if not node.expressions:
        if name in NOW_FUNCTIONS:
            return _site(node), lambda: _literal(now, "timestamp", dialect)
        if name in TODAY_FUNCTIONS:
            return _site(node), lambda: _literal(now, "date", dialect)
        if name in TIME_OF_DAY_FUNCTIONS:
            return _site(node), lambda: _literal(now, "time", dialect)
    if name == "unix_timestamp" and not node.expressions:  # MySQL: the current time in seconds
        return _site(node), lambda: exp.Anonymous(this="UNIX_TIMESTAMP", expressions=[_stamp(now)])
    if dialect_of(dialect).text_times:
        if name in SQLITE_NOW_WHEN_EMPTY and not node.expressions:
            return node, lambda: exp.Anonymous(this=name.upper(), expressions=[_stamp(now)])
        if name == "strftime" and len(node.expressions) == 1:  # strftime(format) formats the current time
            return node, lambda: exp.Anonymous(this="STRFTIME", expressions=[node.expressions[0].copy(), _stamp(now)])
        return None
    if name == "age" and (dialect in _AGE_DIALECTS or dialect_of(dialect).age_from_today):
        return _age_edit(node, now, dialect)
    return None


def _string_edit(node: exp.Literal, now: datetime, dialect: str) -> Edit | None:
    text = node.this
    if dialect_of(dialect).text_times:
        # SQLite reads exactly 'now', in any case, and only as a time function's time value.
        if text.lower() == "now" and _is_sqlite_time_value(node):
            return node, lambda: _stamp(now)
        return None
    if dialect_of(dialect).clock_strings:
        if CLOCK_WORD.search(text) is None:
            return None
        action = clock_string_action(node, dialect)
        if action == "refuse":
            raise refusal(node, dialect)
        return (node, lambda: exp.Literal.string(anchored_string(text, now))) if action == "anchor" else None
    if text.strip().lower() == "now" and isinstance(node.parent, exp.Func):
        return node, lambda: _stamp(now)
    return None


def _quoted_now_argument(node: exp.Expression) -> bool:
    """`"now"` written as a time value: SQLite reads a double-quoted name that is no column as a string, so
    `date("now")` reads the clock."""
    return (
        isinstance(node, exp.Column)
        and not node.table
        and node.this.quoted
        and node.name.lower() == "now"
        and _is_sqlite_time_value(node)
    )


def _anchor_edits(tree: exp.Expression, now: datetime, dialect: str) -> list[Edit]:
    return [edit for node in tree.find_all(*_CANDIDATES) if (edit := _anchor_edit(node, now, dialect)) is not None]


def _guard_edits(tree: exp.Expression, now: datetime, dialect: str) -> list[Edit]:
    """Run-time checks of values only the run shows (see clock_guard): SQLite's time values, PostgreSQL's casts."""
    edits: list[Edit] = []
    if dialect_of(dialect).text_times:
        for node in tree.find_all(*SQLITE_GUARD_NODES):
            for value in sqlite_time_values(node):
                if sqlite_needs_guard(value):
                    edits.append((value, lambda value=value: guard_sqlite_time_value(value, now)))
    elif dialect_of(dialect).function_casts:
        for node in tree.find_all(*_POSTGRES_GUARD_NODES):
            if postgres_cast_to_guard(node) is not None:
                edits.append((_site(node), lambda node=node: guard_postgres_cast(*postgres_cast_to_guard(node))))
    return edits


def _depth(node: exp.Expression) -> int:
    depth = 0
    while node.parent is not None:
        node, depth = node.parent, depth + 1
    return depth


def _apply(tree: exp.Expression, edits: list[Edit]) -> exp.Expression:
    # Deepest first: an edit that copies a subtree (age(x), a guard) copies it already rewritten.
    for node, build in sorted(edits, key=lambda edit: -_depth(edit[0])):
        new = build()
        if node is tree:
            tree = new
        else:
            node.replace(new)
    return tree


def anchor_clock(
    tree: exp.Expression, now: datetime, dialect: str, *, copy: bool = True, guard: bool = True
) -> tuple[exp.Expression, bool]:
    """Return `tree` with every reference to the current time replaced by `now`, and whether anything changed.

    With `guard`, a value that only the run shows (a column, a computed string) is checked where the engine would
    read it as a date or time: SQLite reads a 'now' there as the anchor, PostgreSQL fails the statement. A string
    that may read the clock where its type cannot be seen raises SqlRejected. A query that does not read the clock
    comes back as is; one that does is rewritten in a copy, or in place with `copy=False` (for a tree the caller owns).
    """
    if copy:
        if not _anchor_edits(tree, now, dialect) and not (guard and _guard_edits(tree, now, dialect)):
            return tree, False
        tree = tree.copy()
    anchored = _anchor_edits(tree, now, dialect)
    tree = _apply(tree, anchored)
    guarded = _guard_edits(tree, now, dialect) if guard else []
    tree = _apply(tree, guarded)
    if dialect_of(dialect).function_casts and (anchored or guarded):
        _cast_functions_as_casts(tree)
    return tree, bool(anchored or guarded)


def _cast_functions_as_casts(tree: exp.Expression) -> None:
    """Write PostgreSQL's function-style casts as casts: the generator would write `"timestamp"(x)` as
    `TIMESTAMP(x)`, which PostgreSQL cannot parse."""
    for node in list(tree.find_all(exp.Time, exp.Timestamp)):
        target = cast_target(node, "postgres")
        if target is not None and node is not tree:
            node.replace(exp.Cast(this=target[0], to=target[1]))


_TIME_CALL = re.compile(r"\b(?:" + "|".join(sorted(SQLITE_TIME_FUNCTIONS)) + r")\s*\(", re.IGNORECASE)
"""A SQLite time call in generated SQL: every call the fold could change starts so in the whole tree's text."""


_WORD_CALLS: tuple[type[exp.Func], ...] = (
    exp.Abs,
    exp.Case,
    exp.Coalesce,
    exp.If,
    exp.Nullif,
    exp.Round,
    exp.RowNumber,
)
"""Calls whose SQLite text starts with a word of their own (ABS, CASE, COALESCE, IIF, NULLIF, ROUND, ROW_NUMBER)."""
_PLAIN_CAST_TYPES = exp.DataType.NUMERIC_TYPES | exp.DataType.TEXT_TYPES
"""Types a cast to which SQLite writes as CAST(... AS ...), not as a time function."""


def _may_write_time_call(node: exp.Func) -> bool:
    """False when SQLite's text for `node` surely starts with no time function's name (so folding skips it)."""
    kind = type(node)
    if kind in _WORD_CALLS or isinstance(node, exp.AggFunc):
        return False
    if kind is exp.Cast:
        to = node.args.get("to")
        plain = isinstance(to, exp.DataType) and to.this in _PLAIN_CAST_TYPES
        return node.args.get("format") is not None or not plain
    if kind is exp.Anonymous:
        return not isinstance(node.this, str) or node.this.strip().lower() in SQLITE_TIME_FUNCTIONS
    return True


def _foldable(node: exp.Func) -> bool:
    """True when SQLite may compute `node` once, ahead: no column, and each time value a plain literal (a computed
    one could be 'now', which SQLite would read from the real clock)."""
    if any(isinstance(inner, exp.Column | exp.Star | exp.Subquery | exp.Select) for inner in node.walk()):
        return False
    if isinstance(node, SQLITE_GUARD_NODES):
        return all(isinstance(value, exp.Literal | exp.Null) for value in sqlite_time_values(node))
    # A shape the guard does not know: literals only.
    plain = exp.Literal | exp.Null | exp.Neg | exp.Paren
    return all(isinstance(inner, plain) for inner in node.walk() if inner is not node)


def _column_moment(node: exp.Func) -> exp.Expression | None:
    """SQLite's one-argument `datetime(x)` over a computed value as a cast to TIMESTAMP (sqlglot leaves it an unknown
    `DATETIME()` call, which other engines do not have); None for any other call."""
    if isinstance(node, exp.Anonymous) and str(node.this).upper() == "DATETIME" and len(node.expressions) == 1:
        return exp.cast(node.expressions[0].copy(), exp.DataType.Type.TIMESTAMP)
    return None


def fold_sqlite_time_calls(tree: exp.Expression, *, copy: bool = True) -> exp.Expression:
    """Evaluate SQLite date/time calls whose arguments are all literals, so other engines get plain values.

    SQLite's modifiers (`date(x, '-7 day', 'weekday 1')`) have no equivalent that sqlglot can transpile;
    once the clock is anchored such calls are constants, so SQLite itself computes them. A `datetime(col)` of a
    column becomes a cast to TIMESTAMP. Returns a new tree, or with `copy=False` works on `tree` itself (which the
    caller then reads from the return value: a call at the root is replaced whole).
    """
    import sqlite3

    if not any(_may_write_time_call(node) for node in tree.find_all(exp.Func)) or (
        _TIME_CALL.search(tree.sql(dialect="sqlite")) is None
    ):
        # No call that SQLite writes as a time function (seen in the tree, else in its text): nothing to fold.
        return tree.copy() if copy else tree
    if copy:
        tree = tree.copy()
    conn = sqlite3.connect(":memory:")
    try:
        # Innermost first, so that a call whose arguments fold becomes foldable itself.
        for node in reversed(list(tree.find_all(exp.Func))):
            if not _may_write_time_call(node):
                continue
            generated = node.sql(dialect="sqlite")
            if generated.split("(", 1)[0].strip().lower() not in SQLITE_TIME_FUNCTIONS:
                continue
            if not _foldable(node):
                moment = _column_moment(node)
                if moment is not None:  # datetime(col): the moment its text names, as other engines read one
                    if node is tree:
                        tree = moment
                    else:
                        node.replace(moment)
                continue
            try:
                value = conn.execute(compose("SELECT {value}", value=Sql(generated))).fetchone()[0]
            except sqlite3.Error:
                continue
            if value is None:
                new: exp.Expression = exp.null()
            else:
                new = exp.Literal.string(value) if isinstance(value, str) else exp.Literal.number(value)
            if node is tree:
                tree = new
            else:
                node.replace(new)
        return tree
    finally:
        conn.close()
