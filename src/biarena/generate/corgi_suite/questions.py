"""CORGI-style questions a vertical's spec can answer: vertical descriptive templates with gold SQL, and
explanatory, predictive and recommendational questions whose references come from the simulator's own rules.

Explanatory questions about a planted event carry the planted cause; seasonal ones the spec's multiplier and
reason. Predictive references are the simulator's expected counts (its rate over the last year times the coming
month's seasonal weight). Recommendational references point at the segment, month or slice the data favours.
"""

import calendar as months_calendar
from datetime import date, datetime, timedelta

from biarena.db import Database
from biarena.generate.corgi_suite.spec_roles import (
    fact_tables,
    is_category,
    metric_columns,
    noun,
    stamp_of,
    words,
)
from biarena.records import Question
from biarena.synth.calendar import days, density
from biarena.synth.spec import Planted, Spec

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
    planted = {d for p, _, _ in spec.touched(table) for d in days(p.start, p.end)}
    return [d for d in days(first, last) if d not in planted]


def _rate(spec: Spec, db: Database, table: str) -> float:
    """Rows per unit of seasonal weight over the last year (planted windows left out)."""
    first, last = _last_year(spec)
    quiet = _quiet_days(spec, table, first, last)
    stamp = stamp_of(spec, table) or ""
    planted = [p for p, _, _ in spec.touched(table)]
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


def _trend(spec: Spec) -> str:
    """The growth trend in words: the current phase, and the change of trend if there was one."""
    phases = sorted(spec.seasonality.trend, key=lambda t: t.since)
    if not phases:
        return "there is no growth trend, only seasonality"
    now = phases[-1]
    text = f"activity {'grows' if now.growth >= 0 else 'shrinks'} about {abs(now.growth) * 100:.0f}% a year"
    if len(phases) > 1:
        before = phases[-2]
        text += (
            f" since {now.since.isoformat()} (before that {before.growth * 100:+.0f}% a year"
            + (f"; the change: {now.reason}" if now.reason else "")
            + ")"
        )
    return text


def _slice(spec: Spec, event: Planted) -> str:
    """A planted event's slice in a manager's words: `downtown orders`, `Prime orders`."""
    return event.noun or f"{str(event.value).replace('_', ' ')} {noun(spec, event.table)}"


def _period(event: Planted) -> str:
    """An event's window as a manager would state it: `in September 2024`, `from July to August 2024`."""
    first, last = event.start, event.end
    if (first.year, first.month) == (last.year, last.month):
        return f"in {MONTHS[first.month]} {first.year}"
    if first.year == last.year:
        return f"from {MONTHS[first.month]} to {MONTHS[last.month]} {first.year}"
    return f"from {MONTHS[first.month]} {first.year} to {MONTHS[last.month]} {last.year}"


def _evidence(spec: Spec, event: Planted, table: str | None = None, factor: float | None = None) -> str:
    """What supports a planted event's reference: the hidden parameters and the rows that show them."""
    row = ", ".join(f"{k} = {v}" for k, v in event.cause["row"].items())
    where = "" if table else f" where {event.column} = {event.value!r}"
    change = "share of rows" if event.kind == "shift" and not table else "rows"
    return (
        f" Evidence (hidden parameters): planted event '{event.name}', {change} of {table or event.table}{where} "
        f"x{factor or event.factor:.2f} from {event.start.isoformat()} to {event.end.isoformat()} against the "
        f"weeks before; the cause is the {event.cause['table']} row with {row}."
    )


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
        if event.kind == "shift":
            larger = "larger" if event.factor >= 1 else "smaller"
            share = f"a {larger} share of {noun(spec, event.table)}"
            text = f"Why did {_slice(spec, event)} make up {share} {_period(event)}?"
            form = "planted-shift-why"
        else:
            text, form = f"Why did {_slice(spec, event)} {direction} {_period(event)}?", "planted-why"
        texts.append(
            (
                text,
                event.explanation + _evidence(spec, event),
                [event.table, str(event.cause.get("table"))],
                ["corgi:planted", f"corgi:form:{form}"],
            )
        )
        lift = 1 + (event.factor - 1) * spec.slice_share(event)
        for table in event.propagate:
            texts.append(
                (
                    f"Why did {noun(spec, table)} {direction} {_period(event)}?",
                    f"They followed the {direction} in {_slice(spec, event)}: {event.explanation}"
                    + _evidence(spec, event, table, lift),
                    [table, event.table, str(event.cause.get("table"))],
                    ["corgi:planted", "corgi:form:propagation-why"],
                )
            )
    facts = fact_tables(spec)
    year = spec.anchor.year - 1 if spec.anchor.month == 1 else spec.anchor.year
    for month, factor in sorted(spec.seasonality.months.items()):
        reason = spec.seasonality.reasons.get(month, "the season")
        for table in facts:
            if any(month in (p.start.month, p.end.month) for p, _, _ in spec.touched(table)):
                continue
            direction = "higher" if factor >= 1 else "lower"
            texts.append(
                (
                    f"Why were {noun(spec, table)} {direction} in {MONTHS[month]} {year} than in a typical month?",
                    f"Seasonality: {MONTHS[month]} runs at {factor:.2f} times the usual level ({_percent(factor)}) "
                    f"because of {reason}; the same pattern appears every year, not only in {year}.",
                    [table],
                    ["corgi:seasonal", "corgi:form:season-why"],
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
                    ["corgi:seasonal", "corgi:form:event-why"],
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
                        ["corgi:segment", "corgi:form:segment-why"],
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
                    ["corgi:seasonal", "corgi:form:weekend-why"],
                )
            )
    return [
        _question(spec, database, "type2", i, text, reference_answer=ref, tables=tables, labels=labels)
        for i, (text, ref, tables, labels) in enumerate(texts)
    ]


def predictive(spec: Spec, db: Database, database: str) -> list[Question]:
    """How many, how much, next months: references from the simulator's rate times the seasonal weight."""
    texts: list[tuple[str, str, list[str], str]] = []
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
                    f"About {expected:,.0f} (tolerance ±10%). Trend times season: over the last twelve months "
                    f"the business ran at {rate:.1f} {noun(spec, table)} per weighted day; {_trend(spec)}; "
                    f"{MONTHS[month]} {year}'s days weigh {weight:.1f} in all (trend, month, weekday and "
                    "recurring events included).",
                    [table],
                    "forecast-count",
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
                    "forecast-value",
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
                "forecast-event",
            )
        )
    return [
        _question(
            spec,
            database,
            "type3",
            i,
            text,
            reference_answer=ref,
            tables=tables,
            labels=["corgi:simulated", f"corgi:form:{form}"],
        )
        for i, (text, ref, tables, form) in enumerate(texts)
    ]


def recommendational(spec: Spec, db: Database, database: str) -> list[Question]:
    """What-should-we-do questions whose evidence is in the data: segments, timing, slices, planted events."""
    texts: list[tuple[str, str, list[str], str]] = []
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
                    "promotion-timing",
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
                    "capacity-timing",
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
                    "staffing-days",
                )
            )
        stamp = stamp_of(spec, table) or ""
        # only values add up (money, counts); ages, ranks and ratings do not, so those fall back to counting rows
        metric = _money(metric_columns(spec, table))
        measure, label = (f"SUM({_q(metric)})", f"total {words(metric)}") if metric else ("COUNT(*)", "")
        label = label or f"the number of {noun(spec, table)}"
        dims = [c for c in spec.tables[table].columns if is_category(spec, table, c)]
        if dims:
            dim = dims[0]
            rows = db.execute(
                f"SELECT {_q(dim)}, {measure} AS total FROM {_q(table)} WHERE substr({_q(stamp)}, 1, 10) "
                f"BETWEEN '{first.isoformat()}' AND '{last.isoformat()}' GROUP BY 1 ORDER BY total DESC"
            ).rows
            if len(rows) >= 2:
                texts.append(
                    (
                        f"Which {words(dim)} should we prioritise to grow {label}?",
                        f"{rows[0][0]}: it brought the most over the last twelve months "
                        f"({rows[0][1]:,.0f}, against {rows[-1][1]:,.0f} for {rows[-1][0]}, the least).",
                        [table],
                        "priority-segment",
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
                        "retention-focus",
                    )
                )
    for event in spec.planted:
        if event.kind == "shift":
            text = f"How should we respond to the shift toward {_slice(spec, event)} {_period(event)}?"
            ref, form = f"Plan for the new mix and address its cause. {event.explanation}", "planted-mix"
        elif event.factor < 1:
            text = f"What should we do about the fall in {_slice(spec, event)} {_period(event)}?"
            ref, form = f"Respond to its cause. {event.explanation}", "planted-response"
        else:
            text = f"How can we sustain the rise in {_slice(spec, event)} seen {_period(event)}?"
            ref, form = f"Build on what caused it. {event.explanation}", "planted-sustain"
        texts.append((text, ref + _evidence(spec, event), [event.table, str(event.cause.get("table"))], form))
    return [
        _question(
            spec,
            database,
            "type4",
            i,
            text,
            reference_answer=ref,
            tables=tables,
            labels=["corgi:simulated", f"corgi:form:{form}"],
        )
        for i, (text, ref, tables, form) in enumerate(texts)
    ]
