"""CORGI-style questions a vertical's spec can answer: vertical descriptive templates with gold SQL, and
explanatory, predictive and recommendational questions whose references come from the simulator's own rules.

Explanatory questions about a planted event carry the planted cause; seasonal ones the spec's multiplier and
reason. Predictive references are the simulator's expected counts (its rate over the last year times the coming
month's seasonal weight). Recommendational references point at the segment, month or slice the data favours.
"""

import calendar as months_calendar
from datetime import date, datetime, timedelta

from biarena.db import Database
from biarena.generate.corgi_suite.spec_roles import fact_tables, metric_columns, noun, stamp_of, words
from biarena.records import Question
from biarena.synth.calendar import days, density
from biarena.synth.spec import Spec

MONTHS = list(months_calendar.month_name)


def _q(name: str) -> str:
    return f'"{name}"'


def _question(spec: Spec, database: str, kind: str, number: int, text: str, **fields: object) -> Question:
    return Question(
        id=f"{database}/{kind}/{number:03d}",
        text=text,
        database=database,
        labels=[f"corgi:{kind}", *fields.pop("labels", [])],  # type: ignore[list-item]
        domain=spec.title,
        now=spec.anchor,
        **fields,  # type: ignore[arg-type]
    )


def _percent(factor: float) -> str:
    return f"{(factor - 1) * 100:+.0f}%"


def _last_year(spec: Spec) -> tuple[date, date]:
    """The twelve months before the anchor (first day, last day)."""
    last = (spec.anchor - timedelta(seconds=1)).date()
    return max(spec.start, last - timedelta(days=364)), last


def _quiet_days(spec: Spec, table: str, first: date, last: date) -> list[date]:
    """Days in [first, last] outside the table's planted windows."""
    planted = {d for p in spec.planted if p.table == table for d in days(p.start, p.end)}
    return [d for d in days(first, last) if d not in planted]


def _rate(spec: Spec, db: Database, table: str) -> float:
    """Rows per unit of seasonal weight over the last year (planted windows left out)."""
    first, last = _last_year(spec)
    quiet = _quiet_days(spec, table, first, last)
    stamp = stamp_of(spec, table) or ""
    planted = [p for p in spec.planted if p.table == table]
    where = " AND ".join(
        f"NOT (substr({_q(stamp)}, 1, 10) BETWEEN '{p.start.isoformat()}' AND '{p.end.isoformat()}')" for p in planted
    )
    sql = (
        f"SELECT count(*) FROM {_q(table)} WHERE substr({_q(stamp)}, 1, 10) BETWEEN '{first.isoformat()}' "
        f"AND '{last.isoformat()}'" + (f" AND {where}" if where else "")
    )
    rows = db.execute(sql).rows[0][0] or 0
    return rows / max(1e-9, float(density(quiet, spec.seasonality).sum()))


def _money(columns: list[str]) -> str | None:
    """The column most like an amount of money (price, amount, revenue, ...), else None."""
    for word in ("revenue", "amount", "price", "subtotal", "spend", "value", "budget", "bid", "cost", "fee"):
        for column in columns:
            if word in column:
                return column
    return None


def _next_months(spec: Spec, count: int) -> list[tuple[int, int]]:
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


def _month_days(year: int, month: int) -> list[date]:
    return days(date(year, month, 1), date(year, month, months_calendar.monthrange(year, month)[1]))


def vertical_descriptive(spec: Spec, db: Database, database: str, start: int = 0) -> list[Question]:
    """Descriptive questions the spec suggests: segment shares, who drives activity, planted windows, rule totals."""
    drafts: list[tuple[str, str, list[str]]] = []
    for segment in spec.segments:
        table, column = segment.table, segment.column
        drafts.append(
            (
                f"What percentage of {noun(spec, table)} falls in each {words(column)}?",
                f"SELECT {_q(column)}, ROUND(100.0 * COUNT(*) / (SELECT COUNT(*) FROM {_q(table)}), 1) AS pct "
                f"FROM {_q(table)} GROUP BY {_q(column)} ORDER BY {_q(column)}",
                [table],
            )
        )
    for table, spec_table in spec.tables.items():
        for name, column in spec_table.columns.items():
            if column.kind == "foreign" and column.weight and column.ref:
                parent, key = column.ref.split(".")
                by = column.weight["column"]
                drafts.append(
                    (
                        f"How many {noun(spec, table)} come from each {words(parent)} {words(by)}?",
                        f"SELECT p.{_q(by)}, COUNT(*) AS n FROM {_q(table)} t JOIN {_q(parent)} p "
                        f"ON t.{_q(name)} = p.{_q(key)} GROUP BY p.{_q(by)} ORDER BY n DESC",
                        [table, parent],
                    )
                )
    for event in spec.planted:
        stamp = stamp_of(spec, event.table) or ""
        drafts.append(
            (
                f"How many {noun(spec, event.table)} with {words(event.column)} '{event.value}' were there between "
                f"{event.start.isoformat()} and {event.end.isoformat()}?",
                f"SELECT COUNT(*) FROM {_q(event.table)} WHERE {_q(event.column)} = '{event.value}' AND "
                f"date({_q(stamp)}) BETWEEN '{event.start.isoformat()}' AND '{event.end.isoformat()}'",
                [event.table],
            )
        )
    for rule in spec.rules:
        numeric = rule.column in metric_columns(spec, rule.table)
        sql = (
            f"SELECT ROUND(SUM({_q(rule.column)}), 2) FROM {_q(rule.table)}"
            if numeric
            else f"SELECT {_q(rule.column)}, COUNT(*) FROM {_q(rule.table)} GROUP BY 1 ORDER BY 1"
        )
        text = (
            f"What is the total {words(rule.column)} across all {noun(spec, rule.table)}?"
            if numeric
            else f"How many {noun(spec, rule.table)} have each {words(rule.column)} value?"
        )
        drafts.append((text, sql, [rule.table]))
    year = spec.anchor.year - 1 if spec.anchor.month == 1 else spec.anchor.year
    for table in fact_tables(spec, 2):
        stamp = stamp_of(spec, table) or ""
        drafts.append(
            (
                f"Which month of {year} had the most {noun(spec, table)}, and how many?",
                f"SELECT substr({_q(stamp)}, 1, 7) AS month, COUNT(*) AS n FROM {_q(table)} "
                f"WHERE {_q(stamp)} >= '{year}-01-01' AND {_q(stamp)} < '{year + 1}-01-01' "
                "GROUP BY month ORDER BY n DESC LIMIT 1",
                [table],
            )
        )
    out = []
    for text, sql, tables in drafts:
        rows = db.execute(sql).rows
        if rows and any(v is not None for row in rows for v in row):
            out.append(
                _question(
                    spec,
                    database,
                    "type1",
                    start + len(out),
                    text,
                    gold_sql=[sql],
                    tables=tables,
                    labels=["corgi:vertical-template"],
                )
            )
    return out


def explanatory(spec: Spec, database: str) -> list[Question]:
    """Why-questions: planted events (reference: the planted cause), seasons, named events, segments, weekends."""
    texts: list[tuple[str, str, list[str], list[str]]] = []
    for event in spec.planted:
        direction = "rise" if event.factor >= 1 else "fall"
        texts.append(
            (
                f"Why did {noun(spec, event.table)} with {words(event.column)} '{event.value}' {direction} between "
                f"{event.start.isoformat()} and {event.end.isoformat()}?",
                event.explanation,
                [event.table, str(event.cause.get("table"))],
                ["corgi:planted"],
            )
        )
    facts = fact_tables(spec)
    year = spec.anchor.year - 1 if spec.anchor.month == 1 else spec.anchor.year
    for month, factor in sorted(spec.seasonality.months.items()):
        reason = spec.seasonality.reasons.get(month, "the season")
        for table in facts:
            if any(p.table == table and month in (p.start.month, p.end.month) for p in spec.planted):
                continue
            direction = "higher" if factor >= 1 else "lower"
            texts.append(
                (
                    f"Why were {noun(spec, table)} {direction} in {MONTHS[month]} {year} than in a typical month?",
                    f"Seasonality: {MONTHS[month]} runs at {factor:.2f} times the usual level ({_percent(factor)}) "
                    f"because of {reason}; the same pattern appears every year, not only in {year}.",
                    [table],
                    ["corgi:seasonal"],
                )
            )
    for event in spec.seasonality.events:
        for table in facts[:2]:
            texts.append(
                (
                    f"Why do {noun(spec, table)} jump every year around {MONTHS[event.month]} "
                    f"{event.days[0]}-{event.days[1]}?",
                    f"{event.reason or event.name.replace('_', ' ')}: activity runs at {event.factor:.2f} times the "
                    f"usual level ({_percent(event.factor)}) from {MONTHS[event.month]} {event.days[0]} to "
                    f"{event.days[1]}.",
                    [table],
                    ["corgi:seasonal"],
                )
            )
    for table, spec_table in spec.tables.items():
        for column in spec_table.columns.values():
            if column.kind == "foreign" and column.weight and column.ref:
                parent = column.ref.split(".")[0]
                weights = column.weight["values"]
                top, low = max(weights, key=weights.get), min(weights, key=weights.get)
                texts.append(
                    (
                        f"Why do {top} {noun(spec, parent)} account for a larger share of {noun(spec, table)} than "
                        f"of {noun(spec, parent)}?",
                        f"Behaviour differs by {words(column.weight['column'])}: a {top} {words(parent)} generates "
                        f"{weights[top] / weights[low]:.1f} times as many {noun(spec, table)} as a {low} one "
                        f"(relative rates: {', '.join(f'{k} {v:g}' for k, v in weights.items())}).",
                        [table, parent],
                        ["corgi:segment"],
                    )
                )
    if spec.seasonality.weekend != 1.0:
        for table in facts[:2]:
            direction = "higher" if spec.seasonality.weekend > 1 else "lower"
            texts.append(
                (
                    f"Why are {noun(spec, table)} {direction} on weekends than on weekdays?",
                    f"Weekend activity runs at {spec.seasonality.weekend:.2f} times the weekday level "
                    f"({_percent(spec.seasonality.weekend)}), a weekly pattern of this business.",
                    [table],
                    ["corgi:seasonal"],
                )
            )
    return [
        _question(spec, database, "type2", i, text, reference_answer=ref, tables=tables, labels=labels)
        for i, (text, ref, tables, labels) in enumerate(texts)
    ]


def predictive(spec: Spec, db: Database, database: str) -> list[Question]:
    """How many, how much, next months: references from the simulator's rate times the seasonal weight."""
    texts: list[tuple[str, str, list[str]]] = []
    upcoming = _next_months(spec, 3)
    first, last = _last_year(spec)
    for table in fact_tables(spec):
        rate = _rate(spec, db, table)
        stamp = stamp_of(spec, table) or ""
        metric = _money(metric_columns(spec, table))
        for year, month in upcoming:
            weight = float(density(_month_days(year, month), spec.seasonality).sum())
            expected = rate * weight
            texts.append(
                (
                    f"How many {noun(spec, table)} should we expect in {MONTHS[month]} {year}?",
                    f"About {expected:,.0f} (within about 10%). The data show no growth trend, only seasonality: "
                    f"over the last twelve months the business ran at {rate:.1f} {noun(spec, table)} per "
                    f"seasonally weighted day, and {MONTHS[month]}'s days weigh {weight:.1f} in all.",
                    [table],
                )
            )
        if metric:
            average = db.execute(
                f"SELECT AVG({_q(metric)}) FROM {_q(table)} WHERE substr({_q(stamp)}, 1, 10) "
                f"BETWEEN '{first.isoformat()}' AND '{last.isoformat()}'"
            ).rows[0][0]
            year, month = upcoming[0]
            weight = float(density(_month_days(year, month), spec.seasonality).sum())
            texts.append(
                (
                    f"What total {words(metric)} should we expect from {noun(spec, table)} in {MONTHS[month]} {year}?",
                    f"About {rate * weight * float(average or 0):,.0f}: about {rate * weight:,.0f} "
                    f"{noun(spec, table)} times the recent average {words(metric)} of {float(average or 0):,.2f}.",
                    [table],
                )
            )
    for event in spec.seasonality.events:
        table = fact_tables(spec, 1)[0]
        texts.append(
            (
                f"How much busier than usual will {noun(spec, table)} be around {MONTHS[event.month]} "
                f"{event.days[0]}-{event.days[1]} next year?",
                f"About {_percent(event.factor)} on those days, as every year "
                f"({event.reason or event.name.replace('_', ' ')}).",
                [table],
            )
        )
    return [
        _question(spec, database, "type3", i, text, reference_answer=ref, tables=tables, labels=["corgi:simulated"])
        for i, (text, ref, tables) in enumerate(texts)
    ]


def recommendational(spec: Spec, db: Database, database: str) -> list[Question]:
    """What-should-we-do questions whose evidence is in the data: segments, timing, slices, planted events."""
    texts: list[tuple[str, str, list[str]]] = []
    months = spec.seasonality.months
    first, last = _last_year(spec)
    for table in fact_tables(spec):
        if months:
            low = min(months, key=months.get)
            high = max(months, key=months.get)
            texts.append(
                (
                    f"When should we run a promotion to lift {noun(spec, table)} in our slowest period?",
                    f"In {MONTHS[low]}, the weakest month ({_percent(months[low])}, "
                    f"{spec.seasonality.reasons.get(low, 'seasonal')}), to fill the seasonal trough.",
                    [table],
                )
            )
            texts.append(
                (
                    f"When should we add capacity or staff to handle {noun(spec, table)}?",
                    f"Before {MONTHS[high]}, the peak month ({_percent(months[high])}, "
                    f"{spec.seasonality.reasons.get(high, 'seasonal')})"
                    + "".join(
                        f", and for {e.reason or e.name} ({MONTHS[e.month]} {e.days[0]}-{e.days[1]}, "
                        f"{_percent(e.factor)})"
                        for e in spec.seasonality.events
                    )
                    + ".",
                    [table],
                )
            )
        weekend = spec.seasonality.weekend
        if weekend != 1.0:
            busier = "weekends" if weekend > 1 else "weekdays"
            texts.append(
                (
                    f"Should we schedule more support for {noun(spec, table)} on weekends or on weekdays?",
                    f"On {busier}: weekend activity runs at {weekend:.2f} times the weekday level "
                    f"({_percent(weekend)}).",
                    [table],
                )
            )
        stamp = stamp_of(spec, table) or ""
        metric = next(iter(metric_columns(spec, table)), None)
        dims = [c for c, col in spec.tables[table].columns.items() if col.kind == "category"]
        if metric and dims:
            dim = dims[0]
            rows = db.execute(
                f"SELECT {_q(dim)}, SUM({_q(metric)}) AS total FROM {_q(table)} WHERE substr({_q(stamp)}, 1, 10) "
                f"BETWEEN '{first.isoformat()}' AND '{last.isoformat()}' GROUP BY 1 ORDER BY total DESC"
            ).rows
            if len(rows) >= 2:
                texts.append(
                    (
                        f"Which {words(dim)} should we prioritise to grow total {words(metric)} on "
                        f"{noun(spec, table)}?",
                        f"{rows[0][0]}: it brought the most {words(metric)} over the last twelve months "
                        f"({rows[0][1]:,.0f}, against {rows[-1][1]:,.0f} for {rows[-1][0]}, the least).",
                        [table],
                    )
                )
    for table, spec_table in spec.tables.items():
        for column in spec_table.columns.values():
            if column.kind == "foreign" and column.weight and column.ref:
                parent = column.ref.split(".")[0]
                weights = column.weight["values"]
                top = max(weights, key=weights.get)
                texts.append(
                    (
                        f"Which {words(parent)} {words(column.weight['column'])} should we focus retention on to "
                        f"protect {noun(spec, table)}?",
                        f"{top}: each {top} {words(parent)} generates the most {noun(spec, table)} "
                        f"(relative rates: {', '.join(f'{k} {v:g}' for k, v in weights.items())}).",
                        [table, parent],
                    )
                )
    for event in spec.planted:
        if event.factor < 1:
            text = (
                f"What should we do about the fall in {noun(spec, event.table)} with {words(event.column)} "
                f"'{event.value}' since {event.start.isoformat()}?"
            )
            ref = f"Respond to its cause. {event.explanation}"
        else:
            text = (
                f"How can we sustain the rise in {noun(spec, event.table)} with {words(event.column)} "
                f"'{event.value}' seen from {event.start.isoformat()}?"
            )
            ref = f"Build on what caused it. {event.explanation}"
        texts.append((text, ref, [event.table, str(event.cause.get("table"))]))
    return [
        _question(spec, database, "type4", i, text, reference_answer=ref, tables=tables, labels=["corgi:simulated"])
        for i, (text, ref, tables) in enumerate(texts)
    ]
