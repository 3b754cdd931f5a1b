"""predictive: forecasts (type 3) whose references come from the simulator's generating process.

A count is the simulator's rate over the last year (rows per unit of seasonal weight, planted windows left out)
times the weight of the days asked about (trend x month x weekday x recurring events); a slice's count takes its
generating share of that. A naive guess (the same period a year earlier) misses by a year of growth, which each
forecast records as `naive_sql` so the audit can measure it.
"""

from datetime import date

from sqlglot import exp

from biarena.db import Database
from biarena.generate.corgi_suite.common import (
    MONTHS,
    SuiteDraft,
    col,
    count_star,
    dimensions,
    last_year,
    lit,
    measure_words,
    month_bounds,
    next_months,
    numbered,
    percent,
    period,
    quiet_condition,
    rate,
    seasonal_parameters,
    select_from,
    shares,
    slice_condition,
    slice_name,
    sql,
    trend_text,
    value_measure,
    value_words,
    weight_of,
)
from biarena.generate.corgi_suite.forecast_evidence import (
    TOLERANCE,
    about,
    average_sql,
    count_forecast,
    forecast_evidence,
    rate_sql,
    recurring_days_sql,
    slice_forecast,
    value_forecast,
)
from biarena.generate.corgi_suite.spec_roles import fact_tables, metric_columns, noun, stamp_of, words
from biarena.records import Question
from biarena.synth.calendar import days, density
from biarena.synth.spec import Spec


def _totals(spec: Spec, db: Database, table: str, base: float) -> list[SuiteDraft]:
    """Counts and values for coming months, the next quarter and the next year."""
    out = []
    things = noun(spec, table)
    upcoming = next_months(spec, 3)
    for year, month in upcoming:
        first, last = month_bounds(year, month)
        expected, evidence = count_forecast(spec, table, base, first, last)
        out.append(
            SuiteDraft(
                f"How many {things} should we expect in {MONTHS[month]} {year}?",
                f"{about(expected)} Trend times season: over the last twelve months the business ran at "
                f"{base:.1f} {things} per weighted day; {trend_text(spec)}; {MONTHS[month]} {year}'s days weigh "
                f"{evidence['parameters']['weight']:.1f} in all (trend, month, weekday and recurring events included).",
                [table],
                "forecast-count",
                evidence,
            )
        )
    year = upcoming[0][0]
    quarter = (upcoming[0][1] - 1) // 3
    first, last = month_bounds(year, quarter * 3 + 1)[0], month_bounds(year, quarter * 3 + 3)[1]
    expected, evidence = count_forecast(spec, table, base, first, last)
    out.append(
        SuiteDraft(
            f"How many {things} should we plan for in the {('first', 'second', 'third', 'fourth')[quarter]} quarter "
            f"of {year}?",
            f"{about(expected)} The last year's rate ({base:.1f} per weighted day) carried forward on the trend "
            f"and each month's seasonal level; {trend_text(spec)}.",
            [table],
            "forecast-quarter",
            evidence,
        )
    )
    first, last = date(year, 1, 1), date(year, 12, 31)
    expected, evidence = count_forecast(spec, table, base, first, last)
    out.append(
        SuiteDraft(
            f"How many {things} should we expect over {year} as a whole?",
            f"{about(expected)} The last year's rate carried through {year}: {trend_text(spec)}; seasons and "
            "recurring events shift volume between months but not the year's total.",
            [table],
            "forecast-year",
            evidence,
        )
    )
    measure = value_measure(spec, table)
    if measure:
        year, month, expected, average, evidence = value_forecast(spec, db, table, base, measure, "measure")
        out.append(
            SuiteDraft(
                f"What total {measure_words(measure)} should we expect from {things} in {MONTHS[month]} {year}?",
                f"About {expected * average:,.0f}: about {expected:,.0f} {things} times the recent average "
                f"{measure_words(measure)} of {average:,.2f} (tolerance ±{TOLERANCE * 100:.0f}%).",
                [table],
                "forecast-value",
                evidence,
            )
        )
        column = spec.tables[table].columns[measure]
        out.append(
            SuiteDraft(
                f"What average {measure_words(measure)} per {things.removesuffix('s')} should we plan on for "
                f"{MONTHS[month]} {year}?",
                f"About {average:,.2f} (tolerance ±5%): the amounts do not follow the seasons, so the last year's "
                "average carries forward.",
                [table],
                "forecast-average",
                forecast_evidence(
                    round(average, 4),
                    {"column": column.model_dump(mode="json", exclude_none=True)},
                    [average_sql(table, measure, stamp_of(spec, table) or "", last_year(spec))],
                    tolerance=0.05,
                    window=month_bounds(year, month),
                ),
            )
        )
    return out


def _growth(spec: Spec, table: str, base: float) -> list[SuiteDraft]:
    """Year-on-year change, the coming year's peak and quietest month, the weekend share."""
    out = []
    things = noun(spec, table)
    year = next_months(spec, 1)[0][0]
    this = weight_of(spec, date(year, 1, 1), date(year, 12, 31))
    before = weight_of(spec, date(year - 1, 1, 1), date(year - 1, 12, 31))
    parameters = {"seasonality": seasonal_parameters(spec), "rate_per_weighted_day": round(base, 4)}
    out.append(
        SuiteDraft(
            f"By how much should our {things} grow in {year} compared with {year - 1}?",
            f"About {percent(this / before)} over the year (tolerance ±3 points): {trend_text(spec)}.",
            [table],
            "forecast-growth",
            forecast_evidence(
                round(this / before - 1, 4),
                parameters | {"weight_this_year": this, "weight_year_before": before},
                [rate_sql(spec, table)],
                tolerance=0.03,
                unit="points",
            ),
        )
    )
    weights = {m: weight_of(spec, *month_bounds(year, m)) for m in range(1, 13)}
    for pick, word, form in ((max, "busiest", "forecast-peak-month"), (min, "quietest", "forecast-quiet-month")):
        month = pick(weights, key=weights.get)
        out.append(
            SuiteDraft(
                f"Which month of {year} should be our {word} for {things}?",
                f"{MONTHS[month]}, with about {base * weights[month]:,.0f} {things}: the seasonal level of "
                f"{MONTHS[month]} on top of the trend; {trend_text(spec)}.",
                [table],
                form,
                forecast_evidence(
                    MONTHS[month],
                    parameters | {"month_weights": {str(k): round(v, 3) for k, v in weights.items()}},
                    [rate_sql(spec, table)],
                ),
            )
        )
    out.append(_weekend_share(spec, table))
    year_ahead, month = next_months(spec, 3)[2]
    first, last = month_bounds(year_ahead, month)
    ratio = weight_of(spec, first, last) / weight_of(spec, *month_bounds(year_ahead - 1, month))
    out.append(
        SuiteDraft(
            f"How much higher than a year earlier should our {things} be in {MONTHS[month]} {year_ahead}?",
            f"About {percent(ratio)} (tolerance ±5 points): a year of growth; {trend_text(spec)}; the month's "
            "seasonal level is the same both years.",
            [table],
            "forecast-yoy",
            forecast_evidence(
                round(ratio - 1, 4),
                parameters,
                [rate_sql(spec, table)],
                tolerance=0.05,
                unit="points",
                window=(first, last),
            ),
        )
    )
    return out


def _weekend_share(spec: Spec, table: str) -> SuiteDraft:
    """The share of a table's rows the month after next should bring on weekends."""
    things = noun(spec, table)
    next_year, month = next_months(spec, 2)[1]
    first, last = month_bounds(next_year, month)
    span = days(first, last)
    weight = density(span, spec.seasonality)
    weekend = float(sum(w for d, w in zip(span, weight, strict=True) if d.weekday() >= 5) / weight.sum())
    return SuiteDraft(
        f"What share of our {things} in {MONTHS[month]} {next_year} should fall on weekends?",
        f"About {weekend * 100:.1f}% (tolerance ±3 points): the month's weekend days weighted by the weekend "
        "level against its weekdays.",
        [table],
        "forecast-weekend-share",
        forecast_evidence(
            round(weekend, 4),
            {"weekend": spec.seasonality.weekend},
            [rate_sql(spec, table)],
            tolerance=0.03,
            unit="points",
            window=(first, last),
        ),
    )


def _slices(spec: Spec, table: str, base: float) -> list[SuiteDraft]:
    """Counts of a slice of the table: a category value, or the rows of a segment of a parent."""
    out = []
    things = noun(spec, table)
    year, month = next_months(spec, 2)[1]
    first, last = month_bounds(year, month)
    for dim in dimensions(spec, table)[:2]:
        generating = shares(spec, table, dim)
        value = max(generating, key=generating.get)
        share = generating[value]
        where = exp.EQ(this=col(dim), expression=lit(value))
        expected, evidence = slice_forecast(spec, table, base, first, last, share, where)
        out.append(
            SuiteDraft(
                f"How many {value_words(value)} {things} should we expect in {MONTHS[month]} {year}?",
                f"{about(expected)} The month's expected {things} times the usual share of {value_words(value)} "
                f"among them ({share * 100:.1f} in 100).",
                [table],
                "forecast-slice",
                evidence,
            )
        )
        low = min(generating, key=generating.get)
        out.append(
            SuiteDraft(
                f"What share of our {things} in {MONTHS[month]} {year} should "
                + (f"be {value_words(low)}?" if dim == "status" else f"have {value_words(low)} as their {words(dim)}?"),
                f"About {generating[low] * 100:.1f}% (tolerance ±3 points): the usual mix holds; no planned change "
                "moves it.",
                [table],
                "forecast-mix",
                forecast_evidence(
                    round(generating[low], 4),
                    {"column": dim, "shares": generating},
                    [_mix_sql(spec, table, dim)],
                    tolerance=0.03,
                    unit="points",
                    window=(first, last),
                ),
            )
        )
    for name, column in spec.tables[table].columns.items():
        if not (column.kind == "foreign" and column.weight and column.ref):
            continue
        parent, key = column.ref.split(".")
        by = column.weight["column"]
        weights = {str(k): float(v) for k, v in column.weight["values"].items()}
        population = shares(spec, parent, by)
        total = sum(weights.get(k, 0.0) * s for k, s in population.items()) or 1.0
        top = max(weights, key=weights.get)
        share = weights[top] * population.get(top, 0.0) / total
        parents = select_from(parent, col(key)).where(exp.EQ(this=col(by), expression=lit(top)))
        where = exp.In(this=col(name), query=exp.Subquery(this=parents))
        expected, evidence = slice_forecast(spec, table, base, first, last, share, where)
        evidence["parameters"] |= {"weights": weights, "population": population}
        out.append(
            SuiteDraft(
                f"How many {things} should we expect from {value_words(top)} {noun(spec, parent)} in "
                f"{MONTHS[month]} {year}?",
                f"{about(expected)} {value_words(top).capitalize()} {noun(spec, parent)} are "
                f"{population.get(top, 0) * 100:.1f} in 100 of {noun(spec, parent)} but, each being more active, "
                f"bring {share * 100:.1f} in 100 of {things}.",
                [table, parent],
                "forecast-segment",
                evidence,
            )
        )
    return out


def _mix_sql(spec: Spec, table: str, dim: str) -> str:
    """The rows of each value of a dimension outside planted windows: the usual mix."""
    query = select_from(table, col(dim), count_star()).where(quiet_condition(spec, table))
    return sql(query.group_by(col(dim)).order_by(col(dim)))


def _events(spec: Spec, db: Database, table: str, base: float) -> list[SuiteDraft]:
    """Recurring events next year, and planted slices back at their usual level."""
    out = []
    things = noun(spec, table)
    year = next_months(spec, 1)[0][0]
    for event in spec.seasonality.events:
        first, last = date(year, event.month, event.days[0]), date(year, event.month, event.days[1])
        expected, evidence = count_forecast(spec, table, base, first, last)
        evidence["parameters"] |= {"event": event.model_dump(mode="json")}
        out.append(
            SuiteDraft(
                f"How many {things} should we expect over {MONTHS[event.month]} {event.days[0]}-{event.days[1]}, "
                f"{year} ({event.reason or value_words(event.name)})?",
                f"{about(expected)} Those days run at {event.factor:.2f} times their usual level "
                f"({percent(event.factor)}), as every year, on top of the trend.",
                [table],
                "forecast-event-count",
                evidence,
            )
        )
        if table == fact_tables(spec, 1)[0]:
            out.append(
                SuiteDraft(
                    f"How much busier than usual will {things} be around {MONTHS[event.month]} "
                    f"{event.days[0]}-{event.days[1]} next year?",
                    f"About {percent(event.factor)} on those days (tolerance ±5 points), as every year "
                    f"({event.reason or value_words(event.name)}).",
                    [table],
                    "forecast-event",
                    forecast_evidence(
                        round(event.factor - 1, 4),
                        {"event": event.model_dump(mode="json")},
                        [recurring_days_sql(table, stamp_of(spec, table) or "", event.month, event.days)],
                        tolerance=0.05,
                        unit="points",
                    ),
                )
            )
    for event in spec.planted:
        if event.table != table or event.kind == "shift":
            continue
        year, month = next_months(spec, 1)[0]
        first, last = month_bounds(year, month)
        share = spec.slice_share(event)
        expected, evidence = slice_forecast(spec, table, base, first, last, share, slice_condition(event))
        evidence["parameters"] |= {"planted": event.name, "window": [event.start.isoformat(), event.end.isoformat()]}
        out.append(
            SuiteDraft(
                f"How many {slice_name(spec, event)} should we expect in {MONTHS[month]} {year}, now that the "
                f"{'rise' if event.factor >= 1 else 'fall'} seen {period(event)} is over?",
                f"{about(expected)} The change ended with its window, so {slice_name(spec, event)} return to "
                f"their usual share of {things} ({share * 100:.1f} in 100) on the trend.",
                [table],
                "forecast-recovery",
                evidence,
            )
        )
    ruled = [r.column for r in spec.rules if r.table == table and r.column in metric_columns(spec, table)]
    for column in dict.fromkeys(ruled):
        year, month, expected, average, evidence = value_forecast(spec, db, table, base, column, "column")
        out.append(
            SuiteDraft(
                f"What will the {words(column)} on our {things} come to in {MONTHS[month]} {year}?",
                f"About {expected * average:,.0f} (tolerance ±{TOLERANCE * 100:.0f}%): about {expected:,.0f} "
                f"{things}, and the rule that sets the {words(column)} gives {average:,.2f} per row on average.",
                [table],
                "forecast-rule-value",
                evidence,
            )
        )
    return out


def predictive(spec: Spec, db: Database, database: str) -> list[Question]:
    """Forecasts of counts, values, shares and timing, from the simulator's rate, trend and seasons."""
    drafts: list[SuiteDraft] = []
    for number, table in enumerate(fact_tables(spec)):
        base = rate(spec, db, table)
        drafts += _totals(spec, db, table, base)
        if number < 2:
            drafts += _growth(spec, table, base)
        drafts += _slices(spec, table, base)
        drafts += _events(spec, db, table, base)
    for draft in drafts:
        draft.labels = ["corgi:simulated"]
    return numbered(spec, database, "type3", drafts)
