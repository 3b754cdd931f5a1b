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
        elif isinstance(node, exp.Anonymous):
            name = str(node.this).lower()
            if name in _NOW_FUNCTIONS and not node.expressions:
                new = _literal(now, "timestamp", dialect)
            elif name in _TODAY_FUNCTIONS and not node.expressions:
                new = _literal(now, "date", dialect)
            elif dialect == "sqlite" and name in _SQLITE_NOW_WHEN_EMPTY and not node.expressions:
                node.set("expressions", [_literal(now, "timestamp", dialect)])
                changed = True
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
