"""Question templates of the nine BIS categories plus language, with their gold SQL for the database's engine."""

from collections.abc import Callable

from sqlglot import exp

from biarena.generate import sql_builder as sb
from biarena.generate.phrasing import AGGREGATION_WORDS, plural, zh
from biarena.generate.roles import Fact, Metric
from biarena.generate.sql_builder import ColumnRef
from biarena.generate.template_context import (
    Context,
    TemplateDraft,
    as_value,
    combinations,
    dim_words,
    dimension_question,
    equals,
    make_draft,
    measure_node,
    metric_node,
    question_source,
)
from biarena.generate.time_templates import comparison, time_period, trend, trend_comparison

__all__ = ["CATEGORIES", "LANGUAGES", "TEMPLATES", "Context", "TemplateDraft", "metric_node"]

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


def filtering(ctx: Context) -> list[TemplateDraft]:
    """Filter by one or two values of a dimension."""
    drafts = []
    for i, (fact, metric, aggregation, dim) in enumerate(combinations(ctx)):
        words, dw, source, ref, measure = dimension_question(ctx, fact, metric, aggregation, dim)
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
            where = equals(ref, value, ctx.dialect)
        sql = ctx.sql(source.select(measure).where(where))
        drafts.append(make_draft("filtering", texts, [metric.names, dim.names], sql, source.tables))
    return drafts


def aggregation(ctx: Context) -> list[TemplateDraft]:
    """Aggregate a metric per value of a dimension."""
    drafts = []
    for fact, metric, agg, dim in combinations(ctx):
        words, dw, source, ref, measure = dimension_question(ctx, fact, metric, agg, dim)
        texts = {"en": f"Show the {words['en']} per {dw['en']}.", "zh": zh("按", dw["zh"], "统计", words["zh"])}
        sql = ctx.sql(source.select(ref, as_value(measure)).group_by(ref.copy()))
        drafts.append(make_draft("aggregation", texts, [metric.names, dim.names], sql, source.tables))
    return drafts


def top_bottom(ctx: Context) -> list[TemplateDraft]:
    """The k values of a dimension with the highest or lowest aggregate."""
    drafts = []
    for i, (fact, metric, agg, dim) in enumerate(combinations(ctx)):
        count = len(ctx.values(fact, dim))
        if count < 3:
            continue
        k = min(count - 1, 3 + i % 3)
        highest = i % 2 == 0
        words, dw, source, ref, measure = dimension_question(ctx, fact, metric, agg, dim)
        texts = {
            "en": f"Which {k} {dw['en_plural']} have the {'highest' if highest else 'lowest'} {words['en']}?",
            "zh": zh(words["zh"], "最高" if highest else "最低", f"的前{k}个", dw["zh"], "是哪些？"),
        }
        # the dimension breaks ties, so that the order of the rows (compared as ordered) is the gold's alone
        base = (
            source.select(ref, as_value(measure))
            .group_by(ref.copy())
            .order_by(exp.Ordered(this=exp.column("value"), desc=highest), exp.Ordered(this=ref.copy()))
        )
        drafts.append(
            make_draft(
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


def multiple_tables(ctx: Context) -> list[TemplateDraft]:
    """A metric filtered or grouped by a dimension that lives in another table."""
    drafts = []
    for i, (fact, metric, agg, dim) in enumerate(combinations(ctx, joined=True)):
        words, dw, source, ref, measure = dimension_question(ctx, fact, metric, agg, dim)
        if i % 2:
            texts = {
                "en": f"What is the {words['en']} per {dw['en']}?",
                "zh": zh("每个", dw["zh"], "的", words["zh"], "是多少？"),
            }
            query = source.select(ref, as_value(measure)).group_by(ref.copy())
        else:
            (value,) = ctx.pick(ctx.values(fact, dim))
            texts = {
                "en": f"What is the {words['en']} where the {dw['en']} is {value}?",
                "zh": zh(dw["zh"], "为", str(value), "时的", words["zh"], "是多少？"),
            }
            query = source.select(measure).where(equals(ref, value, ctx.dialect))
        drafts.append(make_draft("multiple_tables", texts, [metric.names, dim.names], ctx.sql(query), source.tables))
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
    for fact, metric, agg, dim in combinations(ctx, joined=False):
        if agg != "avg":
            continue
        limit = _threshold(ctx, fact, metric)
        if limit is None:
            continue
        (value,) = ctx.pick(ctx.values(fact, dim))
        dw, name = dim_words(dim), metric.names
        source, ref = question_source(ctx, fact, dim)
        assert ref is not None
        node = metric_node(fact, metric, source.qualified, ctx.dialect)
        above = exp.GT(this=node, expression=sb.literal(limit, ctx.dialect))
        records = plural(fact.names["en"]) if fact.names.get("en") else "records"
        texts = {
            "en": f"What percentage of the {records} of {dw['en']} {value} have {name['en']} above {limit}?",
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
        query = source.select(as_value(sb.percent(sb.count_where(above), sb.count_rows()), "percentage")).where(
            equals(ref, value, ctx.dialect)
        )
        drafts.append(make_draft("percentage", texts, [name, dim.names], ctx.sql(query), source.tables))
    return drafts


def percentage(ctx: Context) -> list[TemplateDraft]:
    """The share of a summable metric by dimension or of one value, or of records above a threshold."""
    drafts = _share_above(ctx)
    combos = [c for c in combinations(ctx, joined=None) if c[2] in ("sum", "count")]
    for i, (fact, metric, agg, dim) in enumerate(combos):
        dw = dim_words(dim)
        name = metric.names
        source, ref = question_source(ctx, fact, dim)
        assert ref is not None
        measure = measure_node(fact, metric, agg, source.qualified, ctx.dialect)
        whole = measure_node(fact, metric, agg, False, ctx.dialect)
        total = exp.Subquery(this=exp.select(whole).from_(sb.table(fact.table)))
        share = as_value(sb.percent(measure, total), "percentage")
        if i % 2:
            (value,) = ctx.pick(ctx.values(fact, dim))
            texts = {
                "en": f"What percentage of the total {name['en']} comes from {dw['en']} {value}?",
                "zh": zh(dw["zh"], str(value), "占总", name.get("zh", ""), "的百分比是多少？"),
            }
            query = source.select(share).where(equals(ref, value, ctx.dialect))
        else:
            texts = {
                "en": f"What share of the total {name['en']} does each {dw['en']} account for, in percent?",
                "zh": zh("每个", dw["zh"], "占总", name.get("zh", ""), "的百分比"),
            }
            query = source.select(ref, share).group_by(ref.copy())
        drafts.append(make_draft("percentage", texts, [name, dim.names], ctx.sql(query), source.tables))
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
                    .where(equals(code, value, ctx.dialect))
                )
                drafts.append(make_draft("language", texts, [mapping.names], ctx.sql(look_up), (mapping.table,)))
    for fact in ctx.roles.facts:
        for metric in fact.metrics:
            # Mixed questions: an English term (CTR, CPU utilisation) inside a Chinese sentence, asked only where the
            # roles file gives the term for Chinese too (an abbreviation may be its own translation).
            english = metric.names["en"]
            for agg in metric.aggregations:
                word = AGGREGATION_WORDS[agg]
                texts = {"en": f"What is the {word['en']} {english}?", "zh": zh(word["zh"], english, "是多少")}
                query = exp.select(measure_node(fact, metric, agg, False, ctx.dialect)).from_(sb.table(fact.table))
                drafts.append(make_draft("language", texts, [metric.names], ctx.sql(query), (fact.table,)))
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
