"""Segment questions of CORGI's type 4: which segments, parents and kinds of customer a business should favour,
from what the data brought over the last year and the simulator's generating weights."""

from datetime import date

from sqlglot import exp

from biarena.db import Database
from biarena.generate import sql_builder as sb
from biarena.generate.corgi_suite.common import (
    SuiteDraft,
    WeightedLink,
    col,
    count_star,
    day_between,
    dimensions,
    last_year,
    measure_words,
    select_from,
    sql,
    value_measure,
    value_words,
    weighted_links,
)
from biarena.generate.corgi_suite.parent_rows import link_evidence, parent_rows
from biarena.generate.corgi_suite.spec_roles import fact_tables, noun, stamp_of, words
from biarena.synth.spec import Spec

_OUTCOMES = ("status", "result", "outcome", "state")
"""Category columns that record what happened to a row, not a lever a business can pull."""


def _known(node: exp.Expression) -> exp.Expression:
    return exp.Not(this=exp.Is(this=node, expression=exp.Null()))


def _desc(name: str) -> exp.Ordered:
    return exp.Ordered(this=exp.column(name), desc=True)


def segment_questions(spec: Spec, db: Database) -> list[SuiteDraft]:
    """Which segments to prioritise and which are worth the most per row, which parents to invest in, and which
    kinds of parent to keep and to win (from the generating weights)."""
    out = []
    window = last_year(spec)
    for table in fact_tables(spec):
        measure = value_measure(spec, table)
        if measure and "cost" in measure:
            measure = None  # what we spend is no goal to grow: segments are weighed by the rows they bring
        things = noun(spec, table)
        label = f"the total {measure_words(measure)} of our {things}" if measure else f"the number of {things}"
        out += _own_segments(spec, db, table, measure, label, window)
        out += _parent_segments(spec, db, table, measure, label, window)
    for link in weighted_links(spec):
        out += _link_segments(spec, link)
    return out


def _own_segments(
    spec: Spec, db: Database, table: str, measure: str | None, label: str, window: tuple[date, date]
) -> list[SuiteDraft]:
    """The table's own levers: the one that brought the most (toward `label`), and (by value) the one worth the most
    per row."""
    out = []
    first, last = window
    stamp = stamp_of(spec, table) or ""
    things = noun(spec, table)
    one = things[:-1] if things.endswith("s") else things
    levers = [d for d in dimensions(spec, table) if not any(w in d for w in _OUTCOMES)]
    for number, dim in enumerate(levers):
        # rows whose value is empty (a key that is optional, and what is read through it) are no segment
        known = exp.and_(day_between(stamp, first, last), _known(col(dim)))
        total = exp.Sum(this=col(measure)) if measure else sb.count_rows()
        query = (
            select_from(table, col(dim), exp.alias_(total, "total"))
            .where(known)
            .group_by(col(dim))
            .order_by(_desc("total"))
        )
        rows = db.execute(sql(query)).rows
        if len(rows) < 2:
            continue
        evidence = {
            "kind": "segment",
            "parameters": {"table": table, "column": dim, "measure": measure or "rows"},
            "window": [first.isoformat(), last.isoformat()],
            "support_sql": [sql(query)],
        }
        out.append(
            SuiteDraft(
                f"Which {words(dim)} should we prioritise to grow {label}?",
                f"{value_words(rows[0][0])}: it brought the most over the last twelve months "
                f"({rows[0][1]:,.0f}, against {rows[-1][1]:,.0f} for {value_words(rows[-1][0])}, the least).",
                [table],
                "priority-segment",
                evidence,
            )
        )
        if measure and number < 2:
            average = sql(
                select_from(table, col(dim), exp.alias_(exp.Avg(this=col(measure)), "average"), count_star())
                .where(known.copy())
                .group_by(col(dim))
                .order_by(_desc("average"))
            )
            rows = db.execute(average).rows
            out.append(
                SuiteDraft(
                    f"Which {words(dim)} is worth the most to us per {one}, and should we steer more business there?",
                    f"{value_words(rows[0][0])} has the highest average {measure_words(measure)} "
                    f"({rows[0][1]:,.2f}, against {rows[-1][1]:,.2f} for {value_words(rows[-1][0])}, "
                    f"{(rows[0][1] / rows[-1][1] - 1) * 100:.0f} in 100 more); weigh that gap against the volume "
                    "each brings before steering business there.",
                    [table],
                    "value-per-segment",
                    evidence | {"support_sql": [average]},
                )
            )
    return out


def _parent_segments(
    spec: Spec, db: Database, table: str, measure: str | None, label: str, window: tuple[date, date]
) -> list[SuiteDraft]:
    """The first lever of each unscaled parent (stores, regions): the one to invest in (toward `label`)."""
    out = []
    first, last = window
    stamp = stamp_of(spec, table) or ""
    for name, column in spec.tables[table].columns.items():
        if column.kind != "foreign" or not column.ref or column.weight:
            continue
        parent, key = column.ref.split(".")
        if spec.tables[parent].scaled:
            continue
        for dim in dimensions(spec, parent)[:1]:
            total = exp.Sum(this=col(measure, "t")) if measure else sb.count_rows()
            query = (
                parent_rows(table, name, parent, key, col(dim, "p"), exp.alias_(total, "total"))
                .where(exp.and_(day_between(stamp, first, last, "t"), _known(col(dim, "p"))))
                .group_by(col(dim, "p"))
                .order_by(_desc("total"))
            )
            rows = db.execute(sql(query)).rows
            if len(rows) < 2:
                continue
            out.append(
                SuiteDraft(
                    f"Which {words(parent)} {words(dim) if dim != 'name' else ''}".rstrip()
                    + f" should we invest in to grow {label}?",
                    f"{value_words(rows[0][0])}: it brought the most over the last twelve months "
                    f"({rows[0][1]:,.0f}, against {rows[-1][1]:,.0f} for {value_words(rows[-1][0])}, the least).",
                    [table, parent],
                    "expansion-focus",
                    {
                        "kind": "segment",
                        "parameters": {
                            "table": table,
                            "parent": parent,
                            "column": dim,
                            "measure": measure or "rows",
                        },
                        "window": [first.isoformat(), last.isoformat()],
                        "support_sql": [sql(query)],
                    },
                )
            )
    return out


def _link_segments(spec: Spec, link: WeightedLink) -> list[SuiteDraft]:
    """The kind of parent that generates the most rows: the one to keep, and the one to win."""
    out = []
    table, parent, by, weights = link.table, link.parent, link.by, link.weights
    top, rates = link.top, link.rates
    active = exp.alias_(exp.Count(this=exp.Distinct(expressions=[col(link.column, "t")])), "active")
    evidence = link_evidence(link, active)
    out.append(
        SuiteDraft(
            f"Which {words(parent)} {words(by)} should we focus retention on to protect {noun(spec, table)}?",
            f"{top}: each {top} {words(parent)} generates the most {noun(spec, table)} (relative rates: {rates}).",
            [table, parent],
            "retention-focus",
            evidence,
        )
    )
    out.append(
        SuiteDraft(
            f"What kind of {noun(spec, parent)} should our acquisition campaigns target to grow {noun(spec, table)}?",
            f"{top} {noun(spec, parent)}: one of them brings as many {noun(spec, table)} as "
            f"{weights[top] / min(weights.values()):.1f} of the least active kind (relative rates: {rates}).",
            [table, parent],
            "acquisition-target",
            evidence,
        )
    )
    return out
