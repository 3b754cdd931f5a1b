"""The evidence of a CORGI forecast: the expected count or value from the simulator's rate, trend and seasons, what
it is measured on, and what a naive forecast (the same period a year earlier) would say."""

from datetime import date
from typing import Any

from sqlglot import exp

from biarena.db import Database
from biarena.generate import sql_builder as sb
from biarena.generate.corgi_suite.common import (
    DIALECT,
    col,
    count_star,
    day_between,
    last_year,
    lit,
    month_bounds,
    next_months,
    per_day_sql,
    quiet_condition,
    seasonal_parameters,
    select_from,
    sql,
    stamp_ref,
    weight_of,
)
from biarena.generate.corgi_suite.spec_roles import stamp_of
from biarena.synth.spec import Spec

TOLERANCE = 0.10
"""Relative tolerance of a count or value forecast."""


def year_before(day: date) -> date:
    return day.replace(year=day.year - 1, day=min(day.day, 28) if day.month == 2 else day.day)


def naive_sql(
    spec: Spec,
    table: str,
    first: date,
    last: date,
    measure: exp.Expression | None = None,
    where: exp.Expression | None = None,
) -> str:
    """The same period a year earlier: what a naive forecast would say (COUNT(*) unless another measure)."""
    stamp = stamp_of(spec, table) or ""
    window = day_between(stamp, year_before(first), year_before(last))
    query = select_from(table, measure if measure is not None else sb.count_rows())
    return sql(query.where(exp.and_(window, where) if where is not None else window))


def average_sql(table: str, column: str, stamp: str, window: tuple[date, date]) -> str:
    """The average of a column over a window of days."""
    return sql(select_from(table, exp.Avg(this=col(column))).where(day_between(stamp, *window)))


def count_forecast(
    spec: Spec, table: str, base: float, first: date, last: date, *, share: float = 1.0, **extra: Any
) -> tuple[float, dict[str, Any]]:
    """The expected rows of a table in [first, last] and the evidence that gives them."""
    weight = weight_of(spec, first, last)
    expected = base * weight * share
    parameters = {
        "rate_per_weighted_day": round(base, 4),
        "weight": round(weight, 4),
        "share": round(share, 4),
        "seasonality": seasonal_parameters(spec),
    }
    evidence = forecast_evidence(
        round(expected, 2), parameters, [rate_sql(spec, table)], tolerance=TOLERANCE, window=(first, last)
    ) | {"naive_sql": naive_sql(spec, table, first, last)}
    evidence.update(extra)
    return expected, evidence


def slice_forecast(
    spec: Spec, table: str, base: float, first: date, last: date, share: float, where: exp.Expression
) -> tuple[float, dict[str, Any]]:
    """The expected rows of a slice of a table (its `share`, the rows `where` holds) in [first, last], and the
    evidence, with the naive forecast counting the slice a year earlier."""
    naive = naive_sql(spec, table, first, last, where=where)
    return count_forecast(spec, table, base, first, last, share=share, naive_sql=naive)


def rate_sql(spec: Spec, table: str) -> str:
    """The last year's rows the rate is measured on."""
    first, last = last_year(spec)
    stamp = stamp_of(spec, table) or ""
    month = sb.month_label(stamp_ref(stamp), DIALECT)
    query = select_from(table, exp.alias_(month, "month"), count_star()).where(
        exp.and_(day_between(stamp, first, last), quiet_condition(spec, table))
    )
    return sql(query.group_by(month.copy()).order_by(exp.column("month")))


def recurring_days_sql(table: str, stamp: str, month: int, days: tuple[int, int] | list[int]) -> str:
    """Rows per day on a recurring event's days (a month and a range of its days, every year)."""
    ref = stamp_ref(stamp)
    on_days = exp.and_(
        exp.EQ(this=sb.date_part(ref, "month", DIALECT), expression=lit(month)),
        exp.Between(this=sb.date_part(ref, "day", DIALECT), low=lit(days[0]), high=lit(days[1])),
    )
    return per_day_sql(table, stamp, on_days)


def forecast_evidence(
    expected: Any,
    parameters: dict[str, Any],
    support_sql: list[str],
    *,
    tolerance: float | None = None,
    unit: str | None = None,
    window: tuple[date, date] | None = None,
) -> dict[str, Any]:
    """A forecast's evidence: what is expected (within what), over which days, from which parameters and rows."""
    evidence: dict[str, Any] = {"kind": "forecast", "expected": expected}
    if tolerance is not None:
        evidence["tolerance"] = tolerance
    if unit is not None:
        evidence["tolerance_unit"] = unit
    if window is not None:
        evidence["window"] = [window[0].isoformat(), window[1].isoformat()]
    return evidence | {"parameters": parameters, "support_sql": support_sql}


def value_forecast(
    spec: Spec, db: Database, table: str, base: float, column: str, key: str
) -> tuple[int, int, float, float, dict[str, Any]]:
    """Next month's total of `column`: (year, month, expected rows, the last year's average, evidence); the column
    is named in the evidence's parameters under `key`."""
    average = float(
        db.execute(average_sql(table, column, stamp_of(spec, table) or "", last_year(spec))).rows[0][0] or 0
    )
    year, month = next_months(spec, 1)[0]
    first, last = month_bounds(year, month)
    expected, evidence = count_forecast(spec, table, base, first, last)
    return (
        year,
        month,
        expected,
        average,
        evidence
        | {
            "expected": round(expected * average, 2),
            "naive_sql": naive_sql(spec, table, first, last, exp.Sum(this=col(column))),
            "parameters": evidence["parameters"] | {"average": round(average, 4), key: column},
        },
    )


def about(expected: float, tolerance: float = TOLERANCE) -> str:
    return f"About {expected:,.0f} (tolerance ±{tolerance * 100:.0f}%)."
