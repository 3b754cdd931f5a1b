"""explanatory: why-questions (type 2) about effects the simulator caused, each reference naming its cause.

Planted events carry their planted cause (a row in another table); seasons, recurring events and weekends the
spec's multiplier and reason; growth the trend and its change; segment and rule consequences the parameters that
make them. Each reference records its hidden parameters and the queries whose rows support it.
"""

from datetime import date

from sqlglot import exp

from biarena.generate import sql_builder as sb
from biarena.generate.corgi_suite.common import (
    DIALECT,
    MONTHS,
    SuiteDraft,
    article,
    count_star,
    data_year,
    hidden_evidence,
    month_bounds,
    monthly_sql,
    numbered,
    percent,
    period,
    planted_evidence,
    planted_windows,
    seasonal_parameters,
    select_from,
    slice_name,
    sql,
    stamp_ref,
    trend_parameters,
    trend_text,
    value_measure,
    value_words,
    weighted_links,
    word_values,
)
from biarena.generate.corgi_suite.parent_rows import link_evidence
from biarena.generate.corgi_suite.rule_questions import rule_questions
from biarena.generate.corgi_suite.spec_roles import fact_tables, noun, stamp_of, words
from biarena.records import Question
from biarena.synth.spec import Spec


def _planted(spec: Spec) -> list[SuiteDraft]:
    out = []
    for event in spec.planted:
        direction = "rise" if event.factor >= 1 else "fall"
        tables = [event.table, str(event.cause.get("table"))]
        evidence = planted_evidence(spec, event)
        if event.kind == "shift":
            larger = "larger" if event.factor >= 1 else "smaller"
            share = f"a {larger} share of {noun(spec, event.table)}"
            text = f"Why did {slice_name(spec, event)} make up {share} {period(event)}?"
            form = "planted-shift-why"
        else:
            text, form = f"Why did {slice_name(spec, event)} {direction} {period(event)}?", "planted-why"
        reference = event.explanation + hidden_evidence(event)
        out.append(SuiteDraft(text, reference, tables, form, evidence, ["corgi:planted"]))
        out.append(
            SuiteDraft(
                f"What happened around {MONTHS[event.start.month]} {event.start.year} that changed our "
                f"{slice_name(spec, event)}?",
                reference,
                tables,
                "planted-what",
                evidence,
                ["corgi:planted"],
            )
        )
        lift = 1 + (event.factor - 1) * spec.slice_share(event)
        for table in event.propagate:
            out.append(
                SuiteDraft(
                    f"Why did {noun(spec, table)} {direction} {period(event)}?",
                    f"They followed the {direction} in {slice_name(spec, event)}: {event.explanation}"
                    + hidden_evidence(event, table, lift),
                    [table, event.table, str(event.cause.get("table"))],
                    "propagation-why",
                    planted_evidence(spec, event, table, lift),
                    ["corgi:planted"],
                )
            )
        measure = value_measure(spec, event.table)
        if event.kind != "shift" and measure:
            less = "more" if event.factor >= 1 else "less"
            out.append(
                SuiteDraft(
                    f"Why did {slice_name(spec, event)} bring in {less} revenue {period(event)} than in the weeks "
                    "before?",
                    f"Because there were {'more' if event.factor >= 1 else 'fewer'} of them, not because each was "
                    f"worth {'more' if event.factor >= 1 else 'less'}: {event.explanation}" + hidden_evidence(event),
                    tables,
                    "planted-value-why",
                    evidence | {"measure": measure},
                    ["corgi:planted"],
                )
            )
        if event.kind != "shift" and word_values(spec, event.table, event.column):
            out.append(
                SuiteDraft(
                    f"Why did the mix of {noun(spec, event.table)} by {words(event.column)} change {period(event)}?",
                    f"{slice_name(spec, event).capitalize()} {'grew' if event.factor >= 1 else 'shrank'} while the "
                    f"rest held their usual level, so their share {'rose' if event.factor >= 1 else 'fell'}: "
                    + event.explanation
                    + hidden_evidence(event),
                    tables,
                    "planted-mix-why",
                    evidence,
                    ["corgi:planted"],
                )
            )
    return out


def _touches(spec: Spec, table: str, month: int) -> bool:
    return any(month in (p.start.month, p.end.month) for p in planted_windows(spec, table))


def _seasons(spec: Spec) -> list[SuiteDraft]:
    out = []
    facts = fact_tables(spec)
    year = data_year(spec)
    parameters = seasonal_parameters(spec)
    for month, factor in sorted(spec.seasonality.months.items()):
        reason = spec.seasonality.reasons.get(month, "the season")
        first, last = month_bounds(year, month)
        for number, table in enumerate(facts):
            if _touches(spec, table, month):
                continue
            evidence = {
                "kind": "seasonal",
                "parameters": {"month": month, "factor": factor, "reason": reason, "seasonality": parameters},
                "window": [first.isoformat(), last.isoformat()],
                "support_sql": [monthly_sql(spec, table, date(year, 1, 1), date(year, 12, 31))],
            }
            direction = "higher" if factor >= 1 else "lower"
            claim = (
                f"Seasonality: {MONTHS[month]} runs at {factor:.2f} times the usual level ({percent(factor)}) "
                f"because of {reason}; the same pattern appears every year, not only in {year}."
            )
            if number == 0:
                text, form = (
                    f"Why were {noun(spec, table)} {direction} in {MONTHS[month]} {year} than in a typical month?",
                    "season-why",
                )
            elif factor >= 1:
                text, form = f"What drives the {MONTHS[month]} peak in our {noun(spec, table)}?", "season-peak-why"
            else:
                text, form = f"Why do our {noun(spec, table)} slow down every {MONTHS[month]}?", "season-dip-why"
            out.append(SuiteDraft(text, claim, [table], form, evidence, ["corgi:seasonal"]))
    for event in spec.seasonality.events:
        for table in facts[:2]:
            first = date(data_year(spec), event.month, event.days[0])
            last = date(data_year(spec), event.month, event.days[1])
            out.append(
                SuiteDraft(
                    f"Why do {noun(spec, table)} jump every year around {MONTHS[event.month]} "
                    f"{event.days[0]}-{event.days[1]}?",
                    f"{event.reason or value_words(event.name)}: activity runs at {event.factor:.2f} times the "
                    f"usual level ({percent(event.factor)}) from {MONTHS[event.month]} {event.days[0]} to "
                    f"{event.days[1]}.",
                    [table],
                    "event-why",
                    {
                        "kind": "seasonal",
                        "parameters": {"event": event.model_dump(mode="json")},
                        "window": [first.isoformat(), last.isoformat()],
                        "support_sql": [monthly_sql(spec, table, first, last)],
                    },
                    ["corgi:seasonal"],
                )
            )
    weekend = spec.seasonality.weekend
    if weekend != 1.0:
        for table in facts[:2]:
            stamp = stamp_of(spec, table) or ""
            direction = "higher" if weekend > 1 else "lower"
            out.append(
                SuiteDraft(
                    f"Why are {noun(spec, table)} {direction} on weekends than on weekdays?",
                    f"Weekend activity runs at {weekend:.2f} times the weekday level ({percent(weekend)}), a weekly "
                    "pattern of this business.",
                    [table],
                    "weekend-why",
                    {
                        "kind": "seasonal",
                        "parameters": {"weekend": weekend},
                        "support_sql": [_per_weekday(table, stamp)],
                    },
                    ["corgi:seasonal"],
                )
            )
    return out


def _trends(spec: Spec) -> list[SuiteDraft]:
    out = []
    phases = sorted(spec.seasonality.trend, key=lambda t: t.since)
    if not phases:
        return out
    year = data_year(spec)
    parameters = {"trend": trend_parameters(spec)}
    quiet = [m for m in range(1, 13) if m not in spec.seasonality.months]
    for number, table in enumerate(fact_tables(spec)):
        support = [monthly_sql(spec, table, spec.start, date(year, 12, 31))]
        evidence = {"kind": "trend", "parameters": parameters, "support_sql": support}
        growth = phases[-1].growth
        out.append(
            SuiteDraft(
                f"Why do we have so many more {noun(spec, table)} now than when we started?",
                f"Steady growth, not a one-off: {trend_text(spec)}; seasonality moves the months around the trend.",
                [table],
                "trend-why",
                evidence,
                ["corgi:trend"],
            )
        )
        for month in [m for m in quiet if not _touches(spec, table, m)][number : number + 2]:
            first, last = month_bounds(year - 1, month)
            out.append(
                SuiteDraft(
                    f"Why were {noun(spec, table)} {'higher' if growth >= 0 else 'lower'} in {MONTHS[month]} {year} "
                    f"than in {MONTHS[month]} {year - 1}?",
                    f"A year of growth: {trend_text(spec)}. {MONTHS[month]} has no seasonal or planted "
                    "effect of its own, so the difference is a year of growth.",
                    [table],
                    "yoy-why",
                    evidence
                    | {
                        "window": [first.isoformat(), month_bounds(year, month)[1].isoformat()],
                        "support_sql": [
                            monthly_sql(spec, table, first, last),
                            monthly_sql(spec, table, *month_bounds(year, month)),
                        ],
                    },
                    ["corgi:trend"],
                )
            )
        if len(phases) > 1:
            now, before = phases[-1], phases[-2]
            change = "slowed" if now.growth < before.growth else "picked up"
            out.append(
                SuiteDraft(
                    f"Why has growth in {noun(spec, table)} {change} since {MONTHS[now.since.month]} {now.since.year}?",
                    f"A change of trend: {now.reason or 'the market changed'}; growth went from about "
                    f"{before.growth * 100:+.0f}% to {now.growth * 100:+.0f}% a year from {now.since.isoformat()}.",
                    [table],
                    "trend-change-why",
                    evidence | {"window": [now.since.isoformat(), None]},
                    ["corgi:trend"],
                )
            )
    return out


def _segments(spec: Spec) -> list[SuiteDraft]:
    out = []
    for link in weighted_links(spec):
        table, parent, by, weights = link.table, link.parent, link.by, link.weights
        top, low, rates = link.top, link.low, link.rates
        many, few = article(value_words(top)), article(value_words(low))
        times = f"{weights[top] / weights[low]:.1f} times as many {noun(spec, table)} as {few} one"
        evidence = link_evidence(link)
        out.append(
            SuiteDraft(
                f"Why do {value_words(top)} {noun(spec, parent)} account for a larger share of {noun(spec, table)} "
                f"than of {noun(spec, parent)}?",
                f"Behaviour differs by {words(by)}: {many} {words(parent)} generates "
                f"{times} (relative rates: {rates}).",
                [table, parent],
                "segment-why",
                evidence,
                ["corgi:segment"],
            )
        )
        out.append(
            SuiteDraft(
                f"Why do a few of our {noun(spec, parent)} seem to produce most of our {noun(spec, table)}?",
                f"They are mostly {value_words(top)} {noun(spec, parent)}: each generates about "
                f"{times} (relative rates: {rates}).",
                [table, parent],
                "concentration-why",
                evidence,
                ["corgi:segment"],
            )
        )
    return out


def _per_weekday(table: str, stamp: str) -> str:
    """Rows per day of the week (0 Sunday to 6 Saturday)."""
    weekday = sb.day_of_week(stamp_ref(stamp), DIALECT)
    query = select_from(table, exp.alias_(weekday, "weekday"), count_star()).group_by(weekday.copy())
    return sql(query.order_by(exp.column("weekday")))


def explanatory(spec: Spec, database: str) -> list[Question]:
    """Why-questions with references from the simulator: planted causes, seasons, trend, segments, rules."""
    drafts = [*_planted(spec), *_seasons(spec), *_trends(spec), *_segments(spec), *rule_questions(spec)]
    return numbered(spec, database, "type2", drafts)
