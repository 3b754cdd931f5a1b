"""Clock anchoring: rewrite `now`, `CURRENT_DATE` and friends in the AST to a fixed moment."""

from datetime import datetime

from sqlglot import exp

_NOW_FUNCTIONS = frozenset(
    {
        "now",
        "getdate",
        "sysdate",
        "localtimestamp",
        "current_timestamp",
        "systimestamp",
        "sysdatetime",
        "transaction_timestamp",
        "statement_timestamp",
        "clock_timestamp",
    }
)
_TODAY_FUNCTIONS = frozenset({"curdate", "today", "current_date"})
# SQLite date functions that mean "now" when called without a time value.
_SQLITE_NOW_WHEN_EMPTY = frozenset({"date", "datetime", "time", "julianday", "unixepoch"})


def _empty_time_call(node: exp.Expression) -> bool:
    return (
        isinstance(node, exp.Func)
        and not isinstance(node, exp.Anonymous)
        and node.sql_name().lower() in _SQLITE_NOW_WHEN_EMPTY
        and not any(node.args.values())
    )


def _literal(now: datetime, kind: str, dialect: str) -> exp.Expression:
    text = {
        "timestamp": now.strftime("%Y-%m-%d %H:%M:%S"),
        "date": now.strftime("%Y-%m-%d"),
        "time": now.strftime("%H:%M:%S"),
    }[kind]
    if dialect == "sqlite":
        return exp.Literal.string(text)
    return exp.cast(exp.Literal.string(text), kind.upper())


def anchor_clock(tree: exp.Expression, now: datetime, dialect: str) -> tuple[exp.Expression, bool]:
    """Return `tree` with every reference to the current time replaced by `now`, and whether any was."""
    changed = False

    def replace(node: exp.Expression) -> exp.Expression:
        nonlocal changed
        new: exp.Expression | None = None
        if isinstance(node, exp.CurrentDate):
            new = _literal(now, "date", dialect)
        elif isinstance(node, exp.CurrentTime):
            new = _literal(now, "time", dialect)
        elif isinstance(node, exp.CurrentTimestamp | exp.CurrentDatetime) or (
            hasattr(exp, "Localtimestamp") and isinstance(node, exp.Localtimestamp)
        ):
            new = _literal(now, "timestamp", dialect)
        elif dialect == "sqlite" and _empty_time_call(node):
            new = exp.Anonymous(this=node.sql_name().upper(), expressions=[_literal(now, "timestamp", dialect)])
        elif isinstance(node, exp.Anonymous):
            name = str(node.this).lower()
            if name in _NOW_FUNCTIONS and not node.expressions:
                new = _literal(now, "timestamp", dialect)
            elif name in _TODAY_FUNCTIONS and not node.expressions:
                new = _literal(now, "date", dialect)
            elif dialect == "sqlite" and name in _SQLITE_NOW_WHEN_EMPTY and not node.expressions:
                new = exp.Anonymous(this=name.upper(), expressions=[_literal(now, "timestamp", dialect)])
        elif (
            isinstance(node, exp.Literal)
            and node.is_string
            and node.this.strip().lower() == "now"
            and isinstance(node.parent, exp.Func)
        ):
            new = exp.Literal.string(now.strftime("%Y-%m-%d %H:%M:%S"))
        if new is not None:
            changed = True
            return new
        return node

    result = tree.copy().transform(replace)
    return result, changed


_SQLITE_TIME_FUNCTIONS = frozenset({"date", "datetime", "time", "julianday", "unixepoch", "strftime", "timediff"})


def fold_sqlite_time_calls(tree: exp.Expression) -> exp.Expression:
    """Evaluate SQLite date/time calls whose arguments are all literals, so other engines get plain values.

    SQLite's modifiers (`date(x, '-7 day', 'weekday 1')`) have no equivalent that sqlglot can transpile;
    once the clock is anchored such calls are constants, so SQLite itself computes them.
    """
    import sqlite3

    conn = sqlite3.connect(":memory:")

    def fold(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Func) or isinstance(node, exp.AggFunc):
            return node
        generated = node.sql(dialect="sqlite")
        name = generated.split("(", 1)[0].strip().lower()
        if name not in _SQLITE_TIME_FUNCTIONS:
            return node
        if any(isinstance(n, exp.Column | exp.Star | exp.Subquery | exp.Select) for n in node.walk()):
            return node
        try:
            value = conn.execute(f"SELECT {generated}").fetchone()[0]
        except sqlite3.Error:
            return node
        if value is None:
            return exp.null()
        return exp.Literal.string(value) if isinstance(value, str) else exp.Literal.number(value)

    try:
        return tree.copy().transform(fold)
    finally:
        conn.close()
