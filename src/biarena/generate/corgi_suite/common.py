"""What the CORGI question writers share: drafts, wording of slices and periods, measures, rates and evidence."""

import calendar as months_calendar
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from pydantic import TypeAdapter
from sqlglot import exp

from biarena.db import Database
from biarena.generate import sql_builder as sb
from biarena.generate.corgi_suite.spec_roles import metric_columns, noun, reached, stamp_of
from biarena.generate.sql_builder import ColumnRef
from biarena.records import Question
from biarena.synth.calendar import days, density
from biarena.synth.spec import Planted, Rule, Spec

MONTHS = list(months_calendar.month_name)

HIDDEN = " Evidence (hidden parameters): "
"""Where a reference's finding ends and its hidden evidence begins (judges split references here)."""

_MONEY = (
    "revenue",
    "amount",
    "price",
    "subtotal",
    "spend",
    "value",
    "budget",
    "cost",
    "fee",
    "payout",
    "commission",
    "earning",
    "total",
    "paid",
)
"""Words of columns that hold money: summed, they are what a business earns or spends."""

_NOT_VALUE = ("pct", "percent", "rate", "rank", "position", "age", "rating", "stars", "score", "level", "_id", "year")
"""Words of numeric columns that never add up to a value (shares, ranks, ages, ratings, keys)."""


@dataclass
class SuiteDraft:
    """A question before it is numbered: its wording, reference, tables, form and evidence."""

    text: str
    reference: str
    tables: list[str]
    form: str
    evidence: dict[str, Any]
    labels: list[str] = field(default_factory=list)


_PLAIN = TypeAdapter(dict[str, Any])
"""Evidence as JSON values (dates as ISO text), as it is saved."""


@dataclass(frozen=True)
class WeightedLink:
    """A child table's foreign key whose parents generate children at rates set by one of the parent's columns."""

    table: str
    column: str
    parent: str
    key: str
    by: str
    weights: dict[str, float]

    @property
    def rates(self) -> str:
        """The relative rates as a reference states them (`vip 3, regular 1`)."""
        return ", ".join(f"{k} {v:g}" for k, v in self.weights.items())

    @property
    def top(self) -> str:
        """The most active kind of parent."""
        return max(self.weights, key=self.weights.get)  # type: ignore[arg-type]

    @property
    def low(self) -> str:
        """The least active kind of parent."""
        return min(self.weights, key=self.weights.get)  # type: ignore[arg-type]


def weighted_links(spec: Spec) -> list[WeightedLink]:
    """Every weighted foreign key of the spec, in table and column order."""
    links = []
    for table, spec_table in spec.tables.items():
        for name, column in spec_table.columns.items():
            if column.kind == "foreign" and column.weight and column.ref:
                parent, key = column.ref.split(".")
                links.append(WeightedLink(table, name, parent, key, column.weight["column"], column.weight["values"]))
    return links


def q(name: str) -> str:
    """A quoted SQL identifier."""
    return f'"{name}"'


DIALECT = "sqlite"
"""The suite's databases are SQLite files (timestamps as ISO text): its SQL is written for SQLite."""


def sql(node: exp.Expression) -> str:
    """A built query as the suite's SQL text."""
    return sb.render(node, DIALECT)


def col(name: str, table: str | None = None) -> exp.Column:
    """A column, qualified by a table or alias when given."""
    return sb.column(ColumnRef(name, table))


def stamp_ref(stamp: str, table: str | None = None) -> ColumnRef:
    """A timestamp column of the suite (ISO text)."""
    return ColumnRef(stamp, table, "text")


def lit(item: Any) -> exp.Expression:
    """A SQL literal of a value."""
    return sb.literal(item, DIALECT)


def condition(text: str) -> exp.Expression:
    """A spec's SQL condition (`status IN ('paid', 'late')`) as an expression."""
    return exp.condition(text, dialect=DIALECT)


def count_star(name: str | None = "n") -> exp.Expression:
    """COUNT(*), named `name` (unnamed: None)."""
    return exp.alias_(sb.count_rows(), name) if name else sb.count_rows()


def select_from(table: str, *columns: exp.Expression, alias: str | None = None) -> exp.Select:
    """SELECT columns FROM table [alias]."""
    return exp.select(*columns).from_(sb.table(table, alias))


def join_on(query: exp.Select, table: str, alias: str, left: exp.Expression, right: exp.Expression) -> exp.Select:
    """The query joined to `table AS alias` on left = right."""
    return query.join(sb.table(table, alias), on=exp.EQ(this=left, expression=right))


def literal(value: Any) -> str:
    """A SQL literal of a value (text quoted, numbers as they are)."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int | float):
        return repr(value)
    text = str(value).replace("'", "''")
    return f"'{text}'"


def numbered(spec: Spec, database: str, kind: str, drafts: list[SuiteDraft], start: int = 0) -> list[Question]:
    """Questions from drafts, numbered `database/kind/NNN` in order."""
    return [
        Question(
            id=f"{database}/{kind}/{start + i:03d}",
            text=draft.text,
            database=database,
            labels=[f"corgi:{kind}", *draft.labels, f"corgi:form:{draft.form}"],
            domain=spec.title,
            now=spec.anchor,
            reference_answer=draft.reference or None,
            tables=draft.tables,
            evidence=_PLAIN.dump_python(draft.evidence, mode="json") or None,
        )
        for i, draft in enumerate(drafts)
    ]


def operating_rules(spec: Spec) -> list[Rule]:
    """Rules over the business's activity (tables that grow); rules that fill in lookup tables are facts, not levers."""
    return [rule for rule in spec.rules if spec.tables[rule.table].scaled]


def is_definition(rule: Rule) -> bool:
    """A rule that computes its column the same way on every row (charged = subtotal + tax): arithmetic, so neither
    a cause to explain nor a policy to review."""
    branches = rule.branches()
    return len(branches) == 1 and re.sub(r"\s+", "", branches[0].when.lower()) in ("1=1", "true")


def percent(factor: float) -> str:
    """A multiplier as a signed percentage: 1.25 -> `+25%`."""
    return f"{(factor - 1) * 100:+.0f}%"


def last_year(spec: Spec) -> tuple[date, date]:
    """The twelve months before the anchor (first day, last day)."""
    last = (spec.anchor - timedelta(seconds=1)).date()
    return max(spec.start, last - timedelta(days=364)), last


def data_year(spec: Spec) -> int:
    """The last full calendar year of data (the anchor's year when it starts a year, else the one before)."""
    return spec.anchor.year - 1 if spec.anchor.month == 1 else spec.anchor.year


def planted_windows(spec: Spec, table: str) -> list[Planted]:
    """The planted events that change a table's rows."""
    return [p for p, _, _ in spec.touched(table)]


def quiet_days(spec: Spec, table: str, first: date, last: date) -> list[date]:
    """Days in [first, last] outside the table's planted windows."""
    planted = {d for p in planted_windows(spec, table) for d in days(p.start, p.end)}
    return [d for d in days(first, last) if d not in planted]


def day_between(stamp: str, first: date, last: date, table: str | None = None) -> exp.Expression:
    """SQL condition: the timestamp's day lies in [first, last]."""
    return sb.days_between(stamp_ref(stamp, table), first, last, DIALECT)


def quiet_condition(spec: Spec, table: str) -> exp.Expression:
    """SQL condition leaving out the table's planted windows (TRUE when it has none)."""
    stamp = stamp_of(spec, table) or ""
    parts = [exp.Not(this=exp.Paren(this=day_between(stamp, p.start, p.end))) for p in planted_windows(spec, table)]
    return exp.and_(*parts) if parts else exp.EQ(this=exp.Literal.number(1), expression=exp.Literal.number(1))


def rate(spec: Spec, db: Database, table: str) -> float:
    """Rows per unit of seasonal weight over the last year (planted windows left out)."""
    first, last = last_year(spec)
    stamp = stamp_of(spec, table) or ""
    query = select_from(table, count_star(None)).where(
        exp.and_(day_between(stamp, first, last), quiet_condition(spec, table))
    )
    rows = db.execute(sql(query)).rows[0][0] or 0
    return rows / max(1e-9, float(density(quiet_days(spec, table, first, last), spec.seasonality).sum()))


def weight_of(spec: Spec, first: date, last: date) -> float:
    """The seasonal weight of the days in [first, last] (trend, month, weekday and recurring events)."""
    return float(density(days(first, last), spec.seasonality).sum())


def month_bounds(year: int, month: int) -> tuple[date, date]:
    """First and last day of a month."""
    return date(year, month, 1), date(year, month, months_calendar.monthrange(year, month)[1])


def next_months(spec: Spec, count: int) -> list[tuple[int, int]]:
    """The `count` months after the anchor (the anchor's own month when it starts it)."""
    year, month = spec.anchor.year, spec.anchor.month
    if spec.anchor.day > 1 or spec.anchor.time() != datetime.min.time():
        month += 1
    out = []
    for _ in range(count):
        if month > 12:
            year, month = year + 1, 1
        out.append((year, month))
        month += 1
    return out


def is_value(spec: Spec, table: str, column: str) -> bool:
    """Whether a column holds amounts that add up (money, minutes), never ids, ages, ranks or ratings."""
    return column in metric_columns(spec, table) and not any(bad in column for bad in _NOT_VALUE)


def value_measure(spec: Spec, table: str) -> str | None:
    """The table's money column (a value that adds up: revenue, price, fee), else None; never ids, ages, ranks."""
    columns = [c for c in metric_columns(spec, table) if is_value(spec, table, c)]
    for word in _MONEY:
        for column in columns:
            if word in column:
                return column
    return None


def word_values(spec: Spec, table: str, column: str) -> list[str]:
    """A category column's values when they are words a manager says (not codes, flags or numbers)."""
    source = reached(spec, table, column)
    if source.kind != "category":
        return []
    values = list(source.values) if source.values is not None else []
    out = [str(v) for v in values]
    if not out or any(not isinstance(v, str) or not v.replace("_", "").replace(" ", "").isalpha() for v in values):
        return []
    return out


def shares(spec: Spec, table: str, column: str) -> dict[str, float]:
    """A category column's generating shares (equal for a list), summing to 1."""
    values = reached(spec, table, column).values
    if isinstance(values, dict):
        total = sum(float(v) for v in values.values()) or 1.0
        return {str(k): float(v) / total for k, v in values.items()}
    listed = list(values or [])
    return {str(v): 1 / len(listed) for v in listed} if listed else {}


def dimensions(spec: Spec, table: str) -> list[str]:
    """Category columns of a table whose values are words (zone, channel, status), in spec order."""
    return [c for c in spec.tables[table].columns if len(word_values(spec, table, c)) >= 2]


_MEASURE_NAMES = {"subtotal": "order value", "gmv": "gross merchandise value", "charged": "amount charged"}
"""Money columns whose name is not what a manager calls them."""


def measure_words(column: str) -> str:
    """A value column in a manager's words: `subtotal` -> `order value`, `list_price` -> `list price`."""
    return _MEASURE_NAMES.get(column, column.replace("_", " "))


def condition_words(condition: str) -> str:
    """A SQL condition as a manager reads it: `status IN ('paid', 'late')` -> `status in paid, late`."""
    text = condition.replace("'", "").replace("_", " ")
    return re.sub(r"\s+IN\s*\(([^)]*)\)", r" in \1", text, flags=re.IGNORECASE)


def value_words(value: Any) -> str:
    """A category value as words: `home_pickup` -> `home pickup`."""
    return str(value).replace("_", " ")


def article(phrase: str) -> str:
    """A phrase with its indefinite article: `expert vetted` -> `an expert vetted`."""
    return f"{'an' if phrase[:1].lower() in 'aeiou' else 'a'} {phrase}"


def trend_text(spec: Spec) -> str:
    """The growth trend in words: the current phase, and the change of trend if there was one."""
    phases = sorted(spec.seasonality.trend, key=lambda t: t.since)
    if not phases:
        return "there is no growth trend, only seasonality"
    now = phases[-1]
    # signed, so a growth rate is never mistaken for a like-numbered policy figure of the briefing
    text = f"the growth trend is about {now.growth * 100:+.0f}% a year"
    if len(phases) > 1:
        before = phases[-2]
        text += (
            f" since {now.since.isoformat()} (before that {before.growth * 100:+.0f}% a year"
            + (f"; the change: {now.reason}" if now.reason else "")
            + ")"
        )
    return text


def trend_parameters(spec: Spec) -> list[dict[str, Any]]:
    """The growth phases as evidence parameters."""
    return [
        {"since": t.since.isoformat(), "growth": t.growth, "reason": t.reason}
        for t in sorted(spec.seasonality.trend, key=lambda t: t.since)
    ]


def slice_name(spec: Spec, event: Planted) -> str:
    """A planted event's slice in a manager's words: `downtown orders`, `Prime orders`."""
    return event.noun or f"{value_words(event.value)} {noun(spec, event.table)}"


def period(event: Planted) -> str:
    """An event's window as a manager would state it: `in September 2024`, `from July to August 2024`."""
    first, last = event.start, event.end
    if (first.year, first.month) == (last.year, last.month):
        return f"in {MONTHS[first.month]} {first.year}"
    if first.year == last.year:
        return f"from {MONTHS[first.month]} to {MONTHS[last.month]} {first.year}"
    return f"from {MONTHS[first.month]} {first.year} to {MONTHS[last.month]} {last.year}"


def hidden_evidence(event: Planted, table: str | None = None, factor: float | None = None) -> str:
    """A planted event's hidden evidence in words: the parameters and the cause row."""
    row = ", ".join(f"{k} = {v}" for k, v in event.cause["row"].items())
    where = "" if table else f" where {event.column} = {event.value!r}"
    change = "share of rows" if event.kind == "shift" and not table else "rows"
    return (
        f"{HIDDEN}planted event '{event.name}', {change} of {table or event.table}{where} "
        f"x{factor or event.factor:.2f} from {event.start.isoformat()} to {event.end.isoformat()} against the "
        f"weeks before; the cause is the {event.cause['table']} row with {row}."
    )


def cause_sql(event: Planted) -> str:
    """The query that finds a planted event's cause row."""
    row = event.cause["row"]
    where = exp.and_(*(exp.EQ(this=col(k), expression=lit(v)) for k, v in row.items()))
    return sql(select_from(event.cause["table"], exp.Star()).where(where))


def slice_condition(event: Planted) -> exp.Expression:
    """SQL condition selecting a planted event's slice."""
    return exp.EQ(this=col(event.column), expression=lit(event.value))


def per_day_sql(table: str, stamp: str, where: exp.Expression) -> str:
    """Rows per day of a table where a condition holds, by day."""
    day = sb.day(stamp_ref(stamp), DIALECT)
    query = select_from(table, exp.alias_(day, "day"), count_star()).where(where)
    return sql(query.group_by(day.copy()).order_by(exp.column("day")))


def planted_evidence(spec: Spec, event: Planted, table: str | None = None, factor: float | None = None) -> dict:
    """A planted event's structured evidence: cause, window, parameters and the rows that show them."""
    effect = table or event.table
    stamp = stamp_of(spec, effect) or ""
    window = day_between(stamp, event.start, event.end)
    return {
        "kind": "planted",
        "event": event.name,
        "effect": {
            "table": effect,
            "slice": None if table else {event.column: event.value},
            "change": "share" if event.kind == "shift" and not table else "rows",
            "factor": round(factor or event.factor, 4),
        },
        "window": [event.start.isoformat(), event.end.isoformat()],
        "cause": {"table": event.cause["table"], "row": dict(event.cause["row"])},
        "parameters": {"planted": event.model_dump(mode="json", exclude={"explanation"})},
        "support_sql": [
            cause_sql(event),
            per_day_sql(effect, stamp, window if table else exp.and_(window, slice_condition(event))),
        ],
    }


def monthly_sql(spec: Spec, table: str, first: date, last: date, where: exp.Expression | None = None) -> str:
    """Rows per month of a table in [first, last]: the rows a seasonal or trend reference rests on."""
    stamp = stamp_of(spec, table) or ""
    month = sb.month_label(stamp_ref(stamp), DIALECT)
    within = day_between(stamp, first, last)
    query = select_from(table, exp.alias_(month, "month"), count_star())
    query = query.where(exp.and_(within, where) if where is not None else within)
    return sql(query.group_by(month.copy()).order_by(exp.column("month")))


def seasonal_parameters(spec: Spec) -> dict[str, Any]:
    """The seasonality's hidden parameters."""
    season = spec.seasonality
    return {
        "months": {str(k): v for k, v in sorted(season.months.items())},
        "reasons": {str(k): v for k, v in sorted(season.reasons.items())},
        "weekend": season.weekend,
        "events": [e.model_dump(mode="json") for e in season.events],
        "trend": trend_parameters(spec),
    }
