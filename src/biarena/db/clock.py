"""Clock anchoring: rewrite `now`, `CURRENT_DATE` and friends in the AST to a fixed moment."""

import re
from datetime import datetime

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType

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
# SQLite's date and time functions: each reads the clock when a time value is 'now'.
_SQLITE_TIME_FUNCTIONS = frozenset({"date", "datetime", "time", "julianday", "unixepoch", "strftime", "timediff"})


def _empty_time_call(node: exp.Expression) -> bool:
    return (
        isinstance(node, exp.Func)
        and not isinstance(node, exp.Anonymous)
        and node.sql_name().lower() in _SQLITE_NOW_WHEN_EMPTY
        and not any(node.args.values())
    )


# Any word that may read the clock, and SQLite's time functions called without a time value. Text without either
# cannot read the clock, so it needs no rewriting; a match (even in a string or a comment) only means "look".
_CLOCK_WORDS = re.compile(
    r"\b(?:"
    + "|".join(sorted(_NOW_FUNCTIONS | _TODAY_FUNCTIONS | {"current_time", "current_datetime", "localtime"}))
    + r")\b|\b(?:"
    + "|".join(sorted(_SQLITE_NOW_WHEN_EMPTY))
    + r")\s*\(\s*\)",
    re.IGNORECASE,
)


def may_read_clock(sql: str) -> bool:
    """False only when `sql` surely does not read the current time (no clock word, no empty time call)."""
    return _CLOCK_WORDS.search(sql) is not None


_CLOCK_NODES: tuple[type, ...] = tuple(
    getattr(exp, name)
    for name in ("CurrentDate", "CurrentTime", "CurrentTimestamp", "CurrentDatetime", "Localtimestamp")
    if hasattr(exp, name)
)


def _empty_call_classes() -> tuple[type, ...]:
    found = []
    for value in vars(exp).values():
        if isinstance(value, type) and issubclass(value, exp.Func) and not issubclass(value, exp.Anonymous):
            try:
                if value.sql_name().lower() in _SQLITE_NOW_WHEN_EMPTY:
                    found.append(value)
            except Exception:  # abstract classes have no SQL name
                continue
    return tuple(found)


# Node classes that can read the clock: the tree's own search (compiled) skips every other node.
_CANDIDATES: tuple[type, ...] = (*_CLOCK_NODES, exp.Anonymous, exp.Literal, exp.Column, *_empty_call_classes())


def _literal(now: datetime, kind: str, dialect: str) -> exp.Expression:
    text = {
        "timestamp": now.strftime("%Y-%m-%d %H:%M:%S"),
        "date": now.strftime("%Y-%m-%d"),
        "time": now.strftime("%H:%M:%S"),
    }[kind]
    if dialect == "sqlite":
        return exp.Literal.string(text)
    return exp.cast(exp.Literal.string(text), kind.upper())


def _anchored(node: exp.Expression, now: datetime, dialect: str) -> exp.Expression | None:
    """What replaces `node` when the clock reads `now`, or None when it does not read the clock."""
    if isinstance(node, exp.CurrentDate):
        return _literal(now, "date", dialect)
    if isinstance(node, exp.CurrentTime):
        return _literal(now, "time", dialect)
    if isinstance(node, _CLOCK_NODES):
        return _literal(now, "timestamp", dialect)
    if dialect == "sqlite" and _empty_time_call(node):
        return exp.Anonymous(this=node.sql_name().upper(), expressions=[_literal(now, "timestamp", dialect)])
    if isinstance(node, exp.Anonymous):
        name = str(node.name).lower()
        if name in _NOW_FUNCTIONS and not node.expressions:
            return _literal(now, "timestamp", dialect)
        if name in _TODAY_FUNCTIONS and not node.expressions:
            return _literal(now, "date", dialect)
        if dialect == "sqlite" and name in _SQLITE_NOW_WHEN_EMPTY and not node.expressions:
            return exp.Anonymous(this=name.upper(), expressions=[_literal(now, "timestamp", dialect)])
        return None
    if (
        isinstance(node, exp.Literal)
        and node.is_string
        and node.this.strip().lower() == "now"
        and isinstance(node.parent, exp.Func)
    ):
        return exp.Literal.string(now.strftime("%Y-%m-%d %H:%M:%S"))
    if dialect == "sqlite" and _quoted_now_argument(node):
        return exp.Literal.string(now.strftime("%Y-%m-%d %H:%M:%S"))
    return None


def _quoted_now_argument(node: exp.Expression) -> bool:
    """`"now"` written as a time function's argument: SQLite reads a double-quoted name that is no column as a
    string, so `date("now")` reads the clock."""
    if not (isinstance(node, exp.Column) and not node.table and node.this.quoted and node.name.lower() == "now"):
        return False
    parent = node.parent
    return isinstance(parent, exp.Func) and parent.sql(dialect="sqlite").split("(", 1)[0].strip().lower() in (
        _SQLITE_TIME_FUNCTIONS
    )


def anchor_clock(
    tree: exp.Expression, now: datetime, dialect: str, *, copy: bool = True
) -> tuple[exp.Expression, bool]:
    """Return `tree` with every reference to the current time replaced by `now`, and whether any was.

    A query that does not read the clock comes back as is; one that does is rewritten in a copy, or in
    place with `copy=False` (for a tree the caller owns).
    """
    if copy and not any(_anchored(node, now, dialect) is not None for node in tree.find_all(*_CANDIDATES)):
        return tree, False
    if copy:
        return anchor_clock(tree.copy(), now, dialect, copy=False)
    found = [(node, new) for node in tree.find_all(*_CANDIDATES) if (new := _anchored(node, now, dialect)) is not None]
    for node, new in found:
        if node is tree:
            tree = new
        else:
            node.replace(new)
    return tree, bool(found)


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
        return tree.transform(fold)
    finally:
        conn.close()


_KEYWORD_KINDS = {
    TokenType.CURRENT_TIMESTAMP: "timestamp",
    TokenType.CURRENT_DATE: "date",
    TokenType.CURRENT_TIME: "time",
}
_CLOCK_WORD_SET = frozenset(
    _NOW_FUNCTIONS | _TODAY_FUNCTIONS | {"current_time", "current_datetime", "localtime", "localtimestamp"}
)
_SQLITE = Dialect.get_or_raise("sqlite")


def anchor_sqlite_text(sql: str, now: datetime) -> str | None:
    """SQLite `sql` with its clock reads replaced by `now`, by its tokens alone (no parse), or None when unsure.

    Handles what SQLite itself reads the clock with: `CURRENT_TIMESTAMP`, `CURRENT_DATE`, `CURRENT_TIME`, a
    `'now'` (or `"now"`) argument of a date and time function, and such a function called with no arguments.
    Everything else is left exactly as written. Any other sign of the clock (a `now()` call, a `'now'` outside a
    time function's arguments, a clock word used as a name) returns None: the caller then parses and rewrites the
    statement (anchor_clock), as it does for every other dialect.
    """
    try:
        tokens = _SQLITE.tokenize(sql)
    except (SqlglotError, ValueError):
        return None
    stamp = {
        "timestamp": now.strftime("'%Y-%m-%d %H:%M:%S'"),
        "date": now.strftime("'%Y-%m-%d'"),
        "time": now.strftime("'%H:%M:%S'"),
    }
    edits: list[tuple[int, int, str]] = []  # (start, end exclusive, new text)
    calls: list[bool] = []  # per open parenthesis: whether it holds a time function's arguments
    for i, token in enumerate(tokens):
        kind = token.token_type
        word = token.text.lower()
        following = tokens[i + 1].token_type if i + 1 < len(tokens) else None
        if kind == TokenType.L_PAREN:
            before = tokens[i - 1] if i else None
            calls.append(before is not None and before.text.lower() in _SQLITE_TIME_FUNCTIONS)
            if calls[-1] and following == TokenType.R_PAREN and before.text.lower() in _SQLITE_NOW_WHEN_EMPTY:
                edits.append((token.end + 1, token.end + 1, stamp["timestamp"]))
        elif kind == TokenType.R_PAREN:
            if calls:
                calls.pop()
        elif kind in _KEYWORD_KINDS:
            if following == TokenType.L_PAREN:
                return None
            edits.append((token.start, token.end + 1, stamp[_KEYWORD_KINDS[kind]]))
        elif kind in (TokenType.STRING, TokenType.IDENTIFIER) and token.text.strip().lower() == "now":
            if not (calls and calls[-1]):
                return None
            edits.append((token.start, token.end + 1, stamp["timestamp"]))
        elif kind not in (TokenType.STRING, TokenType.IDENTIFIER) and word in _CLOCK_WORD_SET:
            return None
    for start, end, text in reversed(edits):
        sql = sql[:start] + text + sql[end:]
    return sql
