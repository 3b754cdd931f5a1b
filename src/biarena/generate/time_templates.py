"""The question templates about time: a period, a comparison of two, a trend, and a trend compared."""

from datetime import date, datetime, timedelta

from sqlglot import exp

from biarena.generate import sql_builder as sb
from biarena.generate.phrasing import chinese_date, english_date, zh
from biarena.generate.roles import Fact, Metric
from biarena.generate.sql_builder import ColumnRef
from biarena.generate.template_context import (
    Context,
    Source,
    TemplateDraft,
    as_value,
    combinations,
    dimension_question,
    equals,
    make_draft,
    measure_node,
    metric_node,
    metric_words,
    question_source,
)


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
        words = metric_words(metric, agg)
        source, _ = question_source(ctx, fact, None)
        for phrase, condition in time_phrases(ctx, _time_ref(ctx, fact, source)):
            texts = {
                "en": f"What was the {words['en']} {phrase['en']}?",
                "zh": zh(phrase["zh"], "的", words["zh"], "是多少？"),
            }
            sql = ctx.sql(
                source.select(measure_node(fact, metric, agg, source.qualified, ctx.dialect)).where(condition)
            )
            drafts.append(make_draft("time_period", texts, [metric.names], sql, source.tables))
    ctx.rng.shuffle(drafts)
    return drafts


def comparison(ctx: Context) -> list[TemplateDraft]:
    """A metric for two values of a dimension, side by side."""
    drafts = []
    for fact, metric, agg, dim in combinations(ctx):
        pair = ctx.pick(ctx.values(fact, dim), 2)
        if not pair:
            continue
        a, b = pair
        words, dw, source, ref, measure = dimension_question(ctx, fact, metric, agg, dim)
        texts = {
            "en": f"Compare the {words['en']} of {dw['en']} {a} and {dw['en']} {b}.",
            "zh": zh("对比", dw["zh"], str(a), "和", str(b), "的", words["zh"]),
        }
        first = source.select(as_value(measure.copy())).where(equals(ref, a, ctx.dialect))
        second = source.select(as_value(measure.copy())).where(equals(ref, b, ctx.dialect))
        query = (
            exp.select(
                as_value(exp.column("value", "first_value_set"), "value_1"),
                as_value(exp.column("value", "second_value_set"), "value_2"),
            )
            .from_("first_value_set")
            .join("second_value_set", join_type="cross")
            .with_("first_value_set", as_=first)
            .with_("second_value_set", as_=second)
        )
        drafts.append(make_draft("comparison", texts, [metric.names, dim.names], ctx.sql(query), source.tables))
    return drafts


def trend(ctx: Context) -> list[TemplateDraft]:
    """A metric per day (or per hour today, per week, per month) over a recent period, in time order."""
    drafts = []
    d = ctx.dialect
    now = ctx.now()
    span = (date.fromisoformat(ctx.dates[-1]) - date.fromisoformat(ctx.dates[0])).days if ctx.dates else 0
    for i, (fact, metric, agg) in enumerate(_timed(ctx)):
        assert fact.time is not None
        source, _ = question_source(ctx, fact, None)
        ref = _time_ref(ctx, fact, source)
        words = metric_words(metric, agg)
        measure = measure_node(fact, metric, agg, source.qualified, d)
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
            source.select(as_value(bucket, name), as_value(measure))
            .where(condition)
            .group_by(bucket.copy())
            .order_by(exp.column(name))
        )
        drafts.append(make_draft("trend", texts, [metric.names], ctx.sql(query), source.tables))
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
        source, _ = question_source(ctx, fact, None)
        ref = _time_ref(ctx, fact, source)
        words = metric_words(metric, agg)
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
            source = question_source(ctx, fact, None)[0]
            return (
                source.select(
                    as_value(number, "day_number"),
                    as_value(bucket.copy(), "day"),
                    as_value(measure_node(fact, metric, agg, source.qualified, d)),
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
                as_value(exp.column("day", "recent"), "recent_day"),
                as_value(exp.column("value", "recent"), "recent_value"),
                as_value(exp.column("day", "earlier"), "earlier_day"),
                as_value(exp.column("value", "earlier"), "earlier_value"),
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
        drafts.append(make_draft("trend_comparison", texts, [metric.names], ctx.sql(query), source.tables))
    return drafts


def _year_over_year(ctx: Context, fact: Fact, metric: Metric, agg: str, ref: ColumnRef) -> TemplateDraft:
    """This year's metric so far against the same days of last year, and the change in percent."""
    d = ctx.dialect
    today = ctx.now().date()
    this_start, last_start, last_end = date(today.year, 1, 1), date(today.year - 1, 1, 1), sb.year_before(today)
    words = metric_words(metric, agg)
    source = question_source(ctx, fact, None)[0]
    value = metric_node(fact, metric, source.qualified, d)

    def part(first: date, last: date) -> exp.Expression:
        return sb.aggregate(agg, sb.when_then(sb.days_between(ref, first, last, d), value.copy()))

    this_year, last_year = part(this_start, today), part(last_start, last_end)
    change = exp.Sub(this=sb.percent(this_year.copy(), last_year.copy()), expression=exp.Literal.number(100))
    query = source.select(
        as_value(this_year, "this_year"), as_value(last_year, "last_year"), as_value(change, "change_percent")
    ).where(exp.or_(sb.days_between(ref, this_start, today, d), sb.days_between(ref, last_start, last_end, d)))
    texts = {
        "en": f"How does the {words['en']} this year so far compare with the same period last year, in percent?",
        "zh": zh("今年至今的", words["zh"], "与去年同期相比变化了百分之多少？"),
    }
    return make_draft(
        "trend_comparison", texts, [metric.names], ctx.sql(query), source.tables, labels=("year_over_year",)
    )
