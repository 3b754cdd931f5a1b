"""vertical_descriptive: descriptive (type 1) questions a vertical's spec suggests, each with gold SQL."""

from datetime import date

from biarena.db import Database
from biarena.generate.corgi_suite.common import (
    MONTHS,
    SuiteDraft,
    data_year,
    day_between,
    dimensions,
    literal,
    measure_words,
    month_bounds,
    numbered,
    operating_rules,
    q,
    slice_name,
    value_measure,
    value_words,
    word_values,
)
from biarena.generate.corgi_suite.spec_roles import fact_tables, metric_columns, noun, stamp_of, words
from biarena.records import Question
from biarena.synth.spec import Rule, Spec


def _draft(text: str, sql: str, tables: list[str], form: str) -> SuiteDraft:
    """A descriptive draft: its gold SQL rides in `reference` until the question is made."""
    return SuiteDraft(text, sql, tables, form, {}, ["corgi:vertical-template"])


def _segments(spec: Spec) -> list[SuiteDraft]:
    out = []
    for segment in spec.segments:
        table, column = segment.table, segment.column
        out.append(
            _draft(
                f"What percentage of {noun(spec, table)} falls in each {words(column)}?",
                f"SELECT {q(column)}, ROUND(100.0 * COUNT(*) / (SELECT COUNT(*) FROM {q(table)}), 1) AS pct "
                f"FROM {q(table)} GROUP BY {q(column)} ORDER BY {q(column)}",
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
                        f"SELECT p.{q(by)}, COUNT(*) AS n FROM {q(table)} t JOIN {q(parent)} p "
                        f"ON t.{q(name)} = p.{q(key)} GROUP BY p.{q(by)} ORDER BY n DESC",
                        [table, parent],
                        "parent-breakdown",
                    )
                )
            if stamp and table in fact_tables(spec) and spec.tables[parent].scaled is False:
                label = next((c for c in ("name", "title", "city") if c in spec.tables[parent].columns), key)
                out.append(
                    _draft(
                        f"Which five {noun(spec, parent)} had the most {noun(spec, table)} in {year}?",
                        f"SELECT p.{q(key)}, p.{q(label)}, COUNT(*) AS n FROM {q(table)} t JOIN {q(parent)} p "
                        f"ON t.{q(name)} = p.{q(key)} WHERE {day_between(stamp, first, last)} "
                        f"GROUP BY p.{q(key)}, p.{q(label)} ORDER BY n DESC, p.{q(key)} LIMIT 5",
                        [table, parent],
                        "top-parents",
                    )
                )
            if stamp and table in fact_tables(spec, 2) and spec.tables[parent].scaled:
                out.append(
                    _draft(
                        f"How many different {noun(spec, parent)} had at least one of our {noun(spec, table)} "
                        f"in {year}?",
                        f"SELECT COUNT(DISTINCT {q(name)}) FROM {q(table)} WHERE {day_between(stamp, first, last)}",
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
                f"SELECT COUNT(*) FROM {q(event.table)} WHERE {q(event.column)} = {literal(event.value)} AND "
                f"{day_between(stamp, first, last)}",
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
            f"SELECT ROUND(100.0 * SUM(CASE WHEN {q(rule.column)} = 1 THEN 1 ELSE 0 END) / COUNT(*), 1) AS pct "
            f"FROM {q(rule.table)}",
            [rule.table],
            "flag-share",
        )
    return _draft(
        f"How are our {things} split by {_column_words(rule.column)}?",
        f"SELECT {q(rule.column)}, COUNT(*) AS n FROM {q(rule.table)} GROUP BY 1 ORDER BY 1",
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
                f"SELECT ROUND(SUM({q(rule.column)}), 2) FROM {q(rule.table)}",
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
        within = day_between(stamp, first, last)
        for order, extreme, form in (("DESC", "most", "busiest-month"), ("ASC", "fewest", "quietest-month")):
            out.append(
                _draft(
                    f"Which month of {year} had the {extreme} {things}, and how many?",
                    f"SELECT substr({q(stamp)}, 1, 7) AS month, COUNT(*) AS n FROM {q(table)} WHERE {within} "
                    f"GROUP BY month ORDER BY n {order} LIMIT 1",
                    [table],
                    form,
                )
            )
        out.append(
            _draft(
                f"How many {things} did we have each month of {year}?",
                f"SELECT substr({q(stamp)}, 1, 7) AS month, COUNT(*) AS n FROM {q(table)} WHERE {within} "
                "GROUP BY month ORDER BY month",
                [table],
                "monthly-count",
            )
        )
        out.append(
            _draft(
                f"How many {things} did we have in each quarter of {year}?",
                f"SELECT (CAST(substr({q(stamp)}, 6, 2) AS INTEGER) + 2) / 3 AS quarter, COUNT(*) AS n "
                f"FROM {q(table)} WHERE {within} GROUP BY quarter ORDER BY quarter",
                [table],
                "quarterly-count",
            )
        )
        out.append(
            _draft(
                f"How did the number of {things} in {year} compare with {year - 1}?",
                f"SELECT substr({q(stamp)}, 1, 4) AS year, COUNT(*) AS n FROM {q(table)} "
                f"WHERE substr({q(stamp)}, 1, 4) IN ('{year - 1}', '{year}') GROUP BY year ORDER BY year",
                [table],
                "year-over-year",
            )
        )
        out.append(
            _draft(
                f"How many {things} did we have in the last 30 days?",
                f"SELECT COUNT(*) FROM {q(table)} WHERE {q(stamp)} >= datetime('now', '-30 days')",
                [table],
                "recent-count",
            )
        )
        november, december = month_bounds(year, 11), month_bounds(year, 12)
        out.append(
            _draft(
                f"By what percentage did our {things} change from November to December {year}?",
                f"SELECT ROUND(100.0 * (SUM(CASE WHEN {day_between(stamp, *december)} THEN 1 ELSE 0 END) - "
                f"SUM(CASE WHEN {day_between(stamp, *november)} THEN 1 ELSE 0 END)) / "
                f"SUM(CASE WHEN {day_between(stamp, *november)} THEN 1 ELSE 0 END), 1) AS change_pct "
                f"FROM {q(table)} WHERE {day_between(stamp, november[0], december[1])}",
                [table],
                "month-over-month",
            )
        )
        out.append(
            _draft(
                f"What share of our {things} in {year} happened on weekends?",
                f"SELECT ROUND(100.0 * SUM(CASE WHEN strftime('%w', {q(stamp)}) IN ('0', '6') THEN 1 ELSE 0 END) "
                f"/ COUNT(*), 1) AS weekend_pct FROM {q(table)} WHERE {within}",
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
        within = day_between(stamp, first, last)
        things = noun(spec, table)
        for dim in dimensions(spec, table)[:2]:
            out.append(
                _draft(
                    f"What was the total {measure_words(measure)} of our {things} by {words(dim)} in {year}?",
                    f"SELECT {q(dim)}, ROUND(SUM({q(measure)}), 2) AS total FROM {q(table)} WHERE {within} "
                    "GROUP BY 1 ORDER BY total DESC",
                    [table],
                    "value-by-segment",
                )
            )
            out.append(
                _draft(
                    f"What is the average {measure_words(measure)} of {things} for each {words(dim)}?",
                    f"SELECT {q(dim)}, ROUND(AVG({q(measure)}), 2) AS average FROM {q(table)} GROUP BY 1 ORDER BY 1",
                    [table],
                    "average-by-segment",
                )
            )
        for dim in dimensions(spec, table)[:1]:
            out.append(
                _draft(
                    f"Which {words(dim)} had the highest total {measure_words(measure)} in {year}, and what was it?",
                    f"SELECT {q(dim)}, ROUND(SUM({q(measure)}), 2) AS total FROM {q(table)} WHERE {within} "
                    "GROUP BY 1 ORDER BY total DESC LIMIT 1",
                    [table],
                    "top-segment",
                )
            )
        key = spec.tables[table].primary_key
        if key:
            out.append(
                _draft(
                    f"What were our five largest {things} by {measure_words(measure)} in {year}?",
                    f"SELECT {q(key)}, {q(measure)} FROM {q(table)} WHERE {within} "
                    f"ORDER BY {q(measure)} DESC, {q(key)} LIMIT 5",
                    [table],
                    "largest",
                )
            )
        out.append(
            _draft(
                f"What was the total {measure_words(measure)} of our {things} over the last 30 days?",
                f"SELECT ROUND(SUM({q(measure)}), 2) FROM {q(table)} WHERE {q(stamp)} >= datetime('now', '-30 days')",
                [table],
                "recent-value",
            )
        )
        december = month_bounds(year, 12)
        out.append(
            _draft(
                f"What was the total {measure_words(measure)} of our {things} in {MONTHS[12]} {year}?",
                f"SELECT ROUND(SUM({q(measure)}), 2) FROM {q(table)} WHERE {day_between(stamp, *december)}",
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
            out.append(
                _draft(
                    f"What share of our {noun(spec, table)} in {year} {which}?",
                    f"SELECT ROUND(100.0 * SUM(CASE WHEN {q(dim)} = {literal(value)} THEN 1 ELSE 0 END) / COUNT(*), 1) "
                    f"FROM {q(table)} WHERE {day_between(stamp, first, last)}",
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
