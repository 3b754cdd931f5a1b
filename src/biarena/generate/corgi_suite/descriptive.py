"""vertical_descriptive: descriptive (type 1) questions a vertical's spec suggests, each with gold SQL."""

from datetime import date

from sqlglot import exp

from biarena.db import Database
from biarena.generate import sql_builder as sb
from biarena.generate.corgi_suite.calendar_questions import calendar_questions
from biarena.generate.corgi_suite.common import (
    DIALECT,
    MONTHS,
    SuiteDraft,
    col,
    count_star,
    data_year,
    day_between,
    dimensions,
    lit,
    measure_words,
    month_bounds,
    numbered,
    operating_rules,
    select_from,
    slice_name,
    value_measure,
    value_words,
    word_values,
)
from biarena.generate.corgi_suite.gold_drafts import descending, gold_draft, last_days, percent_of
from biarena.generate.corgi_suite.parent_rows import parent_counts, parent_rows
from biarena.generate.corgi_suite.spec_roles import fact_tables, metric_columns, noun, stamp_of, words
from biarena.records import Question
from biarena.synth.spec import Rule, Spec


def _segments(spec: Spec) -> list[SuiteDraft]:
    out = []
    for segment in spec.segments:
        table, column = segment.table, segment.column
        out.append(
            gold_draft(
                f"What percentage of {noun(spec, table)} falls in each {words(column)}?",
                select_from(
                    table,
                    col(column),
                    exp.alias_(
                        percent_of(sb.count_rows(), exp.Subquery(this=select_from(table, sb.count_rows()))), "pct"
                    ),
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
                    gold_draft(
                        f"How many {noun(spec, table)} come from each {kind}?",
                        parent_counts(table, name, parent, key, by),
                        [table, parent],
                        "parent-breakdown",
                    )
                )
            if stamp and table in fact_tables(spec) and spec.tables[parent].scaled is False:
                label = next((c for c in ("name", "title", "city") if c in spec.tables[parent].columns), key)
                out.append(
                    gold_draft(
                        f"Which five {noun(spec, parent)} had the most {noun(spec, table)} in {year}?",
                        parent_rows(table, name, parent, key, col(key, "p"), col(label, "p"), count_star())
                        .where(day_between(stamp, first, last))
                        .group_by(col(key, "p"), col(label, "p"))
                        .order_by(descending(exp.column("n")), col(key, "p"))
                        .limit(5),
                        [table, parent],
                        "top-parents",
                    )
                )
            if stamp and table in fact_tables(spec, 2) and spec.tables[parent].scaled:
                out.append(
                    gold_draft(
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
            gold_draft(
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
        return gold_draft(
            f"What share of our {things} are marked {_column_words(rule.column)}?",
            select_from(
                rule.table,
                exp.alias_(
                    percent_of(sb.count_where(exp.EQ(this=col(rule.column), expression=lit(1))), sb.count_rows()), "pct"
                ),
            ),
            [rule.table],
            "flag-share",
        )
    return gold_draft(
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
            gold_draft(
                f"What is the {total} across all {noun(spec, rule.table)}?",
                select_from(rule.table, sb.rounded(exp.Sum(this=col(rule.column)), 2, DIALECT)),
                [rule.table],
                "rule-total",
            )
        )
    return out


def _values(spec: Spec, year: int) -> list[SuiteDraft]:
    """Totals and averages of each fact table's value measure by segment, its largest rows and recent totals, and
    the share of the main tables' rows in a slice."""
    out = []
    for table in fact_tables(spec):
        measure = value_measure(spec, table)
        if measure:
            out += _table_values(spec, table, measure, year)
    for table in fact_tables(spec, 2):
        out += _slice_shares(spec, table, year)
    return out


def _table_values(spec: Spec, table: str, measure: str, year: int) -> list[SuiteDraft]:
    """A table's value measure: by segment, its top segment and largest rows, over the last 30 days and in
    December."""
    out = []
    first, last = date(year, 1, 1), date(year, 12, 31)
    stamp = stamp_of(spec, table) or ""
    things = noun(spec, table)
    total = sb.rounded(exp.Sum(this=col(measure)), 2, DIALECT)

    def totals_by(dim: str) -> exp.Select:
        query = select_from(table, col(dim), exp.alias_(total.copy(), "total")).where(day_between(stamp, first, last))
        return query.group_by(col(dim)).order_by(descending(exp.column("total")))

    for dim in dimensions(spec, table)[:2]:
        out.append(
            gold_draft(
                f"What was the total {measure_words(measure)} of our {things} by {words(dim)} in {year}?",
                totals_by(dim),
                [table],
                "value-by-segment",
            )
        )
        average = sb.rounded(exp.Avg(this=col(measure)), 2, DIALECT)
        out.append(
            gold_draft(
                f"What is the average {measure_words(measure)} of {things} for each {words(dim)}?",
                select_from(table, col(dim), exp.alias_(average, "average")).group_by(col(dim)).order_by(col(dim)),
                [table],
                "average-by-segment",
            )
        )
    for dim in dimensions(spec, table)[:1]:
        out.append(
            gold_draft(
                f"Which {words(dim)} had the highest total {measure_words(measure)} in {year}, and what was it?",
                totals_by(dim).limit(1),
                [table],
                "top-segment",
            )
        )
    key = spec.tables[table].primary_key
    if key:
        out.append(
            gold_draft(
                f"What were our five largest {things} by {measure_words(measure)} in {year}?",
                select_from(table, col(key), col(measure))
                .where(day_between(stamp, first, last))
                .order_by(descending(col(measure)), col(key))
                .limit(5),
                [table],
                "largest",
            )
        )
    out.append(
        gold_draft(
            f"What was the total {measure_words(measure)} of our {things} over the last 30 days?",
            select_from(table, total.copy()).where(last_days(stamp, spec, 30)),
            [table],
            "recent-value",
        )
    )
    december = month_bounds(year, 12)
    out.append(
        gold_draft(
            f"What was the total {measure_words(measure)} of our {things} in {MONTHS[12]} {year}?",
            select_from(table, total.copy()).where(day_between(stamp, *december)),
            [table],
            "month-value",
        )
    )
    return out


def _slice_shares(spec: Spec, table: str, year: int) -> list[SuiteDraft]:
    """The share of a table's rows in the year that hold its first segment's first value."""
    out = []
    first, last = date(year, 1, 1), date(year, 12, 31)
    stamp = stamp_of(spec, table) or ""
    for dim in dimensions(spec, table)[:1]:
        value = word_values(spec, table, dim)[0]
        said = value_words(value)
        which = f"were {said}" if dim == "status" else f"had {said} as their {words(dim)}"
        share = percent_of(sb.count_where(exp.EQ(this=col(dim), expression=lit(value))), sb.count_rows())
        out.append(
            gold_draft(
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
        *calendar_questions(spec, year),
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
