"""Run-time clock checks for values the tree cannot show: a column or a computed string ('n' || 'ow') that a date or
time conversion would read as the current moment.

SQLite reads only 'now' (any case) as a time function's time value, so such a value is swapped for the anchor as it
is read. PostgreSQL reads 'now', 'today', 'tomorrow' and 'yesterday' in any date/time input; a cast of a value that
holds one fails with RUNTIME_REFUSAL in the engine's message (Database turns it into SqlRejected). DuckDB reads none.
"""

import re
from datetime import datetime

from sqlglot import exp

from biarena.db.clock_strings import cast_target, static_kind, type_holds_time
from biarena.db.errors import SqlRejected

RUNTIME_REFUSAL = "clock word refused"
"""What a refused value becomes before the failing cast: the engine's error message quotes it."""

# A clock word between non-letters, and the whole value around one (PostgreSQL's regular expressions, read without
# case; '.' also matches a newline).
_CLOCK_WORD = r"(^|[^a-z])(now|today|tomorrow|yesterday)([^a-z]|$)"
_CLOCK_VALUE = "^.*" + _CLOCK_WORD + ".*$"
_REPLACEMENT = RUNTIME_REFUSAL + r" (\2)"
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
_REFUSED = re.compile(re.escape(RUNTIME_REFUSAL) + r" \((.*)\)")

SQLITE_TIME_VALUE_POSITIONS = {
    "date": (0,),
    "datetime": (0,),
    "time": (0,),
    "julianday": (0,),
    "unixepoch": (0,),
    "strftime": (1,),
    "timediff": (0, 1),
}
"""Where each of SQLite's time functions takes its time value (strftime's first argument is the format)."""
SQLITE_GUARD_NODES: tuple[type[exp.Expression], ...] = (exp.Anonymous, exp.Date, exp.TimeToStr)
"""The node classes SQLite's time functions parse to."""


def sqlite_time_values(node: exp.Expression) -> list[exp.Expression]:
    """The time values a call of one of SQLite's date and time functions reads (none for any other node)."""
    if isinstance(node, exp.Anonymous):
        positions = SQLITE_TIME_VALUE_POSITIONS.get(node.name.lower(), ())
        return [node.expressions[i] for i in positions if i < len(node.expressions)]
    if isinstance(node, exp.Date):
        return [node.this] if node.this is not None else []
    if isinstance(node, exp.TimeToStr) and isinstance(node.this, exp.TsOrDsToTimestamp):
        return [node.this.this] if node.this.this is not None else []
    return []


def _plain(value: exp.Expression) -> bool:
    return isinstance(value, exp.Literal | exp.Null)


SQLITE_DATE_RESULTS = frozenset({"date", "datetime", "time", "julianday", "unixepoch", "timediff"})
"""SQLite's time functions whose result is a date, a time or a number, never 'now' (strftime's may be anything)."""


def sqlite_needs_guard(value: exp.Expression) -> bool:
    """True when SQLite's time value `value` may hold 'now' only at run time (a column, a computed string, a blob)."""
    if isinstance(value, exp.Date) or (isinstance(value, exp.Anonymous) and value.name.lower() in SQLITE_DATE_RESULTS):
        return False
    return not _plain(value) and not _sqlite_guarded(value)


def _sqlite_guarded(value: exp.Expression) -> bool:
    """True for exactly what guard_sqlite_time_value writes (a statement the sandbox rewrote, checked again)."""
    if not isinstance(value, exp.Case) or len(value.args.get("ifs") or []) != 1 or value.args.get("default") is None:
        return False
    stamp = value.args["ifs"][0].args.get("true")
    if not (isinstance(stamp, exp.Literal) and stamp.is_string and _STAMP.fullmatch(stamp.this)):
        return False
    return value == guard_sqlite_time_value(value.args["default"], datetime.fromisoformat(stamp.this))


def guard_sqlite_time_value(value: exp.Expression, now: datetime) -> exp.Expression:
    """`value` read as the anchor when it holds 'now' in any case, as text or as a blob (SQLite reads both)."""
    stamp = exp.Literal.string(now.strftime("%Y-%m-%d %H:%M:%S"))
    # LIKE ignores ASCII case and stops at a NUL character, as SQLite's own test does; a blob never matches LIKE
    # until it is cast to text. The first character's test spares that cast for nearly every value.
    starts_with_n = exp.In(
        this=exp.Unicode(this=value.copy()),
        expressions=[exp.Literal.number(ord("N")), exp.Literal.number(ord("n"))],
    )
    holds_now = exp.and_(
        starts_with_n, exp.Like(this=exp.cast(value.copy(), "TEXT"), expression=exp.Literal.string("now"))
    )
    return exp.Case(ifs=[exp.If(this=holds_now, true=stamp)], default=value.copy())


def postgres_cast_to_guard(node: exp.Expression) -> tuple[exp.Expression, exp.DataType] | None:
    """(operand, target) when `node` converts a value the tree cannot see into a type that may hold a date or time."""
    target = cast_target(node, "postgres")
    if target is None:
        return None
    operand, to = target
    if _plain(operand) or static_kind(operand) in ("time", "other") or _postgres_guarded(operand):
        return None
    if _refusal_message(operand) and to.this == exp.DataType.Type.DATE:
        return None  # the check's own failing cast: text that begins with RUNTIME_REFUSAL is never a date
    return target if type_holds_time(to, "postgres") is not False else None


def _refusal_message(operand: exp.Expression) -> bool:
    while isinstance(operand, exp.DPipe):
        operand = operand.this
    return operand == exp.Literal.string(RUNTIME_REFUSAL + " (")


def _postgres_guarded(operand: exp.Expression) -> bool:
    """True for exactly what guard_postgres_cast writes (a statement the sandbox rewrote, checked again)."""
    if isinstance(operand, exp.RegexpReplace) and isinstance(operand.this, exp.Cast):
        return operand == _replaced_when_clock(operand.this.this)
    if isinstance(operand, exp.Case) and len(operand.args.get("ifs") or []) == 1:
        column = operand.args["ifs"][0].args.get("true")
        return isinstance(column, exp.Column) and operand == _column_when_no_clock(column)
    return False


def _as_text(value: exp.Expression) -> exp.Expression:
    return exp.cast(value.copy(), exp.DataType.build("text"))


def _column_when_no_clock(column: exp.Column) -> exp.Expression:
    """The column's value, checked first as text: without a letter or a clock word it passes as it is (so the cast
    that follows keeps its own type's meaning); with one, the cast of a message to a date fails."""
    no_letter = exp.Not(this=exp.RegexpLike(this=_as_text(column), expression=exp.Literal.string("[A-Za-z]")))
    no_word = exp.Not(this=exp.RegexpILike(this=_as_text(column), expression=exp.Literal.string(_CLOCK_WORD)))
    # safe: as PostgreSQL's parser marks `||` (NULL makes NULL), so a rewritten statement reads back the same
    message = exp.DPipe(
        this=exp.DPipe(this=exp.Literal.string(RUNTIME_REFUSAL + " ("), expression=_as_text(column), safe=True),
        expression=exp.Literal.string(")"),
        safe=True,
    )
    fails = exp.Is(this=exp.cast(message, exp.DataType.build("date")), expression=exp.Null())
    passes = exp.or_(no_letter, no_word, fails)
    return exp.Case(ifs=[exp.If(this=passes, true=column.copy())])


def _replaced_when_clock(value: exp.Expression) -> exp.Expression:
    """The value as text, replaced by a message that no date or time cast reads when a clock word stands in it."""
    return exp.RegexpReplace(
        this=_as_text(value),
        expression=exp.Literal.string(_CLOCK_VALUE),
        replacement=exp.Literal.string(_REPLACEMENT),
        modifiers=exp.Literal.string("i"),
        single_replace=True,
    )


def guard_postgres_cast(operand: exp.Expression, to: exp.DataType) -> exp.Expression:
    """A cast of `operand` to `to` that fails, quoting RUNTIME_REFUSAL, when the value names the current moment.

    A column is checked beside its value, which keeps its type (a timestamp cast to a date stays a native cast); any
    other value is checked as text, once, so a volatile expression cannot show one value to the check and another to
    the cast.
    """
    if isinstance(operand, exp.Column):
        return exp.Cast(this=_column_when_no_clock(operand), to=to.copy())
    return exp.Cast(this=_replaced_when_clock(operand), to=to.copy())


def runtime_refusal(message: str) -> SqlRejected | None:
    """The sandbox's reason when an engine error comes from a refused clock value, else None."""
    found = _REFUSED.search(message.splitlines()[0] if message else "")
    if found is None:
        return None
    value = found.group(1) if len(found.group(1)) <= 60 else found.group(1)[:57] + "..."
    return SqlRejected(
        f"a value converted to a date or time names the current moment ('{value}'), which reads the real clock: "
        "write the date, or CURRENT_DATE (fixed to the question's moment)"
    )
