"""Question templates of the nine BIS categories plus language, with their gold SQL for the database's engine."""

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlglot import exp

from biarena.db import Database
from biarena.generate import sql_builder as sb
from biarena.generate.column_types import ColumnTypes
from biarena.generate.phrasing import AGGREGATION_WORDS, chinese_date, english_date, plural, zh
from biarena.generate.roles import Dimension, Fact, Metric, Roles
from biarena.generate.sql_builder import ColumnRef

CATEGORIES = (
    "filtering",
    "aggregation",
    "top_bottom",
    "time_period",
    "comparison",
    "trend",
    "trend_comparison",
    "multiple_tables",
    "percentage",
    "language",
)
LANGUAGES = ("en", "zh")
"""Languages the templates are worded in."""


@dataclass(frozen=True)
class TemplateDraft:
    """A candidate question: its wording per language, gold SQL, and how to check it."""

    category: str
    texts: dict[str, str]
    sql: str
    tables: tuple[str, ...]
    probe_sql: str | None = None
    """For top/bottom questions: the same query with LIMIT k + 1, to find ties at the cut."""
    limit: int | None = None
    labels: tuple[str, ...] = field(default_factory=tuple)
    untranslated: tuple[str, ...] = ()
    """Languages left out because a name the question needs has no translation in the roles file."""


@dataclass
class Context:
    """What templates read: the roles, the database, a seeded random source, the days with data and the anchor."""

    roles: Roles
    db: Database
    rng: random.Random
    dates: list[str]
    anchor: datetime | None = None
    """The moment questions are asked: 'today', 'the last 7 days' are computed from it."""
    _values: dict[tuple[str, str], list] = field(default_factory=dict)
    _types: ColumnTypes | None = None

    @property
    def dialect(self) -> str:
        """The engine's sqlglot dialect: what the gold SQL is written in."""
        return self.db.dialect

    @property
    def types(self) -> ColumnTypes:
        """How the engine stores each column."""
        if self._types is None:
            self._types = ColumnTypes(self.db)
        return self._types

    def ref(self, table: str, name: str, qualified: bool = False) -> ColumnRef:
        """A typed reference to a column."""
        return self.types.ref(table, name, qualified=qualified)

    def sql(self, node: exp.Expression) -> str:
        """The expression as the engine's SQL."""
        return sb.render(node, self.dialect)

    def now(self) -> datetime:
        """The anchor, or the end of the last day with data when none was given."""
        if self.anchor is not None:
            return self.anchor
        last = date.fromisoformat(self.dates[-1]) if self.dates else date.today()
        return datetime.combine(last, datetime.max.time()).replace(microsecond=0)

    def values(self, fact: Fact, dim: Dimension) -> list:
        """Distinct values of a dimension (sorted), or [] when it has too many to group by."""
        table = dim.table or fact.table
        key = (table, dim.column)
        if key not in self._values:
            col = sb.column(ColumnRef(dim.column))
            query = (
                exp.select(col)
                .distinct()
                .from_(sb.table(table))
                .where(exp.Not(this=exp.Is(this=col, expression=exp.Null())))
            ).order_by(col)
            rows = self.db.execute(self.sql(query), max_rows=dim.max_values + 1).rows
            self._values[key] = [r[0] for r in rows] if len(rows) <= dim.max_values else []
        return self._values[key]

    def pick(self, items: list, k: int = 1) -> list:
        """k distinct items chosen by the seeded random source."""
        return self.rng.sample(items, k) if len(items) >= k else []


@dataclass(frozen=True)
class Source:
    """Where a question reads from: the fact table, joined to the tables its dimension or time column lives in."""

    fact: str
    tables: tuple[str, ...]
    joins: tuple[tuple[str, exp.Expression], ...] = ()

    @property
    def qualified(self) -> bool:
        """True when column refs need their table (a join is made)."""
        return bool(self.joins)

    def select(self, *columns: exp.Expression) -> exp.Select:
        """SELECT columns FROM the source."""
        query = exp.select(*columns).from_(sb.table(self.fact))
        for other, condition in self.joins:
            query = query.join(sb.table(other), on=condition.copy())
        return query


def _joined(ctx: Context, fact: Fact, *tables: str | None) -> Source:
    """The fact joined along the roles' join paths to each of `tables` (None: the fact itself)."""
    joins: list[tuple[str, exp.Expression]] = []
    reached = [fact.table]
    for wanted in tables:
        if wanted is None or wanted in reached:
            continue
        path = ctx.roles.join_path(fact.table, wanted)
        if path is None:
            raise ValueError(f"no join from {fact.table} to {wanted}")
        for step in path:
            if step.table in reached:
                continue
            left = sb.column(ColumnRef(step.from_column, step.from_table))
            right = sb.column(ColumnRef(step.column, step.table))
            joins.append((step.table, exp.EQ(this=left, expression=right)))
            reached.append(step.table)
    return Source(fact.table, tuple(reached), tuple(joins))


def _time_table(fact: Fact) -> str | None:
    return fact.time.table if fact.time and fact.time.table and fact.time.table != fact.table else None


def _source(ctx: Context, fact: Fact, dim: Dimension | None) -> tuple[Source, exp.Expression | None]:
    """The source a question on `fact` (and `dim`) reads, and the dimension's column expression."""
    if dim is None:
        return _joined(ctx, fact, _time_table(fact)), None
    holder = dim.table if dim.table and dim.table != fact.table else None
    source = _joined(ctx, fact, holder)
    return source, sb.column(ColumnRef(dim.column, (holder or fact.table) if source.qualified else None))


def metric_node(fact: Fact, metric: Metric, qualified: bool, dialect: str) -> exp.Expression:
    """What a metric aggregates: its column, its expression (columns qualified by the fact when asked), or 1 for
    a count of rows."""
    if metric.rows:
        return exp.Literal.number(1)
    table = fact.table if qualified else None
    if metric.column is not None:
        return sb.column(ColumnRef(metric.column, table))
    assert metric.expression is not None
    node = exp.paren(sb.parse_expression(metric.expression, dialect), copy=False)
    if table is not None:
        for col in node.find_all(exp.Column):
            col.set("table", sb.identifier(table))
    return node


def _measure(fact: Fact, metric: Metric, aggregation: str, qualified: bool, dialect: str) -> exp.Expression:
    if metric.rows:
        return sb.count_rows()
    return sb.aggregate(aggregation, metric_node(fact, metric, qualified, dialect))


def _value(node: exp.Expression, name: str = "value") -> exp.Expression:
    return exp.alias_(node, name)


def _eq(node: exp.Expression, value: object, dialect: str) -> exp.Expression:
    return exp.EQ(this=node.copy(), expression=sb.literal(value, dialect))


def _covered(texts: dict[str, str], *names: dict[str, str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """The texts whose language every name has a translation in, and the languages left out."""
    kept = {lang: text for lang, text in texts.items() if all(n.get(lang, "").strip() for n in names)}
    return kept, tuple(lang for lang in texts if lang not in kept)


def _draft(
    category: str,
    texts: dict[str, str],
    names: list[dict[str, str]],
    sql: str,
    tables: tuple[str, ...],
    **extra: object,
) -> TemplateDraft:
    kept, left_out = _covered(texts, *names)
    return TemplateDraft(category, kept, sql, tables, untranslated=left_out, **extra)  # type: ignore[arg-type]


def _words(metric: Metric, aggregation: str) -> dict[str, str]:
    """How a question names the aggregated metric: "total sales", "number of rentals" (never "total total")."""
    agg = AGGREGATION_WORDS[aggregation]
    english, chinese = metric.names["en"], metric.names.get("zh", "")
    said = aggregation in ("sum", "count") and agg["en"].split()[0] in english.lower().split()
    return {
        "en": english if said else f"{agg['en']} {english}",
        "zh": chinese if chinese.startswith(agg["zh"]) else zh(agg["zh"], chinese),
    }


def _dim_words(dim: Dimension) -> dict[str, str]:
    return {
        "en": dim.names["en"],
        "zh": dim.names.get("zh", ""),
        "en_plural": dim.plural.get("en", plural(dim.names["en"])),
    }


def _combos(ctx: Context, joined: bool | None = False) -> list[tuple[Fact, Metric, str, Dimension]]:
    """(fact, metric, aggregation, dimension) choices; `joined` picks dimensions on other tables (False: the fact's
    own, or its joined ones when it has none of its own: a line table's dimensions are all on other tables)."""
    out = []
    for fact in ctx.roles.facts:
        usable = [d for d in fact.dimensions if ctx.values(fact, d)]
        own = [d for d in usable if d.table is None or d.table == fact.table]
        if joined is None:
            dims = usable
        elif joined:
            dims = [d for d in usable if d not in own]
        else:
            dims = own or usable
        for metric in fact.metrics:
            for aggregation in metric.aggregations:
                out.extend((fact, metric, aggregation, dim) for dim in dims)
    ctx.rng.shuffle(out)
    return out


def filtering(ctx: Context) -> list[TemplateDraft]:
    """Filter by one or two values of a dimension."""
    drafts = []
    for i, (fact, metric, aggregation, dim) in enumerate(_combos(ctx)):
        words, dw = _words(metric, aggregation), _dim_words(dim)
        source, ref = _source(ctx, fact, dim)
        assert ref is not None
        measure = _measure(fact, metric, aggregation, source.qualified, ctx.dialect)
        if i % 3 == 2 and len(ctx.values(fact, dim)) >= 2:
            a, b = ctx.pick(ctx.values(fact, dim), 2)
            texts = {
                "en": f"What is the {words['en']} for {dw['en']} {a} and {b}?",
                "zh": zh(f"{dw['zh']}", f"{a}", "和", f"{b}", "的", words["zh"], "是多少？"),
            }
            where = exp.In(this=ref, expressions=[sb.literal(a, ctx.dialect), sb.literal(b, ctx.dialect)])
        else:
            (value,) = ctx.pick(ctx.values(fact, dim))
            texts = {
                "en": f"What is the {words['en']} of {dw['en']} {value}?",
                "zh": zh(dw["zh"], str(value), "的", words["zh"], "是多少？"),
            }
            where = _eq(ref, value, ctx.dialect)
        sql = ctx.sql(source.select(measure).where(where))
        drafts.append(_draft("filtering", texts, [metric.names, dim.names], sql, source.tables))
    return drafts


def aggregation(ctx: Context) -> list[TemplateDraft]:
    """Aggregate a metric per value of a dimension."""
    drafts = []
    for fact, metric, agg, dim in _combos(ctx):
        words, dw = _words(metric, agg), _dim_words(dim)
        source, ref = _source(ctx, fact, dim)
        assert ref is not None
        measure = _measure(fact, metric, agg, source.qualified, ctx.dialect)
        texts = {"en": f"Show the {words['en']} per {dw['en']}.", "zh": zh("按", dw["zh"], "统计", words["zh"])}
        sql = ctx.sql(source.select(ref, _value(measure)).group_by(ref.copy()))
        drafts.append(_draft("aggregation", texts, [metric.names, dim.names], sql, source.tables))
    return drafts


def top_bottom(ctx: Context) -> list[TemplateDraft]:
    """The k values of a dimension with the highest or lowest aggregate."""
    drafts = []
    for i, (fact, metric, agg, dim) in enumerate(_combos(ctx)):
        count = len(ctx.values(fact, dim))
        if count < 3:
            continue
        k = min(count - 1, 3 + i % 3)
        highest = i % 2 == 0
        words, dw = _words(metric, agg), _dim_words(dim)
        source, ref = _source(ctx, fact, dim)
        assert ref is not None
        measure = _measure(fact, metric, agg, source.qualified, ctx.dialect)
        texts = {
            "en": f"Which {k} {dw['en_plural']} have the {'highest' if highest else 'lowest'} {words['en']}?",
            "zh": zh(words["zh"], "最高" if highest else "最低", f"的前{k}个", dw["zh"], "是哪些？"),
        }
        # the dimension breaks ties, so that the order of the rows (compared as ordered) is the gold's alone
        base = (
            source.select(ref, _value(measure))
            .group_by(ref.copy())
            .order_by(exp.Ordered(this=exp.column("value"), desc=highest), exp.Ordered(this=ref.copy()))
        )
        drafts.append(
            _draft(
                "top_bottom",
                texts,
                [metric.names, dim.names],
                ctx.sql(base.limit(k)),
                source.tables,
                probe_sql=ctx.sql(base.limit(k + 1)),
                limit=k,
            )
        )
    return drafts


def time_phrases(ctx: Context, ref: ColumnRef) -> list[tuple[dict[str, str], exp.Expression]]:
    """Formal and informal time expressions with their condition on the time column, relative to the anchor."""
    d = ctx.dialect
    now = ctx.now()
    today = now.date()
    n = ctx.rng.choice([3, 5, 7])
    hours = ctx.rng.choice([6, 12, 24])
    day = ctx.rng.choice(ctx.dates[1:-1]) if len(ctx.dates) > 2 else ctx.dates[0]
    start, end = sorted(ctx.rng.sample(ctx.dates[:-1], 2)) if len(ctx.dates) > 2 else (day, day)
    recent = ctx.roles.recent_days
    monday = datetime.combine(sb.week_start(today), datetime.min.time())
    return [
        ({"en": f"in the last {n} days", "zh": f"最近{n}天"}, sb.calendar_days(ref, n, now, d)),
        ({"en": f"on {day}", "zh": day}, sb.on_day(ref, date.fromisoformat(day), d)),
        ({"en": f"on {english_date(day)}", "zh": chinese_date(day)}, sb.on_day(ref, date.fromisoformat(day), d)),
        ({"en": "yesterday", "zh": "昨天"}, sb.on_day(ref, today - timedelta(days=1), d)),
        ({"en": "today", "zh": "今天"}, sb.on_day(ref, today, d)),
        ({"en": "last week", "zh": "上周"}, sb.within(ref, monday - timedelta(days=7), monday, d)),
        ({"en": "this week", "zh": "本周"}, sb.since(ref, monday, d)),
        ({"en": "recently", "zh": "最近"}, sb.calendar_days(ref, recent, now, d)),
        (
            {"en": f"in the last {hours} hours", "zh": f"过去{hours}小时"},
            sb.since(ref, now - timedelta(hours=hours), d),
        ),
        (
            {"en": f"between {start} and {end}", "zh": f"{start}到{end}之间"},
            sb.days_between(ref, date.fromisoformat(start), date.fromisoformat(end), d),
        ),
    ]


def _timed(ctx: Context) -> list[tuple[Fact, Metric, str]]:
    out = [(f, m, a) for f in ctx.roles.facts if f.time for m in f.metrics for a in m.aggregations]
    ctx.rng.shuffle(out)
    return out


def _time_ref(ctx: Context, fact: Fact, source: Source) -> ColumnRef:
    assert fact.time is not None
    return ctx.ref(fact.time.table or fact.table, fact.time.column, qualified=source.qualified)


def time_period(ctx: Context) -> list[TemplateDraft]:
    """A metric over a formal or informal time period."""
    drafts = []
    for fact, metric, agg in _timed(ctx):
        words = _words(metric, agg)
        source, _ = _source(ctx, fact, None)
        for phrase, condition in time_phrases(ctx, _time_ref(ctx, fact, source)):
            texts = {
                "en": f"What was the {words['en']} {phrase['en']}?",
                "zh": zh(phrase["zh"], "的", words["zh"], "是多少？"),
            }
            sql = ctx.sql(source.select(_measure(fact, metric, agg, source.qualified, ctx.dialect)).where(condition))
            drafts.append(_draft("time_period", texts, [metric.names], sql, source.tables))
    ctx.rng.shuffle(drafts)
    return drafts


def comparison(ctx: Context) -> list[TemplateDraft]:
    """A metric for two values of a dimension, side by side."""
    drafts = []
    for fact, metric, agg, dim in _combos(ctx):
        pair = ctx.pick(ctx.values(fact, dim), 2)
        if not pair:
            continue
        a, b = pair
        words, dw = _words(metric, agg), _dim_words(dim)
        source, ref = _source(ctx, fact, dim)
        assert ref is not None
        measure = _measure(fact, metric, agg, source.qualified, ctx.dialect)
        texts = {
            "en": f"Compare the {words['en']} of {dw['en']} {a} and {dw['en']} {b}.",
            "zh": zh("对比", dw["zh"], str(a), "和", str(b), "的", words["zh"]),
        }
        first = source.select(_value(measure.copy())).where(_eq(ref, a, ctx.dialect))
        second = source.select(_value(measure.copy())).where(_eq(ref, b, ctx.dialect))
        query = (
            exp.select(
                _value(exp.column("value", "first_value_set"), "value_1"),
                _value(exp.column("value", "second_value_set"), "value_2"),
            )
            .from_("first_value_set")
            .join("second_value_set", join_type="cross")
            .with_("first_value_set", as_=first)
            .with_("second_value_set", as_=second)
        )
        drafts.append(_draft("comparison", texts, [metric.names, dim.names], ctx.sql(query), source.tables))
    return drafts


def trend(ctx: Context) -> list[TemplateDraft]:
    """A metric per day (or per hour today, per week, per month) over a recent period, in time order."""
    drafts = []
    d = ctx.dialect
    now = ctx.now()
    span = (date.fromisoformat(ctx.dates[-1]) - date.fromisoformat(ctx.dates[0])).days if ctx.dates else 0
    for i, (fact, metric, agg) in enumerate(_timed(ctx)):
        assert fact.time is not None
        source, _ = _source(ctx, fact, None)
        ref = _time_ref(ctx, fact, source)
        words = _words(metric, agg)
        measure = _measure(fact, metric, agg, source.qualified, d)
        if i % 3 == 2 and fact.time.grain == "hour":
            texts = {"en": f"Show the hourly {words['en']} today.", "zh": zh("今天每小时的", words["zh"])}
            bucket, name, condition = sb.truncate(ref, "hour", d), "hour", sb.on_day(ref, now.date(), d)
        elif i % 3 == 1 and span >= 56:
            weeks = ctx.rng.choice([4, 8])
            start = datetime.combine(sb.week_start(now.date()) - timedelta(weeks=weeks - 1), datetime.min.time())
            texts = {
                "en": f"Show the weekly {words['en']} over the last {weeks} weeks.",
                "zh": zh(f"最近{weeks}周每周的", words["zh"], "趋势"),
            }
            bucket, name, condition = sb.truncate(ref, "week", d), "week", sb.since(ref, start, d)
        elif i % 3 == 1 and span >= 180:
            start = datetime(now.year, 1, 1)
            texts = {"en": f"Show the monthly {words['en']} this year.", "zh": zh("今年每月的", words["zh"])}
            bucket, name, condition = sb.truncate(ref, "month", d), "month", sb.since(ref, start, d)
        else:
            n = ctx.rng.choice([5, 7, 10, 14])
            start = sb.days_start(now, n)
            texts = {
                "en": f"Show the daily {words['en']} over the last {n} days.",
                "zh": zh(f"最近{n}天每天的", words["zh"], "趋势"),
            }
            bucket, name, condition = sb.day(ref, d), "day", sb.since(ref, start, d)
        query = (
            source.select(_value(bucket, name), _value(measure))
            .where(condition)
            .group_by(bucket.copy())
            .order_by(exp.column(name))
        )
        drafts.append(_draft("trend", texts, [metric.names], ctx.sql(query), source.tables))
    return drafts


def _periods(ctx: Context) -> list[tuple[dict[str, str], tuple[datetime, datetime | None], tuple[datetime, datetime]]]:
    """Two periods to align day by day: (phrase, recent [start, end), earlier [start, end))."""
    today = ctx.now().date()
    midnight = datetime.combine(today, datetime.min.time())
    monday = datetime.combine(sb.week_start(today), datetime.min.time())
    day = timedelta(days=1)
    return [
        ({"en": "this week with last week", "zh": "本周和上周"}, (monday, None), (monday - 7 * day, monday)),
        (
            {"en": "the last 3 days with the 3 days before", "zh": "最近3天和之前3天"},
            (midnight - 2 * day, None),
            (midnight - 5 * day, midnight - 2 * day),
        ),
        (
            {"en": "the last 7 days with the 7 days before", "zh": "最近7天和之前7天"},
            (midnight - 6 * day, None),
            (midnight - 13 * day, midnight - 6 * day),
        ),
    ]


def trend_comparison(ctx: Context) -> list[TemplateDraft]:
    """Daily values of two periods aligned day by day, or a year's total so far against the same days a year before."""
    drafts = []
    d = ctx.dialect
    periods = _periods(ctx)
    first_day = date.fromisoformat(ctx.dates[0]) if ctx.dates else None
    for i, (fact, metric, agg) in enumerate(_timed(ctx)):
        source, _ = _source(ctx, fact, None)
        ref = _time_ref(ctx, fact, source)
        words = _words(metric, agg)
        now = ctx.now()
        # a year over year question wants last year's data from its first week on
        if i % 4 == 3 and first_day is not None and first_day <= date(now.year - 1, 1, 7):
            drafts.append(_year_over_year(ctx, fact, metric, agg, ref))
            continue
        phrase, (recent_start, recent_end), (earlier_start, earlier_end) = periods[i % len(periods)]
        texts = {
            "en": f"Compare the daily {words['en']} of {phrase['en']}.",
            "zh": zh("对比", phrase["zh"], "每天的", words["zh"]),
        }

        def period(
            condition: exp.Expression, fact: Fact = fact, metric: Metric = metric, agg: str = agg, ref: ColumnRef = ref
        ) -> exp.Select:
            bucket = sb.day(ref, d)
            number = exp.Window(this=exp.RowNumber(), order=exp.Order(expressions=[exp.Ordered(this=bucket.copy())]))
            source = _source(ctx, fact, None)[0]
            return (
                source.select(
                    _value(number, "day_number"),
                    _value(bucket.copy(), "day"),
                    _value(_measure(fact, metric, agg, source.qualified, d)),
                )
                .where(condition)
                .group_by(bucket.copy())
            )

        recent_condition = (
            sb.since(ref, recent_start, d) if recent_end is None else sb.within(ref, recent_start, recent_end, d)
        )
        query = (
            exp.select(
                exp.column("day_number", "recent"),
                _value(exp.column("day", "recent"), "recent_day"),
                _value(exp.column("value", "recent"), "recent_value"),
                _value(exp.column("day", "earlier"), "earlier_day"),
                _value(exp.column("value", "earlier"), "earlier_value"),
            )
            .from_("recent")
            .join(
                "earlier",
                on=exp.EQ(this=exp.column("day_number", "recent"), expression=exp.column("day_number", "earlier")),
            )
            .order_by(exp.column("day_number", "recent"))
            .with_("recent", as_=period(recent_condition))
            .with_("earlier", as_=period(sb.within(ref, earlier_start, earlier_end, d)))
        )
        drafts.append(_draft("trend_comparison", texts, [metric.names], ctx.sql(query), source.tables))
    return drafts


def _year_over_year(ctx: Context, fact: Fact, metric: Metric, agg: str, ref: ColumnRef) -> TemplateDraft:
    """This year's metric so far against the same days of last year, and the change in percent."""
    d = ctx.dialect
    today = ctx.now().date()
    this_start, last_start, last_end = date(today.year, 1, 1), date(today.year - 1, 1, 1), sb.year_before(today)
    words = _words(metric, agg)
    source = _source(ctx, fact, None)[0]
    value = metric_node(fact, metric, source.qualified, d)

    def part(first: date, last: date) -> exp.Expression:
        return sb.aggregate(agg, sb.when_then(sb.days_between(ref, first, last, d), value.copy()))

    this_year, last_year = part(this_start, today), part(last_start, last_end)
    change = exp.Sub(this=sb.percent(this_year.copy(), last_year.copy()), expression=exp.Literal.number(100))
    query = (
        source.select(_value(this_year, "this_year"), _value(last_year, "last_year"), _value(change, "change_percent"))
        .where(exp.or_(sb.days_between(ref, this_start, today, d), sb.days_between(ref, last_start, last_end, d)))
    )
    texts = {
        "en": f"How does the {words['en']} this year so far compare with the same period last year, in percent?",
        "zh": zh("今年至今的", words["zh"], "与去年同期相比变化了百分之多少？"),
    }
    return _draft(
        "trend_comparison", texts, [metric.names], ctx.sql(query), source.tables, labels=("year_over_year",)
    )


def multiple_tables(ctx: Context) -> list[TemplateDraft]:
    """A metric filtered or grouped by a dimension that lives in another table."""
    drafts = []
    for i, (fact, metric, agg, dim) in enumerate(_combos(ctx, joined=True)):
        words, dw = _words(metric, agg), _dim_words(dim)
        source, ref = _source(ctx, fact, dim)
        assert ref is not None
        measure = _measure(fact, metric, agg, True, ctx.dialect)
        if i % 2:
            texts = {
                "en": f"What is the {words['en']} per {dw['en']}?",
                "zh": zh("每个", dw["zh"], "的", words["zh"], "是多少？"),
            }
            query = source.select(ref, _value(measure)).group_by(ref.copy())
        else:
            (value,) = ctx.pick(ctx.values(fact, dim))
            texts = {
                "en": f"What is the {words['en']} where the {dw['en']} is {value}?",
                "zh": zh(dw["zh"], "为", str(value), "时的", words["zh"], "是多少？"),
            }
            query = source.select(measure).where(_eq(ref, value, ctx.dialect))
        drafts.append(_draft("multiple_tables", texts, [metric.names, dim.names], ctx.sql(query), source.tables))
    return drafts


def _threshold(ctx: Context, fact: Fact, metric: Metric) -> float | None:
    col = metric_node(fact, metric, False, ctx.dialect)
    query = (
        exp.select(col)
        .from_(sb.table(fact.table))
        .where(exp.Not(this=exp.Is(this=col.copy(), expression=exp.Null())))
        .order_by(col.copy())
    )
    rows = ctx.db.execute(ctx.sql(query), max_rows=1_000_000).rows
    if not rows:
        return None
    at = int(len(rows) * ctx.rng.choice([0.5, 0.75, 0.9]))
    value = float(rows[at][0])
    # halfway to the next larger value, so that no value lies on the threshold: an engine computing in binary
    # floating point (SQLite) and one in decimals (DuckDB, PostgreSQL) then count the same rows above it
    larger = next((float(r[0]) for r in rows[at:] if float(r[0]) > value + 1e-9), None)
    if larger is None:
        return None
    for digits in (2, 4, 6):
        cut = round((value + larger) / 2, digits)
        if value + 1e-9 < cut < larger - 1e-9:
            return cut
    return None


def _share_above(ctx: Context) -> list[TemplateDraft]:
    """Share of records whose metric is above a threshold, overall or for one value."""
    drafts = []
    for fact, metric, agg, dim in _combos(ctx, joined=False):
        if agg != "avg":
            continue
        limit = _threshold(ctx, fact, metric)
        if limit is None:
            continue
        (value,) = ctx.pick(ctx.values(fact, dim))
        dw, name = _dim_words(dim), metric.names
        source, ref = _source(ctx, fact, dim)
        assert ref is not None
        node = metric_node(fact, metric, source.qualified, ctx.dialect)
        above = exp.GT(this=node, expression=sb.literal(limit, ctx.dialect))
        records = plural(fact.names["en"]) if fact.names.get("en") else "records"
        texts = {
            "en": f"What percentage of the {records} of {dw['en']} {value} have "
            f"{name['en']} above {limit}?",
            "zh": zh(
                dw["zh"],
                str(value),
                "的",
                fact.names.get("zh", "记录"),
                "中",
                name.get("zh", ""),
                f"高于{limit}的比例是多少？",
            ),
        }
        query = source.select(_value(sb.percent(sb.count_where(above), sb.count_rows()), "percentage")).where(
            _eq(ref, value, ctx.dialect)
        )
        drafts.append(_draft("percentage", texts, [name, dim.names], ctx.sql(query), source.tables))
    return drafts


def percentage(ctx: Context) -> list[TemplateDraft]:
    """The share of a summable metric by dimension or of one value, or of records above a threshold."""
    drafts = _share_above(ctx)
    combos = [c for c in _combos(ctx, joined=None) if c[2] in ("sum", "count")]
    for i, (fact, metric, agg, dim) in enumerate(combos):
        dw = _dim_words(dim)
        name = metric.names
        source, ref = _source(ctx, fact, dim)
        assert ref is not None
        measure = _measure(fact, metric, agg, source.qualified, ctx.dialect)
        whole = _measure(fact, metric, agg, False, ctx.dialect)
        total = exp.Subquery(this=exp.select(whole).from_(sb.table(fact.table)))
        share = _value(sb.percent(measure, total), "percentage")
        if i % 2:
            (value,) = ctx.pick(ctx.values(fact, dim))
            texts = {
                "en": f"What percentage of the total {name['en']} comes from {dw['en']} {value}?",
                "zh": zh(dw["zh"], str(value), "占总", name.get("zh", ""), "的百分比是多少？"),
            }
            query = source.select(share).where(_eq(ref, value, ctx.dialect))
        else:
            texts = {
                "en": f"What share of the total {name['en']} does each {dw['en']} account for, in percent?",
                "zh": zh("每个", dw["zh"], "占总", name.get("zh", ""), "的百分比"),
            }
            query = source.select(ref, share).group_by(ref.copy())
        drafts.append(_draft("percentage", texts, [name, dim.names], ctx.sql(query), source.tables))
    ctx.rng.shuffle(drafts)
    return drafts


def language(ctx: Context) -> list[TemplateDraft]:
    """Code meanings from mapping tables, and questions mixing Chinese with English abbreviations."""
    drafts = []
    for mapping in ctx.roles.mappings:
        code = sb.column(ColumnRef(mapping.code))
        query = exp.select(code).distinct().from_(sb.table(mapping.table)).order_by(code.copy())
        if mapping.where:
            query = query.where(mapping.where, dialect=ctx.dialect)
        codes = [r[0] for r in ctx.db.execute(ctx.sql(query)).rows]
        for value in codes:
            for lang, meaning in mapping.meaning.items():
                if lang == "en":
                    texts = {"en": f"What does the {mapping.names['en']} {value} mean?"}
                else:
                    texts = {lang: zh(mapping.names.get(lang, ""), str(value), "是什么意思？")}
                look_up = (
                    exp.select(sb.column(ColumnRef(meaning)))
                    .from_(sb.table(mapping.table))
                    .where(_eq(code, value, ctx.dialect))
                )
                drafts.append(_draft("language", texts, [mapping.names], ctx.sql(look_up), (mapping.table,)))
    for fact in ctx.roles.facts:
        for metric in fact.metrics:
            # Mixed questions: an English term (CTR, CPU utilisation) inside a Chinese sentence, asked only where the
            # roles file gives the term for Chinese too (an abbreviation may be its own translation).
            english = metric.names["en"]
            for agg in metric.aggregations:
                word = AGGREGATION_WORDS[agg]
                texts = {"en": f"What is the {word['en']} {english}?", "zh": zh(word["zh"], english, "是多少")}
                query = exp.select(_measure(fact, metric, agg, False, ctx.dialect)).from_(sb.table(fact.table))
                drafts.append(_draft("language", texts, [metric.names], ctx.sql(query), (fact.table,)))
    ctx.rng.shuffle(drafts)
    return drafts


TEMPLATES: dict[str, Callable[[Context], list[TemplateDraft]]] = {
    "filtering": filtering,
    "aggregation": aggregation,
    "top_bottom": top_bottom,
    "time_period": time_period,
    "comparison": comparison,
    "trend": trend,
    "trend_comparison": trend_comparison,
    "multiple_tables": multiple_tables,
    "percentage": percentage,
    "language": language,
}
"""Template families by BIS category."""
