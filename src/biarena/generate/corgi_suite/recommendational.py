"""recommendational: what-should-we-do questions (type 4) about levers the simulator's rules make real.

Timing rests on the seasons and recurring events, segments on the generating weights, slices on what the data
favours over the last year (sums only of value measures: money, or counting rows), policies on the rules, and
responses to planted events on their causes. Each reference states what the data supports.
"""

from datetime import date

from sqlglot import exp

from biarena.db import Database
from biarena.generate import sql_builder as sb
from biarena.generate.corgi_suite.common import (
    DIALECT,
    MONTHS,
    SuiteDraft,
    col,
    condition,
    count_star,
    day_between,
    hidden_evidence,
    is_definition,
    is_value,
    last_year,
    month_bounds,
    monthly_sql,
    next_months,
    numbered,
    operating_rules,
    percent,
    period,
    planted_evidence,
    rate,
    seasonal_parameters,
    select_from,
    slice_name,
    sql,
    trend_text,
    value_words,
    weight_of,
)
from biarena.generate.corgi_suite.segment_questions import segment_questions
from biarena.generate.corgi_suite.spec_roles import fact_tables, noun, stamp_of, words
from biarena.records import Question
from biarena.synth.spec import Spec


def _timing(spec: Spec) -> list[SuiteDraft]:
    """When to promote, add capacity, launch, save, staff and discount (from the seasons and the weekend level), and
    how to prepare for the recurring events."""
    out = []
    first, last = last_year(spec)
    parameters = {"seasonality": seasonal_parameters(spec)}
    for number, table in enumerate(fact_tables(spec)):
        evidence = {
            "kind": "seasonal",
            "parameters": parameters,
            "support_sql": [monthly_sql(spec, table, first, last)],
        }
        if spec.seasonality.months:
            out += _month_timing(spec, table, number, evidence)
        out += _weekday_timing(spec, table, number, evidence)
    for event in spec.seasonality.events:
        table = fact_tables(spec, 1)[0]
        out.append(
            SuiteDraft(
                f"How should we prepare for {event.reason or value_words(event.name)} next year?",
                f"Plan for {noun(spec, table)} at about {percent(event.factor)} on their usual level from "
                f"{MONTHS[event.month]} {event.days[0]} to {event.days[1]}, on top of the trend ({trend_text(spec)}), "
                "with staff and stock in place before the first day.",
                [table],
                "event-prep",
                {
                    "kind": "seasonal",
                    "parameters": {"event": event.model_dump(mode="json")},
                    "support_sql": [monthly_sql(spec, table, first, last)],
                },
            )
        )
    return out


def _month_timing(spec: Spec, table: str, number: int, evidence: dict) -> list[SuiteDraft]:
    """When to promote, add capacity, launch (for the first fact table) and save, from the monthly levels."""
    out = []
    months = spec.seasonality.months
    reasons = spec.seasonality.reasons
    things = noun(spec, table)
    low, high = min(months, key=months.get), max(months, key=months.get)
    out.append(
        SuiteDraft(
            f"When should we run a promotion to lift {things} in our slowest period?",
            f"In {MONTHS[low]}, the weakest month ({percent(months[low])}, {reasons.get(low, 'seasonal')}), "
            "to fill the seasonal trough.",
            [table],
            "promotion-timing",
            evidence,
        )
    )
    out.append(
        SuiteDraft(
            f"When should we add capacity or staff to handle {things}?",
            f"Before {MONTHS[high]}, the peak month ({percent(months[high])}, {reasons.get(high, 'seasonal')})"
            + "".join(
                f", and for {e.reason or e.name} ({MONTHS[e.month]} {e.days[0]}-{e.days[1]}, {percent(e.factor)})"
                for e in spec.seasonality.events
            )
            + ".",
            [table],
            "capacity-timing",
            evidence,
        )
    )
    if number == 0:
        ahead = MONTHS[high - 1 if high > 1 else 12]
        out.append(
            SuiteDraft(
                f"When should we launch a campaign to reach the most people with our {things}?",
                f"In {ahead}, just before the {MONTHS[high]} peak ({percent(months[high])}, "
                f"{reasons.get(high, 'seasonal')}), so the campaign rides the season's rising demand.",
                [table],
                "launch-timing",
                evidence,
            )
        )
        out.append(
            SuiteDraft(
                f"Where can we save on running costs for {things} during the year's quietest stretch?",
                f"Scale capacity down in {MONTHS[low]} ({percent(months[low])}, "
                f"{reasons.get(low, 'seasonal')})"
                + "".join(f" and {MONTHS[m]} ({percent(f)})" for m, f in sorted(months.items()) if f < 1 and m != low)
                + ", when demand is below its usual level, and bring it back before the busy months.",
                [table],
                "trough-savings",
                evidence,
            )
        )
    return out


def _weekday_timing(spec: Spec, table: str, number: int, evidence: dict) -> list[SuiteDraft]:
    """Which days to staff and (for the first fact table) to discount, from the weekend level."""
    out: list[SuiteDraft] = []
    things = noun(spec, table)
    weekend = spec.seasonality.weekend
    if weekend != 1.0:
        busier, quieter = ("weekends", "weekdays") if weekend > 1 else ("weekdays", "weekends")
        days_evidence = evidence | {"parameters": {"weekend": weekend}}
        out.append(
            SuiteDraft(
                f"Should we schedule more support for {things} on weekends or on weekdays?",
                f"On {busier}: weekend activity runs at {weekend:.2f} times the weekday level ({percent(weekend)}).",
                [table],
                "staffing-days",
                days_evidence,
            )
        )
        if number == 0:
            out.append(
                SuiteDraft(
                    f"Should we run discounts on {things} on weekends or on weekdays?",
                    f"On {quieter}, the quieter days (weekend activity is {weekend:.2f} times the weekday level, "
                    f"{percent(weekend)}), where spare capacity costs least to fill.",
                    [table],
                    "discount-days",
                    days_evidence,
                )
            )
    return out


def _growth(spec: Spec, db: Database) -> list[SuiteDraft]:
    out = []
    year = next_months(spec, 1)[0][0]
    ratio = weight_of(spec, date(year, 1, 1), date(year, 12, 31)) / weight_of(
        spec, date(year - 1, 1, 1), date(year - 1, 12, 31)
    )
    _, last = last_year(spec)
    weights = {m: weight_of(spec, *month_bounds(year, m)) for m in range(1, 13)}
    peak = max(weights, key=weights.get)
    for number, table in enumerate(fact_tables(spec, 2)):
        things = noun(spec, table)
        base = rate(spec, db, table)
        parameters = {"seasonality": seasonal_parameters(spec), "rate_per_weighted_day": round(base, 4)}
        support = [monthly_sql(spec, table, spec.start, last)]
        out.append(
            SuiteDraft(
                f"How many {things} a month should we be ready to handle at next year's peak?",
                f"About {base * weights[peak]:,.0f} in {MONTHS[peak]} {year}, the busiest month (the average month "
                f"brings about {base * sum(weights.values()) / 12:,.0f}); {trend_text(spec)}.",
                [table],
                "peak-capacity",
                {
                    "kind": "forecast",
                    "expected": round(base * weights[peak], 2),
                    "tolerance": 0.10,
                    "parameters": parameters | {"month_weights": {str(k): round(v, 3) for k, v in weights.items()}},
                    "support_sql": support,
                },
            )
        )
        if number == 0:
            quarter = {(y, m): weight_of(spec, *month_bounds(y, m)) for y, m in next_months(spec, 3)}
            total = sum(quarter.values()) or 1.0
            split = ", ".join(f"{MONTHS[m]} {w / total * 100:.0f} in 100" for (_, m), w in quarter.items())
            out.append(
                SuiteDraft(
                    f"How should we split next quarter's marketing budget for {things} across its months?",
                    f"In proportion to expected demand: {split}, following the seasonal level of each month and the "
                    "trend; more than an even split goes to the stronger months.",
                    [table],
                    "budget-split",
                    {"kind": "seasonal", "parameters": parameters, "support_sql": support},
                )
            )
        out.append(
            SuiteDraft(
                f"How much should we grow our capacity for {noun(spec, table)} next year?",
                f"By about {percent(ratio)} over {year - 1}: {trend_text(spec)}; plan the extra capacity for the "
                "seasonal peaks rather than spread evenly.",
                [table],
                "growth-plan",
                {
                    "kind": "trend",
                    "expected": round(ratio - 1, 4),
                    "parameters": {"seasonality": seasonal_parameters(spec)},
                    "support_sql": [monthly_sql(spec, table, spec.start, last)],
                },
            )
        )
    return out


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


def _policies(spec: Spec, db: Database) -> list[SuiteDraft]:
    out = []
    first, last = last_year(spec)
    for rule in operating_rules(spec):
        if not is_value(spec, rule.table, rule.column) or is_definition(rule):
            continue
        stamp = stamp_of(spec, rule.table)
        branches = rule.branches()
        # branches by their order, not their thresholds: a policy threshold stated in the briefing is no finding
        labels = [f"its {_ORDINALS[min(n, len(_ORDINALS) - 1)]} case" for n in range(len(branches))]
        case = exp.Case()
        for number, branch in enumerate(branches):
            case = case.when(condition(branch.when), exp.Literal.number(number))
        case = case.else_(exp.Literal.number(len(branches)))
        columns = [exp.alias_(case, "branch"), count_star()]
        if is_value(spec, rule.table, rule.column):
            columns.append(exp.alias_(sb.rounded(exp.Sum(this=col(rule.column)), 2, DIALECT), "total"))
        query = select_from(rule.table, *columns)
        if stamp:
            query = query.where(day_between(stamp, first, last))
        query = query.group_by(case.copy()).order_by(exp.column("branch"))
        rows = {row[0]: row[1:] for row in db.execute(sql(query)).rows}
        everyone = sum(r[0] for r in rows.values()) or 1
        parts = []
        for number, label in enumerate([*labels, "all other " + noun(spec, rule.table)]):
            n, *total = rows.get(number, (0,))
            money = f", {words(rule.column)} {total[0]:,.0f}" if total and total[0] is not None else ""
            parts.append(f"{label}: {n:,} ({n / everyone * 100:.0f} in 100{money})")
        when = "in the last twelve months" if stamp else "in all"
        out.append(
            SuiteDraft(
                f"Should we keep our {value_words(rule.name)} policy as it is?",
                f"Weigh what each branch of it touches {when} ({'; '.join(parts)}): keep it where the branch brings "
                "more than it costs, and test a change on one branch first rather than everywhere at once.",
                [rule.table],
                "policy-review",
                {
                    "kind": "rule",
                    "parameters": {"rule": rule.model_dump(mode="json"), "cases": [c.when for c in branches]},
                    "window": [first.isoformat(), last.isoformat()] if stamp else None,
                    "support_sql": [sql(query)],
                },
            )
        )
    return out


def _planted(spec: Spec) -> list[SuiteDraft]:
    out = []
    for event in spec.planted:
        evidence = planted_evidence(spec, event)
        tables = [event.table, str(event.cause.get("table"))]
        if event.kind == "shift":
            text = f"How should we respond to the shift toward {slice_name(spec, event)} {period(event)}?"
            ref, form = f"Plan for the new mix and address its cause. {event.explanation}", "planted-mix"
        elif event.factor < 1:
            text = f"What should we do about the fall in {slice_name(spec, event)} {period(event)}?"
            ref, form = f"Respond to its cause. {event.explanation}", "planted-response"
        else:
            text = f"How can we sustain the rise in {slice_name(spec, event)} seen {period(event)}?"
            ref, form = f"Build on what caused it. {event.explanation}", "planted-sustain"
        out.append(SuiteDraft(text, ref + hidden_evidence(event), tables, form, evidence))
        out.append(
            SuiteDraft(
                f"What should we watch so that a change like the one in {slice_name(spec, event)} {period(event)} "
                "does not take us by surprise again?",
                f"Watch the records of what caused it ({noun(spec, str(event.cause['table']))}) and the weekly "
                f"{slice_name(spec, event)} against the weeks before. {event.explanation}" + hidden_evidence(event),
                tables,
                "planted-monitor",
                evidence,
            )
        )
    return out


def recommendational(spec: Spec, db: Database, database: str) -> list[Question]:
    """What-should-we-do questions: timing, growth, segments, policies and responses to planted events."""
    drafts = [*_timing(spec), *_growth(spec, db), *segment_questions(spec, db), *_policies(spec, db), *_planted(spec)]
    for draft in drafts:
        draft.labels = ["corgi:simulated"]
    return numbered(spec, database, "type4", drafts)
