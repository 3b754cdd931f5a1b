"""Calendar questions of CORGI's type 1: the main fact tables counted by month, quarter and year, recently, from
month to month and on weekends, each with gold SQL."""

from datetime import date

from sqlglot import exp

from biarena.generate import sql_builder as sb
from biarena.generate.corgi_suite.common import (
    DIALECT,
    SuiteDraft,
    count_star,
    day_between,
    lit,
    month_bounds,
    select_from,
    stamp_ref,
)
from biarena.generate.corgi_suite.gold_drafts import gold_draft, last_days, percent_of
from biarena.generate.corgi_suite.spec_roles import fact_tables, noun, stamp_of
from biarena.synth.spec import Spec


def calendar_questions(spec: Spec, year: int) -> list[SuiteDraft]:
    """Counts of the two main fact tables by month, quarter and year, recently, and their change and weekend share."""
    out = []
    for table in fact_tables(spec, 2):
        out += _period_counts(spec, table, year)
        out += _recent_counts(spec, table, year)
    return out


def _period_counts(spec: Spec, table: str, year: int) -> list[SuiteDraft]:
    """A table's busiest and quietest month of the year, its monthly and quarterly counts, and the year against the
    one before."""
    out = []
    first, last = date(year, 1, 1), date(year, 12, 31)
    stamp = stamp_of(spec, table) or ""
    things = noun(spec, table)
    ref = stamp_ref(stamp)
    month = sb.month_label(ref, DIALECT)
    monthly = (
        select_from(table, exp.alias_(month, "month"), count_star())
        .where(day_between(stamp, first, last))
        .group_by(month.copy())
    )
    for desc, extreme, form in ((True, "most", "busiest-month"), (False, "fewest", "quietest-month")):
        out.append(
            gold_draft(
                f"Which month of {year} had the {extreme} {things}, and how many?",
                monthly.order_by(exp.Ordered(this=exp.column("n"), desc=desc)).limit(1),
                [table],
                form,
            )
        )
    out.append(
        gold_draft(
            f"How many {things} did we have each month of {year}?",
            monthly.order_by(exp.column("month")),
            [table],
            "monthly-count",
        )
    )
    quarter = sb.date_part(ref, "quarter", DIALECT)
    out.append(
        gold_draft(
            f"How many {things} did we have in each quarter of {year}?",
            select_from(table, exp.alias_(quarter, "quarter"), count_star())
            .where(day_between(stamp, first, last))
            .group_by(quarter.copy())
            .order_by(exp.column("quarter")),
            [table],
            "quarterly-count",
        )
    )
    years = sb.year_label(ref, DIALECT)
    out.append(
        gold_draft(
            f"How did the number of {things} in {year} compare with {year - 1}?",
            select_from(table, exp.alias_(years, "year"), count_star())
            .where(day_between(stamp, date(year - 1, 1, 1), last))
            .group_by(years.copy())
            .order_by(exp.column("year")),
            [table],
            "year-over-year",
        )
    )
    return out


def _recent_counts(spec: Spec, table: str, year: int) -> list[SuiteDraft]:
    """A table's count over the last 30 days, its change from November to December, and its weekend share."""
    out = []
    first, last = date(year, 1, 1), date(year, 12, 31)
    stamp = stamp_of(spec, table) or ""
    things = noun(spec, table)
    ref = stamp_ref(stamp)
    out.append(
        gold_draft(
            f"How many {things} did we have in the last 30 days?",
            select_from(table, count_star(None)).where(last_days(stamp, spec, 30)),
            [table],
            "recent-count",
        )
    )
    november, december = month_bounds(year, 11), month_bounds(year, 12)
    in_november = sb.count_where(day_between(stamp, *november))
    in_december = sb.count_where(day_between(stamp, *december))
    change = percent_of(exp.Paren(this=exp.Sub(this=in_december, expression=in_november.copy())), in_november)
    out.append(
        gold_draft(
            f"By what percentage did our {things} change from November to December {year}?",
            select_from(table, exp.alias_(change, "change_pct")).where(day_between(stamp, november[0], december[1])),
            [table],
            "month-over-month",
        )
    )
    weekend = exp.In(this=sb.day_of_week(ref, DIALECT), expressions=[lit(0), lit(6)])
    out.append(
        gold_draft(
            f"What share of our {things} in {year} happened on weekends?",
            select_from(table, exp.alias_(percent_of(sb.count_where(weekend), sb.count_rows()), "weekend_pct")).where(
                day_between(stamp, first, last)
            ),
            [table],
            "weekend-share",
        )
    )
    return out
