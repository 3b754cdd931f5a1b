"""Question SQL as sqlglot expressions: small builders over typed column refs, rendered per engine.

Dates differ most between engines: SQLite keeps them as ISO text and reads them with `date()` and `strftime()`,
DuckDB and PostgreSQL have DATE and TIMESTAMP types with `date_trunc` and `EXTRACT` (and a text column there must be
cast first). Every builder here takes the column's storage (`ColumnRef.storage`) and the target dialect and returns
an expression that means the same on each. Moments a question is relative to (today, the last 7 days, this week)
are computed in Python from the anchor and written as literals, so gold SQL never reads the engine's clock.
"""

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import cache
from typing import Literal

from sqlglot import exp
from sqlglot.tokens import Tokenizer

from biarena.db.dialect import dialect_of, dialects

Storage = Literal["date", "timestamp", "text", "number", "boolean", "other"]
"""How an engine holds a column: native DATE / TIMESTAMP, text (ISO dates on SQLite), a number, or else."""
TimeUnit = Literal["hour", "day", "week", "month", "quarter", "year"]
DatePart = Literal["year", "quarter", "month", "day", "hour"]

_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
_KEYWORDS = frozenset(word.lower() for word in Tokenizer.KEYWORDS if word.replace("_", "").isalpha())
_STRFTIME = {"year": "%Y", "month": "%m", "day": "%d", "hour": "%H"}


@dataclass(frozen=True)
class ColumnRef:
    """A column the builders read: its name, the table that qualifies it (if any), and how the engine stores it."""

    name: str
    table: str | None = None
    storage: Storage = "other"

    def qualified(self, table: str | None) -> "ColumnRef":
        """The same column qualified by `table` (None: unqualified)."""
        return ColumnRef(self.name, table, self.storage)


def identifier(name: str) -> exp.Identifier:
    """An identifier, quoted only when it must be (capitals, spaces, keywords)."""
    plain = bool(name) and set(name) <= _PLAIN and not name[0].isdigit() and name not in _KEYWORDS
    return exp.Identifier(this=name, quoted=not plain)


def table(name: str, alias: str | None = None) -> exp.Table:
    """A table reference, optionally aliased."""
    node = exp.Table(this=identifier(name))
    return exp.alias_(node, alias, table=True) if alias else node


def column(ref: ColumnRef) -> exp.Column:
    """The column itself."""
    return exp.Column(this=identifier(ref.name), table=identifier(ref.table) if ref.table else None)


def literal(value: object, dialect: str) -> exp.Expression:
    """A Python value as an SQL literal (dates as date literals of the dialect)."""
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Literal.number(int(value)) if _text_times(dialect) else exp.Boolean(this=value)
    if isinstance(value, int | float | Decimal):
        return exp.Literal.number(value)
    if isinstance(value, datetime):
        return timestamp_literal(value, dialect)
    if isinstance(value, date):
        return date_literal(value, dialect)
    return exp.Literal.string(str(value))


def date_literal(day: date, dialect: str) -> exp.Expression:
    """A date: ISO text on SQLite (as its date() returns), a DATE elsewhere."""
    text = exp.Literal.string(day.isoformat())
    return text if _text_times(dialect) else exp.cast(text, exp.DataType.Type.DATE)


def timestamp_literal(moment: datetime, dialect: str) -> exp.Expression:
    """A moment: `YYYY-MM-DD HH:MM:SS` text on SQLite (as its datetime() returns), a TIMESTAMP elsewhere."""
    text = exp.Literal.string(moment.replace(microsecond=0).isoformat(sep=" "))
    return text if _text_times(dialect) else exp.cast(text, exp.DataType.Type.TIMESTAMP)


def _text_times(dialect: str) -> bool:
    """True when the dialect keeps times as ISO text and moves them with date(), datetime() and strftime()."""
    return dialect_of(dialect).text_times


def _call(name: str, *args: exp.Expression) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _text(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def _integer(node: exp.Expression) -> exp.Expression:
    return exp.cast(node, exp.DataType.Type.INT)


def moment(ref: ColumnRef, dialect: str) -> exp.Expression:
    """The column as a point in time: `datetime(col)` on SQLite, a TIMESTAMP (or DATE) elsewhere, text cast.

    On SQLite datetime() writes every ISO spelling (`2023-06-15 10:00`, `2023-06-15T10:00:00`, a bare date) as
    `YYYY-MM-DD HH:MM:SS`, so text comparisons with a moment's literal are exact.
    """
    node = column(ref)
    if _text_times(dialect):
        return _call("datetime", node)
    if ref.storage not in ("date", "timestamp"):
        return exp.cast(node, exp.DataType.Type.TIMESTAMP)
    return node


def day(ref: ColumnRef, dialect: str) -> exp.Expression:
    """The calendar day of a time column: `date(col)` on SQLite, a DATE elsewhere."""
    if _text_times(dialect):
        return _call("date", column(ref))
    if ref.storage == "date":
        return column(ref)
    return exp.cast(moment(ref, dialect), exp.DataType.Type.DATE)


def truncate(ref: ColumnRef, unit: TimeUnit, dialect: str) -> exp.Expression:
    """The start of the hour, day, week (Monday), month, quarter or year holding each value (a date; hour: a moment)."""
    if _text_times(dialect):
        col = column(ref)
        if unit == "hour":
            return _call("strftime", _text("%Y-%m-%d %H:00:00"), col)
        if unit == "day":
            return _call("date", col)
        if unit == "week":
            # 'weekday 0' moves to the Sunday ending the week (the day itself on a Sunday); six days back is Monday.
            return _call("date", col, _text("weekday 0"), _text("-6 days"))
        if unit == "month":
            return _call("date", col, _text("start of month"))
        if unit == "year":
            return _call("date", col, _text("start of year"))
        month = exp.Sub(this=date_part(ref, "month", dialect), expression=exp.Literal.number(1))
        back = exp.Paren(this=exp.Mod(this=exp.Paren(this=month), expression=exp.Literal.number(3)))
        # SQLite's || binds tighter than %, so the months to go back are parenthesised
        months = exp.DPipe(this=exp.DPipe(this=_text("-"), expression=back), expression=_text(" months"))
        return _call("date", col, _text("start of month"), months)
    if unit == "day":
        return day(ref, dialect)
    truncated = _call("DATE_TRUNC", _text(unit), moment(ref, dialect))
    return truncated if unit == "hour" else exp.cast(truncated, exp.DataType.Type.DATE)


def date_part(ref: ColumnRef, part: DatePart, dialect: str) -> exp.Expression:
    """The year, quarter (1-4), month (1-12), day of month or hour of each value, as an integer."""
    if _text_times(dialect):
        if part == "quarter":
            months = exp.Add(this=date_part(ref, "month", dialect), expression=exp.Literal.number(2))
            # typed: SQLite's integer division, as the integers are
            return exp.Div(this=exp.Paren(this=months), expression=exp.Literal.number(3), typed=True)
        return _integer(_call("strftime", _text(_STRFTIME[part]), column(ref)))
    return _integer(exp.Extract(this=exp.var(part.upper()), expression=moment(ref, dialect)))


def day_of_week(ref: ColumnRef, dialect: str) -> exp.Expression:
    """The day of the week as an integer, 0 for Sunday to 6 for Saturday (SQLite's `%w`, PostgreSQL's DOW)."""
    if _text_times(dialect):
        return _integer(_call("strftime", _text("%w"), column(ref)))
    return _integer(exp.Extract(this=exp.var("DOW"), expression=moment(ref, dialect)))


def month_label(ref: ColumnRef, dialect: str) -> exp.Expression:
    """`YYYY-MM` text of each value's month: the same text on every engine."""
    return _label(ref, "%Y-%m", "YYYY-MM", dialect)


def year_label(ref: ColumnRef, dialect: str) -> exp.Expression:
    """`YYYY` text of each value's year: the same text on every engine."""
    return _label(ref, "%Y", "YYYY", dialect)


def _label(ref: ColumnRef, strftime: str, to_char: str, dialect: str) -> exp.Expression:
    if _text_times(dialect):
        return _call("strftime", _text(strftime), column(ref))
    if dialect_of(dialect).to_char:
        return _call("TO_CHAR", moment(ref, dialect), _text(to_char))
    return _call("STRFTIME", moment(ref, dialect), _text(strftime))


def shift(node: exp.Expression, days: int, dialect: str) -> exp.Expression:
    """A date moved by `days` days (negative: back).

    Only days: a month or a year back from 31 March or 29 February is a different day on SQLite (which rolls over)
    than on the others (which clamp), so such dates are computed in Python (`year_before`) and written as literals.
    """
    if _text_times(dialect):
        return _call("date", node, _text(f"{days:+d} days"))
    interval = exp.Interval(this=_text(str(abs(days))), unit=exp.var("DAY"))
    moved = exp.Add(this=node, expression=interval) if days >= 0 else exp.Sub(this=node, expression=interval)
    return exp.cast(moved, exp.DataType.Type.DATE)


def since(ref: ColumnRef, start: datetime, dialect: str) -> exp.Expression:
    """The column's moment is at or after `start`."""
    return exp.GTE(this=moment(ref, dialect), expression=timestamp_literal(start, dialect))


def before(ref: ColumnRef, end: datetime, dialect: str) -> exp.Expression:
    """The column's moment is before `end`."""
    return exp.LT(this=moment(ref, dialect), expression=timestamp_literal(end, dialect))


def within(ref: ColumnRef, start: datetime, end: datetime, dialect: str) -> exp.Expression:
    """The column's moment is in [start, end)."""
    return exp.and_(since(ref, start, dialect), before(ref, end, dialect))


def on_day(ref: ColumnRef, when: date, dialect: str) -> exp.Expression:
    """The column's day is `when`."""
    return exp.EQ(this=day(ref, dialect), expression=date_literal(when, dialect))


def days_between(ref: ColumnRef, first: date, last: date, dialect: str) -> exp.Expression:
    """The column's day is between `first` and `last`, both included."""
    return exp.Between(this=day(ref, dialect), low=date_literal(first, dialect), high=date_literal(last, dialect))


def last_days(ref: ColumnRef, days: int, anchor: datetime, dialect: str) -> exp.Expression:
    """The last `days` days before the anchor, as a moment (`in the last 7 days`)."""
    return since(ref, anchor - timedelta(days=days), dialect)


def calendar_days(ref: ColumnRef, days: int, anchor: datetime, dialect: str) -> exp.Expression:
    """The last `days` calendar days, the anchor's day included (`in the last 7 days`: today and the 6 before)."""
    return since(ref, days_start(anchor, days), dialect)


def days_start(anchor: datetime, days: int) -> datetime:
    """Midnight starting the last `days` calendar days that end on the anchor's day."""
    return datetime.combine(anchor.date() - timedelta(days=days - 1), datetime.min.time())


def week_start(when: date) -> date:
    """The Monday of the week holding `when`."""
    return when - timedelta(days=when.weekday())


def year_before(when: date) -> date:
    """The same day a year earlier (29 February becomes the 28th)."""
    try:
        return when.replace(year=when.year - 1)
    except ValueError:
        return when.replace(year=when.year - 1, day=28)


def parse_expression(text: str, dialect: str) -> exp.Expression:
    """An SQL expression written in a roles file (`UnitPrice * Quantity`), parsed in the database's dialect (a
    copy: every template that measures it may change its own)."""
    return _parsed_expression(text, dialect).copy()


@cache
def _parsed_expression(text: str, dialect: str) -> exp.Expression:
    import sqlglot

    statements = [node for node in sqlglot.parse(text, read=dialect) if node is not None]
    if len(statements) != 1 or isinstance(statements[0], exp.Query | exp.Command):
        raise ValueError("not one expression")
    return statements[0]


def aggregate(name: str, node: exp.Expression) -> exp.Expression:
    """SUM, AVG, MIN, MAX or COUNT of an expression."""
    kinds = {"sum": exp.Sum, "avg": exp.Avg, "min": exp.Min, "max": exp.Max, "count": exp.Count}
    return kinds[name.lower()](this=node)


def count_rows() -> exp.Expression:
    """COUNT(*)."""
    return exp.Count(this=exp.Star())


def when_then(condition: exp.Expression, then: exp.Expression, otherwise: exp.Expression | None = None) -> exp.Case:
    """CASE WHEN condition THEN then [ELSE otherwise] END."""
    case = exp.Case().when(condition, then)
    return case.else_(otherwise) if otherwise is not None else case


def count_where(condition: exp.Expression) -> exp.Expression:
    """How many rows meet a condition: SUM(CASE WHEN condition THEN 1 ELSE 0 END)."""
    return exp.Sum(this=when_then(condition, exp.Literal.number(1), exp.Literal.number(0)))


def percent(part: exp.Expression, whole: exp.Expression) -> exp.Expression:
    """100 * part / whole, in decimals on every engine (no integer division), NULL when whole is 0."""
    hundred = exp.Mul(this=exp.Literal.number("100.0"), expression=part)
    return exp.Div(this=hundred, expression=exp.Nullif(this=whole, expression=exp.Literal.number(0)))


def rounded(node: exp.Expression, digits: int, dialect: str) -> exp.Expression:
    """ROUND(node, digits); PostgreSQL rounds to digits only a NUMERIC, so the value is cast there."""
    value = exp.cast(node, exp.DataType.Type.DECIMAL) if dialect_of(dialect).rounds_numeric_only else node
    return exp.Round(this=value, decimals=exp.Literal.number(digits))


def as_text(node: exp.Expression) -> exp.Expression:
    """The value as text."""
    return exp.cast(node, exp.DataType.Type.TEXT)


def prefix(node: exp.Expression, length: int) -> exp.Expression:
    """The first `length` characters of a text value."""
    return exp.Substring(this=node, start=exp.Literal.number(1), length=exp.Literal.number(length))


def lowered(node: exp.Expression) -> exp.Expression:
    """The text in lower case."""
    return exp.Lower(this=node)


def joined(*parts: exp.Expression) -> exp.Expression:
    """Text values one after another (`||`)."""
    out = parts[0]
    for part in parts[1:]:
        out = exp.DPipe(this=out, expression=part)
    return out


def question_dialects() -> tuple[str, ...]:
    """The engines question SQL is written for (those whose dialect says so)."""
    return tuple(found.name for found in dialects() if found.writes_questions)


@cache
def _keywords() -> frozenset[str]:
    """Words some engine's SQL reads as a keyword (DuckDB reads `install`), in upper case."""
    from sqlglot.dialects import Dialect

    return frozenset(
        word for name in question_dialects() for word in Dialect.get_or_raise(name).tokenizer_class.KEYWORDS
    )


def _quote_keywords(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Identifier) and not node.quoted and node.name.upper() in _keywords():
        return exp.Identifier(this=node.name, quoted=True)
    return node


def render(node: exp.Expression, dialect: str) -> str:
    """The expression as SQL text of the dialect, a name that any engine reads as a keyword quoted (a table named
    `install` is a keyword to DuckDB, which reads this text when a benchmark written for SQLite runs there)."""
    return node.transform(_quote_keywords).sql(dialect=dialect)
