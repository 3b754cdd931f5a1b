"""verify: check every rule of a vertical's spec with SQL on the generated data."""

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from biarena.synth.calendar import active_days, days, density
from biarena.synth.generator import column_type, stored_spec
from biarena.synth.reader import Output, open_output
from biarena.synth.spec import Rule, Spec


@dataclass(frozen=True)
class Check:
    """One verified property: what, whether it holds, and the numbers."""

    kind: str
    name: str
    ok: bool
    detail: str


def _scalar(conn: Output, sql: str, params: tuple = ()) -> float:
    return conn.query(sql, params)[0][0] or 0


def _day(column: str) -> str:
    """The `YYYY-MM-DD` text of a timestamp column, on any engine."""
    return f'substr(CAST("{column}" AS VARCHAR), 1, 10)'


def _foreign_keys(conn: Output, spec: Spec) -> list[Check]:
    out = []
    for name, table in spec.tables.items():
        for column_name, column in table.columns.items():
            if column.kind != "foreign" or not column.ref:
                continue
            parent, key = column.ref.split(".")
            orphans = _scalar(
                conn,
                f'SELECT count(*) FROM "{name}" c LEFT JOIN "{parent}" p ON c."{column_name}" = '
                f'p."{key}" WHERE p."{key}" IS NULL AND c."{column_name}" IS NOT NULL',
            )
            out.append(
                Check(
                    "foreign key", f"{name}.{column_name} -> {column.ref}", orphans == 0, f"{int(orphans)} orphan rows"
                )
            )
    return out


def _segments(conn: Output, spec: Spec) -> list[Check]:
    out = []
    for segment in spec.segments:
        column = spec.tables[segment.table].columns[segment.column]
        wanted = column.values if isinstance(column.values, dict) else {v: 1.0 for v in column.values or []}
        total = sum(wanted.values())
        rows = dict(conn.query(f'SELECT "{segment.column}", count(*) FROM "{segment.table}" GROUP BY 1'))
        n = sum(rows.values()) or 1
        worst = max(abs(rows.get(k, 0) / n - w / total) for k, w in wanted.items())
        out.append(Check("segments", segment.name, worst <= 0.02, f"largest share gap {worst * 100:.2f} points"))
    return out


def _seasonality(conn: Output, spec: Spec) -> list[Check]:
    calendar = active_days(spec.start, spec.anchor)
    weights = density(calendar, spec.seasonality)
    out = []
    for name, table in spec.tables.items():
        stamp = table.stamp
        if stamp is None:
            continue
        # months a planted event touches are the event's, not the season's
        planted = {d.strftime("%Y-%m") for p in spec.planted if p.table == name for d in days(p.start, p.end)}
        actual = dict(conn.query(f'SELECT substr({_day(stamp)}, 1, 7), count(*) FROM "{name}" GROUP BY 1'))
        expected: dict[str, float] = {}
        for day, weight in zip(calendar, weights, strict=True):
            expected[day.strftime("%Y-%m")] = expected.get(day.strftime("%Y-%m"), 0.0) + weight
        full = [m for m in expected if m not in planted and m != calendar[-1].strftime("%Y-%m")]
        total_actual = sum(actual.get(m, 0) for m in full) or 1
        total_expected = sum(expected[m] for m in full) or 1
        worst, where_worst, ok = 0.0, "", True
        for month in full:
            share = expected[month] / total_expected
            ratio = (actual.get(month, 0) / total_actual) / share
            # 10%, plus one row of rounding for months with few rows (small scales)
            allowed = 0.10 + 1.0 / max(1.0, share * total_actual)
            ok = ok and abs(ratio - 1) <= allowed
            if abs(ratio - 1) > worst:
                worst, where_worst = abs(ratio - 1), month
        out.append(
            Check(
                "seasonality",
                f"{name}.{stamp}",
                ok,
                f"largest monthly deviation {worst * 100:.1f}% ({where_worst or 'n/a'})",
            )
        )
    return out


def _match(rule: Rule, value: Any, kind: str, params: list) -> str:
    """SQL that is true when the rule's column holds `value` (a literal or {expr, round})."""
    column = f'"{rule.column}"'
    if value is None:
        return f"{column} IS NULL"
    if isinstance(value, dict):
        digits = value.get("round")
        tolerance = 1.0 if kind == "int" else 10.0 ** -digits if digits is not None else 1e-6
        return f"coalesce(abs({column} - ({value['expr']})) <= {tolerance!r}, FALSE)"
    params.append(value)
    return f"coalesce({column} = ?, FALSE)"


def _rules(conn: Output, spec: Spec) -> list[Check]:
    out = []
    for rule in spec.rules:
        kind = column_type(spec, rule.table, rule.column)
        params: list = []
        branches = " ".join(f"WHEN ({c.when}) THEN {_match(rule, c.then, kind, params)}" for c in rule.branches())
        holds = f"CASE {branches} ELSE {_match(rule, rule.otherwise, kind, params)} END"
        try:
            broken = _scalar(conn, f'SELECT count(*) FROM "{rule.table}" WHERE NOT ({holds})', tuple(params))
            out.append(Check("rule", rule.name, broken == 0, f"{int(broken)} rows break it"))
        except Exception as error:  # each engine has its own error types; the message says what is wrong
            out.append(Check("rule", rule.name, False, f"cannot be checked: {str(error).splitlines()[0]}"))
    return out


def _planted(conn: Output, spec: Spec) -> list[Check]:
    out = []
    calendar = active_days(spec.start, spec.anchor)
    weights = dict(zip(calendar, density(calendar, spec.seasonality), strict=True))
    for event in spec.planted:
        stamp = spec.tables[event.table].stamp or ""
        length = (event.end - event.start).days + 1
        window = [event.start + timedelta(days=i) for i in range(length)]
        # the baseline: the four weeks (at least the window's length) before, seasonally adjusted
        span = max(28, length)
        before = [event.start - timedelta(days=span - i) for i in range(span)]

        def count(first: date, last: date, stamp: str = stamp, event=event) -> float:
            return _scalar(
                conn,
                f'SELECT count(*) FROM "{event.table}" WHERE "{event.column}" = ? AND {_day(stamp)} BETWEEN ? AND ?',
                (event.value, first.isoformat(), last.isoformat()),
            )

        during, prior = count(window[0], window[-1]), count(before[0], before[-1])
        weight_during = sum(weights.get(d, 0) for d in window)
        weight_before = max(1e-9, sum(weights.get(d, 0) for d in before))
        baseline = prior * weight_during / weight_before
        ratio = during / baseline if baseline else float("inf")
        row = event.cause["row"]
        cause_where = " AND ".join(
            f'CAST("{k}" AS VARCHAR) = ?' if isinstance(v, str) else f'"{k}" = ?' for k, v in row.items()
        )
        cause_sql = f'SELECT count(*) FROM "{event.cause["table"]}" WHERE {cause_where}'
        causes = _scalar(conn, cause_sql, tuple(row.values()))
        # the change must stand out (at least half of it) and match the planted factor within sampling noise
        stands_out = ratio >= 1 + (event.factor - 1) / 2 if event.factor >= 1 else ratio <= 1 - (1 - event.factor) / 2
        noise = 0.25 + 2 / max(1.0, baseline) ** 0.5
        visible = prior > 0 and stands_out and abs(ratio / event.factor - 1) <= noise and causes >= 1
        out.append(
            Check(
                "planted event",
                event.name,
                visible,
                f"{int(during)} rows vs {baseline:.1f} expected from the weeks before (x{ratio:.2f}, planted "
                f"x{event.factor:.2f}); cause recorded: {bool(causes)}",
            )
        )
    return out


def verify(path: str | Path) -> list[Check]:
    """Check foreign keys, segment shares, seasonal multipliers, operation rules and planted events."""
    database = Path(path)
    spec, _ = stored_spec(database)
    with open_output(database) as conn:
        return [
            *_foreign_keys(conn, spec),
            *_segments(conn, spec),
            *_seasonality(conn, spec),
            *_rules(conn, spec),
            *_planted(conn, spec),
        ]
