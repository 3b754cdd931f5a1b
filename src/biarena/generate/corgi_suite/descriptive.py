"""vertical_descriptive: descriptive (type 1) questions a vertical's spec suggests, each with gold SQL."""

from datetime import date

from sqlglot import exp

from biarena.db import Database
from biarena.generate import sql_builder as sb
from biarena.generate.corgi_suite.common import (
    DIALECT,
    MONTHS,
    SuiteDraft,
    col,
    count_star,
    data_year,
    day_between,
    dimensions,
    join_on,
    lit,
    measure_words,
    month_bounds,
    numbered,
    operating_rules,
    select_from,
    slice_name,
    sql,
    stamp_ref,
    value_measure,
    value_words,
    word_values,
)
from biarena.generate.corgi_suite.spec_roles import fact_tables, metric_columns, noun, stamp_of, words
from biarena.records import Question
from biarena.synth.spec import Rule, Spec


def _draft(text: str, query: exp.Expression, tables: list[str], form: str) -> SuiteDraft:
    """A descriptive draft: its gold SQL rides in `reference` until the question is made."""
    return SuiteDraft(text, sql(query), tables, form, {}, ["corgi:vertical-template"])


def _pct(node: exp.Expression, whole: exp.Expression, digits: int = 1) -> exp.Expression:
    """ROUND(100.0 * node / whole, digits)."""
    return sb.rounded(sb.percent(node, whole), digits, DIALECT)


def _desc(node: exp.Expression) -> exp.Ordered:
    return exp.Ordered(this=node, desc=True)


def _last_days(stamp: str, spec: Spec, days: int) -> exp.Expression:
    """The last `days` days before the spec's anchor."""
    return sb.last_days(stamp_ref(stamp), days, spec.anchor, DIALECT)


def _segments(spec: Spec) -> list[SuiteDraft]:
    out = []
    for segment in spec.segments:
        table, column = segment.table, segment.column
        out.append(
            _draft(
                f"What percentage of {noun(spec, table)} falls in each {words(column)}?",
                select_from(
                    table,
                    col(column),
                    exp.alias_(_pct(sb.count_rows(), exp.Subquery(this=select_from(table, sb.count_rows()))), "pct"),
                )
                .group_by(col(column))
                .order_by(col(column)),
                [table],
                "segment-share",
            )
        )
    return out


def _parents(spec: Spec, year: int) -> list[SuiteDraft]:
    out = []
    first, last = date(year, 1, 1), date(year, 12, 31)
    for table, spec_table in spec.tables.items():
        stamp = stamp_of(spec, table)
        for name, column in spec_table.columns.items():
            if column.kind != "foreign" or not column.ref:
                continue
            parent, key = column.ref.split(".")
            if column.weight:
                by = column.weight["column"]
                kind = words(parent) if by in ("name", "title") else f"{words(parent)} {words(by)}"
                out.append(
                    _draft(
                        f"How many {noun(spec, table)} come from each {kind}?",
                        join_on(
                            select_from(table, col(by, "p"), count_star(), alias="t"),
                            parent,
                            "p",
                            col(name, "t"),
                            col(key, "p"),
                        )
                        .group_by(col(by, "p"))
                        .order_by(_desc(exp.column("n"))),
                        [table, parent],
                        "parent-breakdown",
                    )
                )
            if stamp and table in fact_tables(spec) and spec.tables[parent].scaled is False:
                label = next((c for c in ("name", "title", "city") if c in spec.tables[parent].columns), key)
                out.append(
                    _draft(
                        f"Which five {noun(spec, parent)} had the most {noun(spec, table)} in {year}?",
                        join_on(
                            select_from(table, col(key, "p"), col(label, "p"), count_star(), alias="t"),
                            parent,
                            "p",
                            col(name, "t"),
                            col(key, "p"),
                        )
                        .where(day_between(stamp, first, last))
                        .group_by(col(key, "p"), col(label, "p"))
                        .order_by(_desc(exp.column("n")), col(key, "p"))
                        .limit(5),
                        [table, parent],
                        "top-parents",
                    )
                )
            if stamp and table in fact_tables(spec, 2) and spec.tables[parent].scaled:
                out.append(
                    _draft(
                        f"How many different {noun(spec, parent)} had at least one of our {noun(spec, table)} "
                        f"in {year}?",
                        select_from(table, exp.Count(this=exp.Distinct(expressions=[col(name)]))).where(
                            day_between(stamp, first, last)
                        ),
                        [table],
                        "distinct-active",
                    )
                )
    return out


def _planted(spec: Spec) -> list[SuiteDraft]:
    out = []
    for event in spec.planted:
        stamp = stamp_of(spec, event.table) or ""
        first, _ = month_bounds(event.start.year, event.start.month)
        _, last = month_bounds(event.end.year, event.end.month)
        when = (
            f"in {MONTHS[first.month]} {first.year}"
            if (first.year, first.month) == (last.year, last.month)
            else f"from {MONTHS[first.month]} {first.year} to {MONTHS[last.month]} {last.year}"
        )
        out.append(
            _draft(
                f"How many {slice_name(spec, event)} did we have {when}?",
                select_from(event.table, count_star(None)).where(
                    exp.and_(
                        exp.EQ(this=col(event.column), expression=lit(event.value)), day_between(stamp, first, last)
                    )
                ),
                [event.table],
                "slice-count",
            )
        )
    return out


_COLUMN_WORDS = {"pct": "percentage"}
"""Abbreviations in column names, as a manager says them."""


def _column_words(column: str) -> str:
    return " ".join(_COLUMN_WORDS.get(part, part) for part in column.removeprefix("is_").split("_"))


def _rule_breakdown(spec: Spec, rule: Rule) -> SuiteDraft | None:
    """How a rule's non-numeric outcome splits the rows: a flag as a share, other outcomes as a breakdown."""
    column = spec.tables[rule.table].columns[rule.column]
    if column.kind == "foreign" or rule.column.endswith("_id"):
        return None
    things = noun(spec, rule.table)
    outcomes = [branch.then for branch in rule.branches()] + [rule.otherwise]
    if all(isinstance(v, int | None) and v in (0, 1, None) for v in outcomes):
        return _draft(
            f"What share of our {things} are marked {_column_words(rule.column)}?",
            select_from(
                rule.table,
                exp.alias_(
                    _pct(sb.count_where(exp.EQ(this=col(rule.column), expression=lit(1))), sb.count_rows()), "pct"
                ),
            ),
            [rule.table],
            "flag-share",
        )
    return _draft(
        f"How are our {things} split by {_column_words(rule.column)}?",
        select_from(rule.table, col(rule.column), count_star()).group_by(col(rule.column)).order_by(col(rule.column)),
        [rule.table],
        "rule-breakdown",
    )


def _rules(spec: Spec) -> list[SuiteDraft]:
    out = []
    for rule in operating_rules(spec):
        if rule.column not in metric_columns(spec, rule.table):
            draft = _rule_breakdown(spec, rule)
            out += [draft] if draft else []
            continue
        measure = measure_words(rule.column)
        total = measure if measure.startswith("total ") else f"total {measure}"
        out.append(
            _draft(
                f"What is the {total} across all {noun(spec, rule.table)}?",
                select_from(rule.table, sb.rounded(exp.Sum(this=col(rule.column)), 2, DIALECT)),
                [rule.table],
                "rule-total",
            )
        )
    return out


def _calendar(spec: Spec, year: int) -> list[SuiteDraft]:
    out = []
    first, last = date(year, 1, 1), date(year, 12, 31)
    for table in fact_tables(spec, 2):
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
                _draft(
                    f"Which month of {year} had the {extreme} {things}, and how many?",
                    monthly.order_by(exp.Ordered(this=exp.column("n"), desc=desc)).limit(1),
                    [table],
                    form,
                )
            )
        out.append(
            _draft(
                f"How many {things} did we have each month of {year}?",
                monthly.order_by(exp.column("month")),
                [table],
                "monthly-count",
            )
        )
        quarter = sb.date_part(ref, "quarter", DIALECT)
        out.append(
            _draft(
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
            _draft(
                f"How did the number of {things} in {year} compare with {year - 1}?",
                select_from(table, exp.alias_(years, "year"), count_star())
                .where(day_between(stamp, date(year - 1, 1, 1), last))
                .group_by(years.copy())
                .order_by(exp.column("year")),
                [table],
                "year-over-year",
            )
        )
        out.append(
            _draft(
                f"How many {things} did we have in the last 30 days?",
                select_from(table, count_star(None)).where(_last_days(stamp, spec, 30)),
                [table],
                "recent-count",
            )
        )
        november, december = month_bounds(year, 11), month_bounds(year, 12)
        in_november = sb.count_where(day_between(stamp, *november))
        in_december = sb.count_where(day_between(stamp, *december))
        change = _pct(exp.Paren(this=exp.Sub(this=in_december, expression=in_november.copy())), in_november)
        out.append(
            _draft(
                f"By what percentage did our {things} change from November to December {year}?",
                select_from(table, exp.alias_(change, "change_pct")).where(
                    day_between(stamp, november[0], december[1])
                ),
                [table],
                "month-over-month",
            )
        )
        weekend = exp.In(this=sb.day_of_week(ref, DIALECT), expressions=[lit(0), lit(6)])
        out.append(
            _draft(
                f"What share of our {things} in {year} happened on weekends?",
                select_from(table, exp.alias_(_pct(sb.count_where(weekend), sb.count_rows()), "weekend_pct")).where(
                    day_between(stamp, first, last)
                ),
                [table],
                "weekend-share",
            )
        )
    return out


def _values(spec: Spec, year: int) -> list[SuiteDraft]:
    out = []
    first, last = date(year, 1, 1), date(year, 12, 31)
    for table in fact_tables(spec):
        measure = value_measure(spec, table)
        stamp = stamp_of(spec, table) or ""
        if not measure:
            continue
        things = noun(spec, table)
        total = sb.rounded(exp.Sum(this=col(measure)), 2, DIALECT)
        for dim in dimensions(spec, table)[:2]:
            out.append(
                _draft(
                    f"What was the total {measure_words(measure)} of our {things} by {words(dim)} in {year}?",
                    select_from(table, col(dim), exp.alias_(total.copy(), "total"))
                    .where(day_between(stamp, first, last))
                    .group_by(col(dim))
                    .order_by(_desc(exp.column("total"))),
                    [table],
                    "value-by-segment",
                )
            )
            average = sb.rounded(exp.Avg(this=col(measure)), 2, DIALECT)
            out.append(
                _draft(
                    f"What is the average {measure_words(measure)} of {things} for each {words(dim)}?",
                    select_from(table, col(dim), exp.alias_(average, "average")).group_by(col(dim)).order_by(col(dim)),
                    [table],
                    "average-by-segment",
                )
            )
        for dim in dimensions(spec, table)[:1]:
            out.append(
                _draft(
                    f"Which {words(dim)} had the highest total {measure_words(measure)} in {year}, and what was it?",
                    select_from(table, col(dim), exp.alias_(total.copy(), "total"))
                    .where(day_between(stamp, first, last))
                    .group_by(col(dim))
                    .order_by(_desc(exp.column("total")))
                    .limit(1),
                    [table],
                    "top-segment",
                )
            )
        key = spec.tables[table].primary_key
        if key:
            out.append(
                _draft(
                    f"What were our five largest {things} by {measure_words(measure)} in {year}?",
                    select_from(table, col(key), col(measure))
                    .where(day_between(stamp, first, last))
                    .order_by(_desc(col(measure)), col(key))
                    .limit(5),
                    [table],
                    "largest",
                )
            )
        out.append(
            _draft(
                f"What was the total {measure_words(measure)} of our {things} over the last 30 days?",
                select_from(table, total.copy()).where(_last_days(stamp, spec, 30)),
                [table],
                "recent-value",
            )
        )
        december = month_bounds(year, 12)
        out.append(
            _draft(
                f"What was the total {measure_words(measure)} of our {things} in {MONTHS[12]} {year}?",
                select_from(table, total.copy()).where(day_between(stamp, *december)),
                [table],
                "month-value",
            )
        )
    for table in fact_tables(spec, 2):
        stamp = stamp_of(spec, table) or ""
        for dim in dimensions(spec, table)[:1]:
            value = word_values(spec, table, dim)[0]
            said = value_words(value)
            which = f"were {said}" if dim == "status" else f"had {said} as their {words(dim)}"
            share = _pct(sb.count_where(exp.EQ(this=col(dim), expression=lit(value))), sb.count_rows())
            out.append(
                _draft(
                    f"What share of our {noun(spec, table)} in {year} {which}?",
                    select_from(table, share).where(day_between(stamp, first, last)),
                    [table],
                    "slice-share",
                )
            )
    return out


def vertical_descriptive(spec: Spec, db: Database, database: str, start: int = 0) -> list[Question]:
    """Descriptive questions the spec suggests, kept when their gold SQL returns rows with a value."""
    year = data_year(spec)
    drafts = [
        *_segments(spec),
        *_parents(spec, year),
        *_planted(spec),
        *_rules(spec),
        *_calendar(spec, year),
        *_values(spec, year),
    ]
    kept = []
    for draft in drafts:
        rows = db.execute(draft.reference, now=spec.anchor).rows
        if rows and any(v is not None for row in rows for v in row):
            kept.append(draft)
    golds = [draft.reference for draft in kept]
    for draft in kept:
        draft.reference = ""
    questions = numbered(spec, database, "type1", kept, start)
    return [question.model_copy(update={"gold_sql": [gold]}) for question, gold in zip(questions, golds, strict=True)]
