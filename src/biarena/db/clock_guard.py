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

# The whole value, when a clock word stands in it (PostgreSQL's regular expressions: '.' also matches a newline).
_CLOCK_VALUE = r"^.*(^|[^a-z])(now|today|tomorrow|yesterday)([^a-z]|$).*$"
_REPLACEMENT = RUNTIME_REFUSAL + r" ('\2')"
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
_REFUSED = re.compile(re.escape(RUNTIME_REFUSAL) + r" \('([^']*)'\)")

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
    """True for what guard_sqlite_time_value wrote (a statement the sandbox rewrote, run again): the value tested is
    the value given, and what replaces 'now' is a timestamp."""
    if not isinstance(value, exp.Case) or len(value.args.get("ifs") or []) != 1 or value.this is not None:
        return False
    branch = value.args["ifs"][0]
    test, stamp = branch.this, branch.args.get("true")
    if not (isinstance(test, exp.And) and isinstance(test.expression, exp.Like)):
        return False
    like = test.expression
    tested = like.this.this if isinstance(like.this, exp.Cast) else None
    return (
        like.expression == exp.Literal.string("now")
        and tested is not None
        and tested == value.args.get("default")
        and isinstance(stamp, exp.Literal)
        and stamp.is_string
        and _STAMP.fullmatch(stamp.this) is not None
    )


def guard_sqlite_time_value(value: exp.Expression, now: datetime) -> exp.Expression:
    """`value` read as the anchor when it holds 'now' in any case, as text or as a blob (SQLite reads both)."""
    stamp = exp.Literal.string(now.strftime("%Y-%m-%d %H:%M:%S"))
    # LIKE ignores ASCII case and stops at a NUL character, as SQLite's own test does; a blob never matches LIKE
    # until it is cast to text. The first character's test spares that cast for nearly every value.
    starts_with_n = exp.In(
        this=exp.Anonymous(this="unicode", expressions=[value.copy()]),
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
    return target if type_holds_time(to, "postgres") is not False else None


def _postgres_guarded(operand: exp.Expression) -> bool:
    """True for what guard_postgres_cast wrote (a statement the sandbox rewrote, run again)."""
    return (
        isinstance(operand, exp.RegexpReplace)
        and operand.args.get("expression") == exp.Literal.string(_CLOCK_VALUE)
        and operand.args.get("replacement") == exp.Literal.string(_REPLACEMENT)
        and operand.args.get("modifiers") == exp.Literal.string("i")
    )


def guard_postgres_cast(operand: exp.Expression, to: exp.DataType) -> exp.Expression:
    """A cast of `operand` to `to` that fails, quoting RUNTIME_REFUSAL, when the value names the current moment."""
    checked = exp.RegexpReplace(
        this=exp.cast(operand.copy(), exp.DataType.build("text")),
        expression=exp.Literal.string(_CLOCK_VALUE),
        replacement=exp.Literal.string(_REPLACEMENT),
        modifiers=exp.Literal.string("i"),
        single_replace=True,
    )
    return exp.Cast(this=checked, to=to.copy())


def runtime_refusal(message: str) -> SqlRejected | None:
    """The sandbox's reason when an engine error comes from a refused clock value, else None."""
    found = _REFUSED.search(message)
    if found is None:
        return None
    return SqlRejected(
        f"a value converted to a date or time names the current moment ('{found.group(1)}'), which reads the real "
        "clock: write the date, or CURRENT_DATE (fixed to the question's moment)"
    )
