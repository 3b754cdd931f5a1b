"""verify: check every rule of a vertical's spec with SQL on the generated data."""

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from biarena.synth.calendar import active_days, days, density
from biarena.synth.generator import stored_spec
from biarena.synth.reader import Output, open_output
from biarena.synth.schema import column_type, parent_of, seconds
from biarena.synth.spec import Column, Planted, Rule, Spec


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


def _epoch(conn: Output, column: str) -> str:
    """Seconds since 1970 of a timestamp or date column, on the connection's engine."""
    if conn.format == "sqlite":
        return f"CAST(strftime('%s', {column}) AS INTEGER)"
    return f"epoch(CAST({column} AS TIMESTAMP))"


def _count(conn: Output, kind: str, name: str, sql: str, what: str = "rows break it") -> Check:
    try:
        broken = _scalar(conn, sql)
    except Exception as error:  # each engine has its own error types; the message says what is wrong
        return Check(kind, name, False, f"cannot be checked: {str(error).splitlines()[0]}")
    return Check(kind, name, broken == 0, f"{int(broken)} {what}")


def _relations(conn: Output, spec: Spec) -> list[Check]:
    """Consistency through keys: time order and lags, inherited values, parent conditions, matches, ranges."""
    out = []
    anchor = seconds(spec.anchor)
    for name, table in spec.tables.items():
        for column_name, column in table.columns.items():
            child = f'c."{column_name}"'
            if column.kind == "after":
                if column.via:
                    parent = parent_of(spec, name, column_name)
                    key = str(table.columns[column.via].ref).split(".")[1]
                    source = f'"{name}" c JOIN "{parent}" p ON c."{column.via}" = p."{key}"'
                    base, label = f'p."{column.of}"', f"{name}.{column_name} after {parent}.{column.of}"
                else:
                    source, base, label = f'"{name}" c', f'c."{column.of}"', f"{name}.{column_name} after {column.of}"
                lag = f"({_epoch(conn, child)} - {_epoch(conn, base)})"
                low, high = (column.low or 0.0) * 3600, (column.high if column.high is not None else 24.0) * 3600
                # a lag cut short by the end of the data is the only one allowed below `low`
                short = f"({lag} < {low} AND {_epoch(conn, child)} < {anchor - 1})"
                sql = f"SELECT count(*) FROM {source} WHERE {lag} < 0 OR {lag} > {high} OR {short}"
                out.append(_count(conn, "timestamp order", label, sql, "rows outside the lag"))
            elif column.kind == "inherit":
                hops, last = spec.path(name, column.via or "", column.of or "")
                # through an optional key the value is empty exactly where the key is
                optional = any(spec.tables[t].columns[step].empty is not None for t, step, _, _ in hops)
                joins, alias = f'"{name}" c', "c"
                for i, (_, step, parent, key) in enumerate(hops):
                    joins += f' {"LEFT " if optional else ""}JOIN "{parent}" p{i} ON {alias}."{step}" = p{i}."{key}"'
                    alias = f"p{i}"
                same = f'coalesce({child} = {alias}."{last}", FALSE)'
                if optional:
                    same = f'({same} OR ({child} IS NULL AND {alias}."{last}" IS NULL))'
                sql = f"SELECT count(*) FROM {joins} WHERE NOT {same}"
                out.append(_count(conn, "inherited", f"{name}.{column_name} = {hops[-1][2]}.{last}", sql))
            elif column.ranges:
                out.extend(_ranges(conn, name, column_name, column))
            if column.min is not None or column.max is not None:
                out.append(_bounds(conn, name, column_name, column))
            if column.kind != "foreign" or not column.ref:
                continue
            parent, key = column.ref.split(".")
            join = f'"{name}" c JOIN "{parent}" p ON c."{column_name}" = p."{key}"'
            if column.follows and table.stamp:
                lag = (column.low or 0.0) * 3600
                child_time, parent_time = f'c."{table.stamp}"', f'p."{column.follows}"'
                late = f"{_epoch(conn, child_time)} < {_epoch(conn, parent_time)} + {lag}"
                label = f"{name}.{table.stamp} after {parent}.{column.follows}"
                out.append(_count(conn, "timestamp order", label, f"SELECT count(*) FROM {join} WHERE {late}"))
            if column.where:
                sql = (
                    f'SELECT count(*) FROM "{name}" WHERE "{column_name}" IS NOT NULL AND "{column_name}" NOT IN '
                    f'(SELECT "{key}" FROM "{parent}" WHERE {column.where})'
                )
                out.append(_count(conn, "parent condition", f"{name}.{column_name}: {column.where}", sql))
            if column.match:
                out.append(_match_share(conn, spec, name, column_name, parent, join))
            if column.empty is not None:
                out.append(_empty(conn, name, column_name, column))
    return out


def _empty(conn: Output, name: str, column_name: str, column: Column) -> Check:
    """An optional key is empty where its condition holds and nowhere else, or in its share of the rows."""
    if isinstance(column.empty, str):
        label = f"{name}.{column_name} empty where {column.empty}"
        sql = (
            f'SELECT count(*) FROM "{name}" WHERE (CASE WHEN ({column.empty}) THEN 1 ELSE 0 END) <> '
            f'(CASE WHEN "{column_name}" IS NULL THEN 1 ELSE 0 END)'
        )
        return _count(conn, "optional key", label, sql)
    share = float(column.empty or 0)
    label = f"{name}.{column_name} empty in {share:.0%} of rows"
    sql = f'SELECT count(*), sum(CASE WHEN "{column_name}" IS NULL THEN 1 ELSE 0 END) FROM "{name}"'
    n, empty = (v or 0 for v in conn.query(sql)[0])
    actual = empty / n if n else share
    # drawn exactly, then moved a little by planted events' copies and drops: sampling noise plus one point
    allowed = 0.01 + 3 * (share * (1 - share) / max(n, 1)) ** 0.5
    detail = f"{actual * 100:.1f}% of {n} rows empty (planned {share:.0%}, allowed ±{allowed * 100:.1f} points)"
    return Check("optional key", label, abs(actual - share) <= allowed, detail)


def _match_share(conn: Output, spec: Spec, name: str, column_name: str, parent: str, join: str) -> Check:
    """The planned share of rows whose parent matches the value reached through `via`, among the rows that can
    match: a value no eligible parent holds (a city with no driver, in a small database) cannot be matched."""
    column = spec.tables[name].columns[column_name]
    match = column.match or {}
    via = spec.tables[name].columns[str(match["via"])]
    other, key = str(via.ref).split(".")
    of, share = match.get("of", match["column"]), float(match.get("share", 1.0))
    label = f"{name}: {column_name}.{match['column']} = {match['via']}.{of}"
    eligible = f" WHERE {column.where}" if column.where else ""
    can_match = f'o."{of}" IN (SELECT "{match["column"]}" FROM "{parent}"{eligible})'
    sql = (
        f'SELECT count(*), sum(CASE WHEN p."{match["column"]}" = o."{of}" THEN 1 ELSE 0 END), '
        f"sum(CASE WHEN {can_match} THEN 0 ELSE 1 END) FROM {join} "
        f'JOIN "{other}" o ON c."{match["via"]}" = o."{key}"'
    )
    total, same, unmatchable = (v or 0 for v in conn.query(sql)[0])
    n = total - unmatchable
    actual = same / n if n else 1.0
    # unmatched rows may agree by chance, so the share is a floor, with sampling noise below it
    floor = share if share >= 1 else share - 3 * (share * (1 - share) / max(n, 1)) ** 0.5 - 0.01
    detail = f"{actual * 100:.1f}% of {n} rows agree (planned {share:.0%})"
    if unmatchable:
        detail += f"; {unmatchable} more rows name a {of} that no eligible {parent} row has"
    return Check("key match", label, actual >= floor, detail)


def _ranges(conn: Output, name: str, column_name: str, column: Column) -> list[Check]:
    ranges = column.ranges or {}
    slack = 0.5 * 10.0 ** -(column.round or 0) if column.round is not None else 1e-9
    out = []
    for value, (low, high) in ranges["values"].items():
        literal = f"'{value}'" if isinstance(value, str) else str(value)
        bounds = f"'{low}' AND '{high}'" if isinstance(low, date | str) else f"{low - slack} AND {high + slack}"
        sql = (
            f'SELECT count(*) FROM "{name}" WHERE "{ranges["column"]}" = {literal} AND '
            f'NOT ("{column_name}" BETWEEN {bounds})'
        )
        out.append(_count(conn, "range", f"{name}.{column_name} for {ranges['column']} = {value}", sql))
    return out


def _bounds(conn: Output, name: str, column_name: str, column: Column) -> Check:
    """A drawn number within its `min` and `max`, as the data hold it (planted events and rules may not move it out)."""
    parts, label = [], []
    if column.min is not None:
        parts.append(f'"{column_name}" < {column.min}')
        label.append(f">= {column.min:g}")
    if column.max is not None:
        parts.append(f'"{column_name}" > {column.max}')
        label.append(f"<= {column.max:g}")
    sql = f'SELECT count(*) FROM "{name}" WHERE {" OR ".join(parts)}'
    return _count(conn, "bounds", f"{name}.{column_name} {' and '.join(label)}", sql)


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
        planted = {d.strftime("%Y-%m") for p, _, _ in spec.touched(name) for d in days(p.start, p.end)}
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
        tolerance = 1.0 if kind == "int" else 10.0**-digits if digits is not None else 1e-6
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
        row = event.cause["row"]
        cause_where = " AND ".join(
            f'CAST("{k}" AS VARCHAR) = ?' if isinstance(v, str) else f'"{k}" = ?' for k, v in row.items()
        )
        cause_sql = f'SELECT count(*) FROM "{event.cause["table"]}" WHERE {cause_where}'
        causes = _scalar(conn, cause_sql, tuple(row.values()))
        lift = 1 + (event.factor - 1) * spec.slice_share(event)
        for table, sliced, factor in [(event.table, True, event.factor), *((t, False, lift) for t in event.propagate)]:
            ratio, during, baseline = _change(conn, spec, event, table, sliced, weights)
            # the change must stand out (at least half of it, less what a small sample can blur) and match the
            # planted factor within sampling noise: the ratio of two counts, each about Poisson, varies by
            # factor * sqrt(1/during + 1/before) (with a few rows a week, an event cannot be told from chance)
            blur = max(1.0, factor) * (1 / max(1.0, baseline * factor) + 1 / max(1.0, baseline)) ** 0.5
            half = (factor - 1) / 2
            stands_out = ratio >= 1 + half - blur if factor >= 1 else ratio <= 1 + half + blur
            near = abs(ratio - factor) <= factor * 0.25 + 2 * blur
            visible = baseline > 0 and stands_out and near and causes >= 1
            out.append(
                Check(
                    "planted event" if sliced else "propagated event",
                    event.name if sliced else f"{event.name} -> {table}",
                    visible,
                    f"{int(during)} rows vs {baseline:.1f} expected from the weeks before (x{ratio:.2f}, planted "
                    f"x{factor:.2f}); cause recorded: {bool(causes)}",
                )
            )
    return out


def _change(
    conn: Output, spec: Spec, event: Planted, table: str, sliced: bool, weights: dict[date, float]
) -> tuple[float, float, float]:
    """(ratio, rows during, rows expected) of an event's window against the four weeks before, seasonally
    adjusted; for a shift in mix, the slice's share of all rows instead."""
    stamp = spec.tables[table].stamp or ""
    length = (event.end - event.start).days + 1
    window = [event.start + timedelta(days=i) for i in range(length)]
    span = max(28, length)
    before = [event.start - timedelta(days=span - i) for i in range(span)]

    def count(first: date, last: date, only_slice: bool) -> float:
        where = f'"{event.column}" = ? AND ' if only_slice else ""
        params = (event.value,) if only_slice else ()
        sql = f'SELECT count(*) FROM "{table}" WHERE {where}{_day(stamp)} BETWEEN ? AND ?'
        return _scalar(conn, sql, (*params, first.isoformat(), last.isoformat()))

    during, prior = count(window[0], window[-1], sliced), count(before[0], before[-1], sliced)
    if event.kind == "shift" and sliced:
        baseline = prior / max(1.0, count(before[0], before[-1], False)) * count(window[0], window[-1], False)
    else:
        weight_during = sum(weights.get(d, 0) for d in window)
        weight_before = max(1e-9, sum(weights.get(d, 0) for d in before))
        baseline = prior * weight_during / weight_before
    return (during / baseline if baseline else float("inf")), during, baseline


def verify(path: str | Path) -> list[Check]:
    """Check foreign keys, consistency through keys, segment shares, seasonality, rules and planted events."""
    database = Path(path)
    spec, _ = stored_spec(database)
    with open_output(database) as conn:
        return [
            *_foreign_keys(conn, spec),
            *_relations(conn, spec),
            *_segments(conn, spec),
            *_seasonality(conn, spec),
            *_rules(conn, spec),
            *_planted(conn, spec),
        ]
