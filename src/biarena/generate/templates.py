"""Question templates of the nine BIS categories plus language, with their gold SQL."""

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from biarena.db import Database
from biarena.generate.phrasing import AGGREGATION_WORDS, chinese_date, english_date, plural, sql_literal, zh
from biarena.generate.roles import Dimension, Fact, Metric, Roles

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


@dataclass
class Context:
    """What templates read: the roles, the database, a seeded random source and the time phrases."""

    roles: Roles
    db: Database
    rng: random.Random
    dates: list[str]
    _values: dict[tuple[str, str], list] = field(default_factory=dict)

    def values(self, fact: Fact, dim: Dimension) -> list:
        """Distinct values of a dimension (sorted), or [] when it has too many to group by."""
        table = dim.table or fact.table
        key = (table, dim.column)
        if key not in self._values:
            column = _q(dim.column)
            rows = self.db.execute(
                f"SELECT DISTINCT {column} FROM {_q(table)} WHERE {column} IS NOT NULL ORDER BY {column}",
                max_rows=dim.max_values + 1,
            ).rows
            self._values[key] = [r[0] for r in rows] if len(rows) <= dim.max_values else []
        return self._values[key]

    def pick(self, items: list, k: int = 1) -> list:
        """k distinct items chosen by the seeded random source."""
        return self.rng.sample(items, k) if len(items) >= k else []


def _q(name: str) -> str:
    return name if name.isidentifier() and name.lower() not in {"index", "order", "group", "select"} else f'"{name}"'


def _metric_ref(fact: Fact, metric: Metric, qualified: bool) -> str:
    return f"{_q(fact.table)}.{_q(metric.column)}" if qualified else _q(metric.column)


def _agg(aggregation: str, ref: str) -> str:
    return {"count": f"COUNT({ref})"}.get(aggregation, f"{aggregation.upper()}({ref})")


def _source(roles: Roles, fact: Fact, dim: Dimension | None) -> tuple[str, str, bool, tuple[str, ...]]:
    """FROM clause, the dimension's column reference, whether refs need qualifying, tables used."""
    if dim is None or dim.table is None or dim.table == fact.table:
        ref = _q(dim.column) if dim else ""
        return _q(fact.table), ref, False, (fact.table,)
    join = roles.join_to(fact.table, dim.table)
    if join is None:
        raise ValueError(f"no join from {fact.table} to {dim.table}")
    left, right = (f"{_q(p.split('.')[0])}.{_q(p.split('.')[1])}" for p in (join.left, join.right))
    clause = f"{_q(fact.table)} JOIN {_q(dim.table)} ON {left} = {right}"
    return clause, f"{_q(dim.table)}.{_q(dim.column)}", True, (fact.table, dim.table)


def _words(metric: Metric, aggregation: str) -> dict[str, str]:
    agg = AGGREGATION_WORDS[aggregation]
    return {"en": f"{agg['en']} {metric.names['en']}", "zh": zh(agg["zh"], metric.names.get("zh", metric.names["en"]))}


def _dim_words(dim: Dimension) -> dict[str, str]:
    return {
        "en": dim.names["en"],
        "zh": dim.names.get("zh", dim.names["en"]),
        "en_plural": dim.plural.get("en", plural(dim.names["en"])),
    }


def _combos(ctx: Context, joined: bool | None = False) -> list[tuple[Fact, Metric, str, Dimension]]:
    """(fact, metric, aggregation, dimension) choices; `joined` picks dimensions on other tables."""
    out = []
    for fact in ctx.roles.facts:
        for metric in fact.metrics:
            for aggregation in metric.aggregations:
                for dim in fact.dimensions:
                    on_other = dim.table is not None and dim.table != fact.table
                    if joined is not None and on_other != joined:
                        continue
                    if ctx.values(fact, dim):
                        out.append((fact, metric, aggregation, dim))
    ctx.rng.shuffle(out)
    return out


def filtering(ctx: Context) -> list[TemplateDraft]:
    """Filter by one or two values of a dimension."""
    drafts = []
    for i, (fact, metric, aggregation, dim) in enumerate(_combos(ctx)):
        words, dw = _words(metric, aggregation), _dim_words(dim)
        source, ref, qualified, tables = _source(ctx.roles, fact, dim)
        expr = _agg(aggregation, _metric_ref(fact, metric, qualified))
        if i % 3 == 2 and len(ctx.values(fact, dim)) >= 2:
            a, b = ctx.pick(ctx.values(fact, dim), 2)
            texts = {
                "en": f"What is the {words['en']} for {dw['en']} {a} and {b}?",
                "zh": zh(f"{dw['zh']}", f"{a}", "和", f"{b}", "的", words["zh"], "是多少？"),
            }
            where = f"{ref} IN ({sql_literal(a)}, {sql_literal(b)})"
        else:
            (value,) = ctx.pick(ctx.values(fact, dim))
            texts = {
                "en": f"What is the {words['en']} of {dw['en']} {value}?",
                "zh": zh(dw["zh"], str(value), "的", words["zh"], "是多少？"),
            }
            where = f"{ref} = {sql_literal(value)}"
        drafts.append(TemplateDraft("filtering", texts, f"SELECT {expr} FROM {source} WHERE {where}", tables))
    return drafts


def aggregation(ctx: Context) -> list[TemplateDraft]:
    """Aggregate a metric per value of a dimension."""
    drafts = []
    for fact, metric, agg, dim in _combos(ctx):
        words, dw = _words(metric, agg), _dim_words(dim)
        source, ref, qualified, tables = _source(ctx.roles, fact, dim)
        expr = _agg(agg, _metric_ref(fact, metric, qualified))
        texts = {"en": f"Show the {words['en']} per {dw['en']}.", "zh": zh("按", dw["zh"], "统计", words["zh"])}
        sql = f"SELECT {ref}, {expr} AS value FROM {source} GROUP BY {ref}"
        drafts.append(TemplateDraft("aggregation", texts, sql, tables))
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
        source, ref, qualified, tables = _source(ctx.roles, fact, dim)
        expr = _agg(agg, _metric_ref(fact, metric, qualified))
        texts = {
            "en": f"Which {k} {dw['en_plural']} have the {'highest' if highest else 'lowest'} {words['en']}?",
            "zh": zh(words["zh"], "最高" if highest else "最低", f"的前{k}个", dw["zh"], "是哪些？"),
        }
        # the dimension breaks ties, so that the order of the rows (compared as ordered) is the gold's alone
        direction = "DESC" if highest else "ASC"
        base = f"SELECT {ref}, {expr} AS value FROM {source} GROUP BY {ref} ORDER BY value {direction}, {ref}"
        drafts.append(
            TemplateDraft("top_bottom", texts, f"{base} LIMIT {k}", tables, probe_sql=f"{base} LIMIT {k + 1}", limit=k)
        )
    return drafts


def time_phrases(ctx: Context, column: str) -> list[tuple[dict[str, str], str]]:
    """Formal and informal time expressions with their SQL condition on `column`."""
    col = _q(column)
    n = ctx.rng.choice([3, 5, 7])
    hours = ctx.rng.choice([6, 12, 24])
    day = ctx.rng.choice(ctx.dates[1:-1]) if len(ctx.dates) > 2 else ctx.dates[0]
    start, end = sorted(ctx.rng.sample(ctx.dates[:-1], 2)) if len(ctx.dates) > 2 else (day, day)
    recent = ctx.roles.recent_days
    monday = "date('now', '-6 days', 'weekday 1')"
    return [
        ({"en": f"in the last {n} days", "zh": f"最近{n}天"}, f"{col} >= datetime('now', '-{n} days')"),
        ({"en": f"on {day}", "zh": day}, f"date({col}) = '{day}'"),
        ({"en": f"on {english_date(day)}", "zh": chinese_date(day)}, f"date({col}) = '{day}'"),
        ({"en": "yesterday", "zh": "昨天"}, f"date({col}) = date('now', '-1 day')"),
        ({"en": "today", "zh": "今天"}, f"date({col}) = date('now')"),
        ({"en": "last week", "zh": "上周"}, f"{col} >= date({monday}, '-7 days') AND {col} < {monday}"),
        ({"en": "this week", "zh": "本周"}, f"{col} >= {monday}"),
        ({"en": "recently", "zh": "最近"}, f"{col} >= datetime('now', '-{recent} days')"),
        ({"en": f"in the last {hours} hours", "zh": f"过去{hours}小时"}, f"{col} >= datetime('now', '-{hours} hours')"),
        (
            {"en": f"between {start} and {end}", "zh": f"{start}到{end}之间"},
            f"date({col}) BETWEEN '{start}' AND '{end}'",
        ),
    ]


def _timed(ctx: Context) -> list[tuple[Fact, Metric, str]]:
    out = [(f, m, a) for f in ctx.roles.facts if f.time for m in f.metrics for a in m.aggregations]
    ctx.rng.shuffle(out)
    return out


def time_period(ctx: Context) -> list[TemplateDraft]:
    """A metric over a formal or informal time period."""
    drafts = []
    for fact, metric, agg in _timed(ctx):
        assert fact.time is not None
        words = _words(metric, agg)
        expr = _agg(agg, _q(metric.column))
        for phrase, condition in time_phrases(ctx, fact.time.column):
            texts = {
                "en": f"What was the {words['en']} {phrase['en']}?",
                "zh": zh(phrase["zh"], "的", words["zh"], "是多少？"),
            }
            sql = f"SELECT {expr} FROM {_q(fact.table)} WHERE {condition}"
            drafts.append(TemplateDraft("time_period", texts, sql, (fact.table,)))
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
        source, ref, qualified, tables = _source(ctx.roles, fact, dim)
        expr = _agg(agg, _metric_ref(fact, metric, qualified))
        texts = {
            "en": f"Compare the {words['en']} of {dw['en']} {a} and {dw['en']} {b}.",
            "zh": zh("对比", dw["zh"], str(a), "和", str(b), "的", words["zh"]),
        }
        sql = (
            f"WITH first AS (SELECT {expr} AS value FROM {source} WHERE {ref} = {sql_literal(a)}), "
            f"second AS (SELECT {expr} AS value FROM {source} WHERE {ref} = {sql_literal(b)}) "
            f"SELECT first.value AS value_1, second.value AS value_2 FROM first, second"
        )
        drafts.append(TemplateDraft("comparison", texts, sql, tables))
    return drafts


def trend(ctx: Context) -> list[TemplateDraft]:
    """A metric per day (or per hour today) over a recent period, in time order."""
    drafts = []
    for i, (fact, metric, agg) in enumerate(_timed(ctx)):
        assert fact.time is not None
        col = _q(fact.time.column)
        words = _words(metric, agg)
        expr = _agg(agg, _q(metric.column))
        if i % 3 == 2 and fact.time.grain == "hour":
            texts = {"en": f"Show the hourly {words['en']} today.", "zh": zh("今天每小时的", words["zh"])}
            sql = (
                f"SELECT substr({col}, 1, 13) AS hour, {expr} AS value FROM {_q(fact.table)} "
                f"WHERE date({col}) = date('now') GROUP BY substr({col}, 1, 13) ORDER BY hour"
            )
        else:
            n = ctx.rng.choice([5, 7, 10, 14])
            texts = {
                "en": f"Show the daily {words['en']} over the last {n} days.",
                "zh": zh(f"最近{n}天每天的", words["zh"], "趋势"),
            }
            sql = (
                f"SELECT date({col}) AS day, {expr} AS value FROM {_q(fact.table)} "
                f"WHERE {col} >= date('now', '-{n} days') GROUP BY date({col}) ORDER BY day"
            )
        drafts.append(TemplateDraft("trend", texts, sql, (fact.table,)))
    return drafts


def trend_comparison(ctx: Context) -> list[TemplateDraft]:
    """Daily values of two periods aligned day by day."""
    drafts = []
    monday = "date('now', '-6 days', 'weekday 1')"
    periods = [
        (
            {"en": "this week with last week", "zh": "本周和上周"},
            f"{{c}} >= {monday}",
            f"{{c}} >= date({monday}, '-7 days') AND {{c}} < {monday}",
        ),
        (
            {"en": "the last 3 days with the 3 days before", "zh": "最近3天和之前3天"},
            "{c} >= date('now', '-2 days')",
            "{c} >= date('now', '-5 days') AND {c} < date('now', '-2 days')",
        ),
        (
            {"en": "the last 7 days with the 7 days before", "zh": "最近7天和之前7天"},
            "{c} >= date('now', '-6 days')",
            "{c} >= date('now', '-13 days') AND {c} < date('now', '-6 days')",
        ),
    ]
    for i, (fact, metric, agg) in enumerate(_timed(ctx)):
        assert fact.time is not None
        col = _q(fact.time.column)
        words = _words(metric, agg)
        expr = _agg(agg, _q(metric.column))
        phrase, first, second = periods[i % len(periods)]
        texts = {
            "en": f"Compare the daily {words['en']} of {phrase['en']}.",
            "zh": zh("对比", phrase["zh"], "每天的", words["zh"]),
        }

        def period(condition: str, name: str, fact: Fact = fact, col: str = col, expr: str = expr) -> str:
            return (
                f"{name} AS (SELECT ROW_NUMBER() OVER (ORDER BY date({col})) AS day_number, date({col}) AS day, "
                f"{expr} AS value FROM {_q(fact.table)} WHERE {condition.format(c=col)} GROUP BY date({col}))"
            )

        sql = (
            f"WITH {period(first, 'recent')}, {period(second, 'earlier')} "
            "SELECT recent.day_number, recent.day AS recent_day, recent.value AS recent_value, "
            "earlier.day AS earlier_day, earlier.value AS earlier_value "
            "FROM recent JOIN earlier ON recent.day_number = earlier.day_number ORDER BY recent.day_number"
        )
        drafts.append(TemplateDraft("trend_comparison", texts, sql, (fact.table,)))
    return drafts


def multiple_tables(ctx: Context) -> list[TemplateDraft]:
    """A metric filtered or grouped by a dimension that lives in another table."""
    drafts = []
    for i, (fact, metric, agg, dim) in enumerate(_combos(ctx, joined=True)):
        words, dw = _words(metric, agg), _dim_words(dim)
        source, ref, _, tables = _source(ctx.roles, fact, dim)
        expr = _agg(agg, _metric_ref(fact, metric, True))
        if i % 2:
            texts = {
                "en": f"What is the {words['en']} per {dw['en']}?",
                "zh": zh("每个", dw["zh"], "的", words["zh"], "是多少？"),
            }
            sql = f"SELECT {ref}, {expr} AS value FROM {source} GROUP BY {ref}"
        else:
            (value,) = ctx.pick(ctx.values(fact, dim))
            texts = {
                "en": f"What is the {words['en']} where the {dw['en']} is {value}?",
                "zh": zh(dw["zh"], "为", str(value), "时的", words["zh"], "是多少？"),
            }
            sql = f"SELECT {expr} FROM {source} WHERE {ref} = {sql_literal(value)}"
        drafts.append(TemplateDraft("multiple_tables", texts, sql, tables))
    return drafts


def _threshold(ctx: Context, fact: Fact, metric: Metric) -> float | None:
    rows = ctx.db.execute(
        f"SELECT {_q(metric.column)} FROM {_q(fact.table)} WHERE {_q(metric.column)} IS NOT NULL ORDER BY 1",
        max_rows=1_000_000,
    ).rows
    if not rows:
        return None
    value = rows[int(len(rows) * ctx.rng.choice([0.5, 0.75, 0.9]))][0]
    return round(float(value), 2)


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
        col = _q(metric.column)
        texts = {
            "en": f"What percentage of the {fact.names.get('en', 'records')} of {dw['en']} {value} have "
            f"{name['en']} above {limit}?",
            "zh": zh(
                dw["zh"],
                str(value),
                "的",
                fact.names.get("zh", "记录"),
                "中",
                name.get("zh", name["en"]),
                f"高于{limit}的比例是多少？",
            ),
        }
        sql = (
            f"SELECT 100.0 * SUM(CASE WHEN {col} > {limit} THEN 1 ELSE 0 END) / COUNT(*) AS percentage "
            f"FROM {_q(fact.table)} WHERE {_q(dim.column)} = {sql_literal(value)}"
        )
        drafts.append(TemplateDraft("percentage", texts, sql, (fact.table,)))
    return drafts


def percentage(ctx: Context) -> list[TemplateDraft]:
    """The share of a summable metric by dimension or of one value, or of records above a threshold."""
    drafts = _share_above(ctx)
    combos = [c for c in _combos(ctx, joined=None) if c[2] in ("sum", "count")]
    for i, (fact, metric, agg, dim) in enumerate(combos):
        dw = _dim_words(dim)
        name = metric.names
        source, ref, qualified, tables = _source(ctx.roles, fact, dim)
        expr = _agg(agg, _metric_ref(fact, metric, qualified))
        total = f"(SELECT {_agg(agg, _q(metric.column))} FROM {_q(fact.table)})"
        if i % 2:
            (value,) = ctx.pick(ctx.values(fact, dim))
            texts = {
                "en": f"What percentage of the total {name['en']} comes from {dw['en']} {value}?",
                "zh": zh(dw["zh"], str(value), "占总", name.get("zh", name["en"]), "的百分比是多少？"),
            }
            sql = f"SELECT 100.0 * {expr} / {total} AS percentage FROM {source} WHERE {ref} = {sql_literal(value)}"
        else:
            texts = {
                "en": f"What share of the total {name['en']} does each {dw['en']} account for, in percent?",
                "zh": zh("每个", dw["zh"], "占总", name.get("zh", name["en"]), "的百分比"),
            }
            sql = f"SELECT {ref}, 100.0 * {expr} / {total} AS percentage FROM {source} GROUP BY {ref}"
        drafts.append(TemplateDraft("percentage", texts, sql, tables))
    ctx.rng.shuffle(drafts)
    return drafts


def language(ctx: Context) -> list[TemplateDraft]:
    """Code meanings from mapping tables, and questions mixing Chinese with English abbreviations."""
    drafts = []
    for mapping in ctx.roles.mappings:
        where = f" WHERE {mapping.where}" if mapping.where else ""
        codes = [
            r[0]
            for r in ctx.db.execute(
                f"SELECT DISTINCT {_q(mapping.code)} FROM {_q(mapping.table)}{where} ORDER BY 1"
            ).rows
        ]
        for code in codes:
            for lang, column in mapping.meaning.items():
                texts = (
                    {"en": f"What does the {mapping.names['en']} {code} mean?"}
                    if lang == "en"
                    else {lang: zh(mapping.names.get(lang, mapping.names["en"]), str(code), "是什么意思？")}
                )
                sql = f"SELECT {_q(column)} FROM {_q(mapping.table)} WHERE {_q(mapping.code)} = {sql_literal(code)}"
                drafts.append(TemplateDraft("language", texts, sql, (mapping.table,)))
    for fact in ctx.roles.facts:
        for metric in fact.metrics:
            # Mixed questions: an English term (CTR, CPU utilisation) inside a Chinese sentence.
            english = metric.names["en"]
            for agg in metric.aggregations:
                word = AGGREGATION_WORDS[agg]
                texts = {"en": f"What is the {word['en']} {english}?", "zh": zh(word["zh"], english, "是多少")}
                sql = f"SELECT {_agg(agg, _q(metric.column))} FROM {_q(fact.table)}"
                drafts.append(TemplateDraft("language", texts, sql, (fact.table,)))
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
