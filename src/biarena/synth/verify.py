"""verify: check every rule of a vertical's spec with SQL on the generated data."""

from pathlib import Path
from typing import Any

from biarena.db.sql_text import Literal, Sql, compose
from biarena.errors import FormatError
from biarena.synth.calendar import active_days, days, density
from biarena.synth.check import Check, count_check, day_text, left_out, outside_events, scalar
from biarena.synth.generator import stored_spec
from biarena.synth.planted_checks import planted_checks
from biarena.synth.reader import Output, open_output
from biarena.synth.relation_checks import relation_checks
from biarena.synth.sampling import (
    CHECK_ALPHA,
    shares_pvalue,
    tolerant_share_pvalue,
)
from biarena.synth.schema import column_type
from biarena.synth.spec import Rule, Spec

__all__ = ["Check", "verify"]


def _foreign_keys(conn: Output, spec: Spec) -> list[Check]:
    out = []
    for name, table in spec.tables.items():
        for column_name, column in table.columns.items():
            if column.kind != "foreign" or not column.ref:
                continue
            parent, key = column.ref.split(".")
            sql = compose(
                "SELECT count(*) FROM {name} c LEFT JOIN {parent} p ON c.{column} = p.{key} "
                "WHERE p.{key} IS NULL AND c.{column} IS NOT NULL",
                name=name,
                parent=parent,
                column=column_name,
                key=key,
            )
            orphans = scalar(conn, sql)
            out.append(
                Check(
                    "foreign key", f"{name}.{column_name} -> {column.ref}", orphans == 0, f"{int(orphans)} orphan rows"
                )
            )
    return out


def _segments(conn: Output, spec: Spec) -> list[Check]:
    """Segment shares: a binomial test per segment, Bonferroni over the segments of a column."""
    out = []
    for segment in spec.segments:
        column = spec.tables[segment.table].columns[segment.column]
        wanted = column.values if isinstance(column.values, dict) else {v: 1.0 for v in column.values or []}
        total = sum(wanted.values())
        outside = outside_events(spec, segment.table, segment.table)
        sql = compose(
            "SELECT {column}, count(*) FROM {table}{outside} GROUP BY 1",
            column=segment.column,
            table=segment.table,
            outside=outside,
        )
        rows = dict(conn.query(sql))
        # values read back from a database compare as text with the spec's
        counts = {str(k): int(v) for k, v in rows.items()}
        labels = list(wanted)
        pvalue, worst = shares_pvalue([counts.get(str(k), 0) for k in labels], [wanted[k] / total for k in labels])
        n = sum(counts.values()) or 1
        actual, planned = counts.get(str(labels[worst]), 0) / n, wanted[labels[worst]] / total
        detail = (
            f"{labels[worst]}: {actual:.1%} of {n} rows, planned {planned:.1%} ({(actual - planned) * 100:+.2f} "
            f"points; p = {pvalue:.2g}){left_out(spec, segment.table)}"
        )
        out.append(Check("segments", segment.name, pvalue >= CHECK_ALPHA, detail, pvalue, CHECK_ALPHA))
    return out


SEASONAL_TOLERANCE = 0.10
"""How far a month's share of a table's rows may be from the trend and seasonal curve beyond sampling noise: rows
drawn before their parent existed are moved after it, which thins the first months of a child table."""


def _seasonality(conn: Output, spec: Spec) -> list[Check]:
    """Monthly volumes against the trend and seasonal curve: per month a binomial test of its share of the rows
    against the planned share within `SEASONAL_TOLERANCE`, Bonferroni over the months."""
    calendar = active_days(spec.start, spec.anchor)
    weights = density(calendar, spec.seasonality)
    out = []
    for name, table in spec.tables.items():
        stamp = table.stamp
        if stamp is None:
            continue
        # months a planted event touches are the event's, not the season's
        planted = {d.strftime("%Y-%m") for p, _, _ in spec.touched(name) for d in days(p.start, p.end)}
        sql = compose("SELECT substr({day}, 1, 7), count(*) FROM {name} GROUP BY 1", day=day_text(stamp), name=name)
        actual = dict(conn.query(sql))
        expected: dict[str, float] = {}
        for day, weight in zip(calendar, weights, strict=True):
            expected[day.strftime("%Y-%m")] = expected.get(day.strftime("%Y-%m"), 0.0) + weight
        full = [m for m in expected if m not in planted and m != calendar[-1].strftime("%Y-%m")]
        total_actual = sum(int(actual.get(m, 0)) for m in full)
        total_expected = sum(expected[m] for m in full) or 1
        worst, where_worst, smallest = 0.0, "", 1.0
        for month in full:
            share = expected[month] / total_expected
            count = int(actual.get(month, 0))
            smallest = min(smallest, tolerant_share_pvalue(count, total_actual, share, SEASONAL_TOLERANCE))
            deviation = abs(count / max(1, total_actual) / share - 1)
            if deviation > worst:
                worst, where_worst = deviation, month
        pvalue = min(1.0, smallest * len(full))
        detail = (
            f"largest monthly deviation {worst * 100:.1f}% ({where_worst or 'n/a'}) of {total_actual} rows "
            f"(allowed {SEASONAL_TOLERANCE:.0%} beyond sampling noise; p = {pvalue:.2g})"
        )
        out.append(Check("seasonality", f"{name}.{stamp}", pvalue >= CHECK_ALPHA, detail, pvalue, CHECK_ALPHA))
    return out


def _match(rule: Rule, value: Any, kind: str, params: list) -> Sql:
    """SQL that is true when the rule's column holds `value` (a literal or {expr, round})."""
    if value is None:
        return compose("{column} IS NULL", column=rule.column)
    if isinstance(value, dict):
        digits = value.get("round")
        tolerance = 1.0 if kind == "int" else 10.0**-digits if digits is not None else 1e-6
        return compose(
            "coalesce(abs({column} - ({expr})) <= {tolerance}, FALSE)",
            column=rule.column,
            expr=Sql(value["expr"]),
            tolerance=Literal(tolerance),
        )
    params.append(value)
    return compose("coalesce({column} = ?, FALSE)", column=rule.column)


def _rules(conn: Output, spec: Spec) -> list[Check]:
    out = []
    for rule in spec.rules:
        kind = column_type(spec, rule.table, rule.column)
        params: list = []
        branches = [
            compose("WHEN ({when}) THEN {then}", when=Sql(c.when), then=_match(rule, c.then, kind, params))
            for c in rule.branches()
        ]
        holds = compose(
            "CASE {branches} ELSE {otherwise} END",
            branches=Sql(" ".join(branches)),
            otherwise=_match(rule, rule.otherwise, kind, params),
        )
        sql = compose("SELECT count(*) FROM {table} WHERE NOT ({holds})", table=rule.table, holds=holds)
        out.append(count_check(conn, "rule", rule.name, sql, params=tuple(params)))
    return out


def verify(path: str | Path) -> list[Check]:
    """Check foreign keys, consistency through keys, segment shares, seasonality, rules and planted events."""
    database = Path(path)
    spec, _ = stored_spec(database)
    with open_output(database) as conn:
        held = conn.tables()
        missing = [name for name in spec.tables if name not in held]
        if missing:
            raise FormatError(f"{database}: the spec's table '{missing[0]}' is missing from it")
        return [
            *_foreign_keys(conn, spec),
            *relation_checks(conn, spec),
            *_segments(conn, spec),
            *_seasonality(conn, spec),
            *_rules(conn, spec),
            *planted_checks(conn, spec),
        ]
