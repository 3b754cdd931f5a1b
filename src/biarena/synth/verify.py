"""verify: check every rule of a vertical's spec with SQL on the generated data."""

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from biarena.db.sql_text import Literal, Sql, compose, qualified
from biarena.synth.calendar import active_days, days, density
from biarena.synth.generator import stored_spec
from biarena.synth.reader import Output, open_output
from biarena.synth.sampling import (
    CHECK_ALPHA,
    EVENT_ALPHA,
    rate_ratio_pvalue,
    share_pvalue,
    shares_pvalue,
    tolerant_share_pvalue,
)
from biarena.synth.schema import column_type, seconds
from biarena.synth.spec import Column, Planted, Rule, Spec, column_kind


@dataclass(frozen=True)
class Check:
    """One verified property: what, whether it holds, and the numbers."""

    kind: str
    name: str
    ok: bool
    detail: str
    pvalue: float | None = None
    """For a sampled check: the p-value of the data against the plan (None for a check that holds row by row)."""
    alpha: float | None = None
    """For a sampled check: the false-alarm rate it fails below (see `biarena.synth.sampling`)."""


def _scalar(conn: Output, sql: str, params: tuple = ()) -> float:
    return conn.query(sql, params)[0][0] or 0


def _day(column: str | Sql) -> Sql:
    """The `YYYY-MM-DD` text of a timestamp column (a name, or a column already written), on any engine."""
    return compose("substr(CAST({column} AS VARCHAR), 1, 10)", column=column)


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
            orphans = _scalar(conn, sql)
            out.append(
                Check(
                    "foreign key", f"{name}.{column_name} -> {column.ref}", orphans == 0, f"{int(orphans)} orphan rows"
                )
            )
    return out


def _epoch(conn: Output, column: Sql) -> Sql:
    """Seconds since 1970 of a timestamp or date column (as written in the statement), on the connection's engine."""
    if conn.format == "sqlite":
        return compose("CAST(strftime('%s', {column}) AS INTEGER)", column=column)
    return compose("epoch(CAST({column} AS TIMESTAMP))", column=column)


def _count(conn: Output, kind: str, name: str, sql: Sql, what: str = "rows break it") -> Check:
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
            child = qualified("c", column_name)
            if column.kind == "after":
                out.extend(_after(conn, spec, name, column_name, column, anchor))
            elif column.kind == "inherit":
                hops, last = spec.path(name, column.via or "", column.of or "")
                # through an optional key the value is empty exactly where the key is
                optional = any(spec.tables[t].columns[step].empty is not None for t, step, _, _ in hops)
                joins, alias = compose("{name} c", name=name), "c"
                for i, (_, step, parent, key) in enumerate(hops):
                    joins = compose(
                        "{joins} {left}JOIN {parent} {to} ON {step} = {key}",
                        joins=joins,
                        left=Sql("LEFT " if optional else ""),
                        parent=parent,
                        to=Sql(f"p{i}"),
                        step=qualified(alias, step),
                        key=qualified(f"p{i}", key),
                    )
                    alias = f"p{i}"
                same = compose("coalesce({child} = {last}, FALSE)", child=child, last=qualified(alias, last))
                if optional:
                    same = compose(
                        "({same} OR ({child} IS NULL AND {last} IS NULL))",
                        same=same,
                        child=child,
                        last=qualified(alias, last),
                    )
                sql = compose("SELECT count(*) FROM {joins} WHERE NOT {same}", joins=joins, same=same)
                out.append(_count(conn, "inherited", f"{name}.{column_name} = {hops[-1][2]}.{last}", sql))
            elif column.ranges:
                out.extend(_ranges(conn, name, column_name, column))
            if column.min is not None or column.max is not None:
                out.append(_bounds(conn, name, column_name, column))
            if column.kind != "foreign" or not column.ref:
                continue
            parent, key = column.ref.split(".")
            join = compose(
                "{name} c JOIN {parent} p ON c.{column} = p.{key}",
                name=name,
                parent=parent,
                column=column_name,
                key=key,
            )
            out.extend(_lifetime(conn, spec, name, column_name, column, join))
            if column.where:
                sql = compose(
                    "SELECT count(*) FROM {name} WHERE {column} IS NOT NULL AND {column} NOT IN "
                    "(SELECT {key} FROM {parent} WHERE {where})",
                    name=name,
                    column=column_name,
                    key=key,
                    parent=parent,
                    where=Sql(column.where),
                )
                out.append(_count(conn, "parent condition", f"{name}.{column_name}: {column.where}", sql))
            if column.match:
                out.append(_match_share(conn, spec, name, column_name, parent, join))
            if column.empty is not None:
                out.append(_empty(conn, spec, name, column_name, column))
    return out


def _after(conn: Output, spec: Spec, name: str, column_name: str, column: Column, anchor: int) -> list[Check]:
    """An `after` column within its lag of the latest of its bases (`of`, through `via`, and `not_before`), on or
    before its `not_after` times; through an optional key, empty exactly where the key is."""
    table = spec.tables[name]
    joins: list[Sql] = []

    def reach(source: str) -> tuple[Sql, str]:
        """The SQL of a column of the row, or of `key.column` through its keys (joining them), and its label."""
        if "." not in source:
            return qualified("c", source), source
        via, of = source.split(".", 1)
        hops, last = spec.path(name, via, of)
        alias = "c"
        for _, step, parent, key in hops:
            to = f"j{len(joins)}"
            joins.append(
                compose(
                    "LEFT JOIN {parent} {to} ON {step} = {key}",
                    parent=parent,
                    to=Sql(to),
                    step=qualified(alias, step),
                    key=qualified(to, key),
                )
            )
            alias = to
        return qualified(alias, last), f"{hops[-1][2]}.{last}"

    bases = [reach(f"{column.via}.{column.of}" if column.via else str(column.of))]
    bases += [reach(base) for base in column.not_before or []]
    child = qualified("c", column_name)
    latest = _epoch(conn, bases[0][0])
    for base, _ in bases[1:]:
        other = _epoch(conn, base)
        latest = compose("(CASE WHEN {other} > {latest} THEN {other} ELSE {latest} END)", other=other, latest=latest)
    lag = compose("({moment} - {latest})", moment=_epoch(conn, child), latest=latest)
    low, high = (column.low or 0.0) * 3600, (column.high if column.high is not None else 24.0) * 3600
    ceilings = []
    for bound in column.not_after or []:
        sql_of, what = reach(bound)
        # a date bounds the whole of its day
        whole_day = 86_399 if column_kind(spec, name, bound) == "date" else 0
        last = compose("({moment} + {day})", moment=_epoch(conn, sql_of), day=whole_day)
        ceilings.append((last, what))
    # a lag cut short by the end of the data, or by a `not_after` time, is the only one allowed below `low`
    moment = _epoch(conn, child)
    cut = Sql("".join(compose(" AND NOT ({moment} >= {last})", moment=moment, last=last) for last, _ in ceilings))
    short = compose(
        "({lag} < {low} AND {moment} < {anchor}{cut})",
        lag=lag,
        low=Literal(low),
        moment=moment,
        anchor=anchor - 1,
        cut=cut,
    )
    source = Sql(" ".join([compose("{name} c", name=name), *joins]))
    sql = compose(
        "SELECT count(*) FROM {source} WHERE {lag} < 0 OR {lag} > {high} OR {short}",
        source=source,
        lag=lag,
        high=Literal(high),
        short=short,
    )
    label = f"{name}.{column_name} after {' and '.join(what for _, what in bases)}"
    out = [_count(conn, "timestamp order", label, sql, "rows outside the lag")]
    for last, what in ceilings:
        sql = compose("SELECT count(*) FROM {source} WHERE {moment} > {last}", source=source, moment=moment, last=last)
        out.append(_count(conn, "timestamp order", f"{name}.{column_name} before {what}", sql))
    if column.via and table.columns[column.via].empty is not None:
        sql = compose(
            "SELECT count(*) FROM {name} WHERE (CASE WHEN {via} IS NULL THEN 1 ELSE 0 END) <> "
            "(CASE WHEN {column} IS NULL THEN 1 ELSE 0 END)",
            name=name,
            via=column.via,
            column=column_name,
        )
        out.append(_count(conn, "optional key", f"{name}.{column_name} empty where {column.via} is", sql))
    return out


def _lifetime(conn: Output, spec: Spec, name: str, column_name: str, column: Column, join: Sql) -> list[Check]:
    """A key's parent alive at the row's time: on or after its start (`follows`, at least `low` hours before) and
    on or before its end of validity (`until`; a date is valid all that day)."""
    at = column.at or spec.tables[name].stamp
    if at is None:
        return []
    parent = (column.ref or ".").split(".")[0]
    moment = _epoch(conn, qualified("c", at))
    if "." in at:
        hops, last = spec.path(name, *at.split(".", 1))
        alias = "c"
        for i, (_, step, other, key) in enumerate(hops):
            join = compose(
                "{join} JOIN {other} {to} ON {step} = {key}",
                join=join,
                other=other,
                to=Sql(f"a{i}"),
                step=qualified(alias, step),
                key=qualified(f"a{i}", key),
            )
            alias = f"a{i}"
        moment = _epoch(conn, qualified(alias, last))
    out = []
    if column.follows:
        lag = (column.low or 0.0) * 3600
        start = _epoch(conn, qualified("p", column.follows))
        sql = compose(
            "SELECT count(*) FROM {join} WHERE {moment} < {start} + {lag}",
            join=join,
            moment=moment,
            start=start,
            lag=Literal(lag),
        )
        label = f"{name}.{at} after {parent}.{column.follows}"
        out.append(_count(conn, "timestamp order", label, sql))
    if column.until:
        day = 86_400 if column_type(spec, parent, column.until) == "date" else 0
        end = _epoch(conn, qualified("p", column.until))
        sql = compose(
            "SELECT count(*) FROM {join} WHERE {moment} >= {end} + {day}",
            join=join,
            moment=moment,
            end=end,
            day=day or 1,
        )
        label = f"{name}.{at} before {parent}.{column.until}"
        out.append(_count(conn, "timestamp order", label, sql))
    return out


def _empty(conn: Output, spec: Spec, name: str, column_name: str, column: Column) -> Check:
    """An optional key is empty where its condition holds and nowhere else, or in its share of the rows."""
    if isinstance(column.empty, str):
        label = f"{name}.{column_name} empty where {column.empty}"
        sql = compose(
            "SELECT count(*) FROM {name} WHERE (CASE WHEN ({empty}) THEN 1 ELSE 0 END) <> "
            "(CASE WHEN {column} IS NULL THEN 1 ELSE 0 END)",
            name=name,
            empty=Sql(column.empty),
            column=column_name,
        )
        return _count(conn, "optional key", label, sql)
    share = float(column.empty or 0)
    label = f"{name}.{column_name} empty in {share:.0%} of rows"
    outside = _outside_events(spec, name, name)
    sql = compose(
        "SELECT count(*), sum(CASE WHEN {column} IS NULL THEN 1 ELSE 0 END) FROM {name}{outside}",
        column=column_name,
        name=name,
        outside=outside,
    )
    n, empty = (int(v or 0) for v in conn.query(sql)[0])
    pvalue = share_pvalue(empty, n, share)
    detail = f"{empty / n if n else share:.1%} of {n} rows empty (planned {share:.0%}; p = {pvalue:.2g})"
    return Check("optional key", label, pvalue >= CHECK_ALPHA, detail + _left_out(spec, name), pvalue, CHECK_ALPHA)


def _match_share(conn: Output, spec: Spec, name: str, column_name: str, parent: str, join: Sql) -> Check:
    """The planned share of rows whose parent matches the value reached through `via`, among the rows that can
    match: a value no eligible parent holds (a city with no driver, in a small database, or none that had joined by
    a row timed by a lag) cannot be matched."""
    column = spec.tables[name].columns[column_name]
    match = column.match or {}
    via = spec.tables[name].columns[str(match["via"])]
    other, key = str(via.ref).split(".")
    of, share = match.get("of", match["column"]), float(match.get("share", 1.0))
    label = f"{name}: {column_name}.{match['column']} = {match['via']}.{of}"
    eligible = Sql(" WHERE " + column.where if column.where else "")
    matched = str(match["column"])
    can_match = compose(
        "{of} IN (SELECT {matched} FROM {parent}{eligible})",
        of=qualified("o", of),
        matched=matched,
        parent=parent,
        eligible=eligible,
    )
    at = column.at or spec.tables[name].stamp
    if column.follows and at and "." not in at and spec.tables[name].columns[at].kind == "after":
        # a row timed by a lag keeps it: a value none of whose parents had started by then cannot be matched
        start, moment = _epoch(conn, qualified("q", column.follows)), _epoch(conn, qualified("c", at))
        where = Sql(" AND (" + column.where + ")" if column.where else "")
        can_match = compose(
            "EXISTS (SELECT 1 FROM {parent} q WHERE q.{matched} = {of} AND {start} + {lag} <= {moment}{where})",
            parent=parent,
            matched=matched,
            of=qualified("o", of),
            start=start,
            lag=Literal((column.low or 0.0) * 3600),
            moment=moment,
            where=where,
        )
    sql = compose(
        "SELECT count(*), sum(CASE WHEN p.{matched} = {of} THEN 1 ELSE 0 END), "
        "sum(CASE WHEN {can_match} THEN 0 ELSE 1 END) FROM {join} JOIN {other} o ON c.{via} = o.{key}{outside}",
        matched=matched,
        of=qualified("o", of),
        can_match=can_match,
        join=join,
        other=other,
        via=str(match["via"]),
        key=key,
        outside=_outside_events(spec, name, Sql("c")),
    )
    total, same, unmatchable = (int(v or 0) for v in conn.query(sql)[0])
    n = total - unmatchable
    # unmatched rows may agree by chance, so the planned share is a floor: a one-sided test
    pvalue = share_pvalue(same, n, share, "less") if share < 1 else (1.0 if same == n else 0.0)
    detail = f"{same / n if n else 1.0:.1%} of {n} rows agree (planned {share:.0%}; p = {pvalue:.2g})"
    if unmatchable:
        detail += f"; {unmatchable} more rows name a {of} that no eligible {parent} row has"
    return Check("key match", label, pvalue >= CHECK_ALPHA, detail + _left_out(spec, name), pvalue, CHECK_ALPHA)


def _ranges(conn: Output, name: str, column_name: str, column: Column) -> list[Check]:
    ranges = column.ranges or {}
    slack = 0.5 * 10.0 ** -(column.round or 0) if column.round is not None else 1e-9
    out = []
    for value, (low, high) in ranges["values"].items():
        if isinstance(low, date | str):
            bottom, top = Literal(str(low)), Literal(str(high))
        else:
            bottom, top = Literal(low - slack), Literal(high + slack)
        sql = compose(
            "SELECT count(*) FROM {name} WHERE {by} = {value} AND NOT ({column} BETWEEN {bottom} AND {top})",
            name=name,
            by=str(ranges["column"]),
            value=Literal(value),
            column=column_name,
            bottom=bottom,
            top=top,
        )
        out.append(_count(conn, "range", f"{name}.{column_name} for {ranges['column']} = {value}", sql))
    return out


def _bounds(conn: Output, name: str, column_name: str, column: Column) -> Check:
    """A drawn number within its `min` and `max`, as the data hold it (planted events and rules may not move it out)."""
    parts, label = [], []
    if column.min is not None:
        parts.append(compose("{column} < {min}", column=column_name, min=Literal(column.min)))
        label.append(f">= {column.min:g}")
    if column.max is not None:
        parts.append(compose("{column} > {max}", column=column_name, max=Literal(column.max)))
        label.append(f"<= {column.max:g}")
    sql = compose("SELECT count(*) FROM {name} WHERE {broken}", name=name, broken=Sql(" OR ".join(parts)))
    return _count(conn, "bounds", f"{name}.{column_name} {' and '.join(label)}", sql)


def _outside_events(spec: Spec, table: str, alias: str | Sql) -> Sql:
    """A WHERE clause keeping a table's rows outside the windows of the planted events that change it (empty when
    none does): planted events move shares on purpose, so shares are checked on the other rows."""
    stamp = spec.tables[table].stamp
    windows = sorted({(event.start, event.end) for event, _, _ in spec.touched(table)})
    if stamp is None or not windows:
        return Sql("")
    day = _day(compose("{alias}.{stamp}", alias=alias, stamp=stamp))
    outside = [
        compose("{day} NOT BETWEEN {a} AND {b}", day=day, a=Literal(a.isoformat()), b=Literal(b.isoformat()))
        for a, b in windows
    ]
    return Sql(" WHERE " + " AND ".join(outside))


def _left_out(spec: Spec, table: str) -> str:
    return "; rows in planted events' windows left out" if spec.tables[table].stamp and spec.touched(table) else ""


def _segments(conn: Output, spec: Spec) -> list[Check]:
    """Segment shares: a binomial test per segment, Bonferroni over the segments of a column."""
    out = []
    for segment in spec.segments:
        column = spec.tables[segment.table].columns[segment.column]
        wanted = column.values if isinstance(column.values, dict) else {v: 1.0 for v in column.values or []}
        total = sum(wanted.values())
        outside = _outside_events(spec, segment.table, segment.table)
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
            f"points; p = {pvalue:.2g}){_left_out(spec, segment.table)}"
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
        sql = compose("SELECT substr({day}, 1, 7), count(*) FROM {name} GROUP BY 1", day=_day(stamp), name=name)
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
        try:
            broken = _scalar(conn, sql, tuple(params))
            out.append(Check("rule", rule.name, broken == 0, f"{int(broken)} rows break it"))
        except Exception as error:  # each engine has its own error types; the message says what is wrong
            out.append(Check("rule", rule.name, False, f"cannot be checked: {str(error).splitlines()[0]}"))
    return out


BASELINE_DAYS = 84
"""The days before a planted event its window is compared with (fewer only at the start of the data): twelve weeks,
so that the baseline's own noise adds little to the window's."""


def _planted(conn: Output, spec: Spec) -> list[Check]:
    """Planted and propagated events against the weeks before them: an exact conditional test of the counts in the
    window and before it against the planted factor (seasonally adjusted; for a shift in mix, against the rows of
    each window), two-sided; and the cause's row present."""
    out = []
    calendar = active_days(spec.start, spec.anchor)
    weights = dict(zip(calendar, density(calendar, spec.seasonality), strict=True))
    for event in spec.planted:
        row = event.cause["row"]
        cause_where = " AND ".join(
            compose("CAST({k} AS VARCHAR) = ?" if isinstance(v, str) else "{k} = ?", k=k) for k, v in row.items()
        )
        cause_sql = compose(
            "SELECT count(*) FROM {table} WHERE {where}", table=str(event.cause["table"]), where=Sql(cause_where)
        )
        causes = _scalar(conn, cause_sql, tuple(row.values()))
        lift = 1 + (event.factor - 1) * spec.slice_share(event)
        for table, sliced, factor in [(event.table, True, event.factor), *((t, False, lift) for t in event.propagate)]:
            change = _counts(conn, spec, event, table, sliced, weights)
            pvalue, unchanged = change.pvalue(factor), change.pvalue(1.0)
            out.append(
                Check(
                    "planted event" if sliced else "propagated event",
                    event.name if sliced else f"{event.name} -> {table}",
                    pvalue >= EVENT_ALPHA and causes >= 1,
                    f"{change.during} rows vs {change.baseline:.1f} expected from the {change.days} days before "
                    f"(x{change.ratio:.2f}, planted x{factor:.2f}; p = {pvalue:.2g} against the planted factor, "
                    f"{unchanged:.2g} against none); cause recorded: {bool(causes)}",
                    pvalue,
                    EVENT_ALPHA,
                )
            )
    return out


@dataclass(frozen=True)
class EventCounts:
    """An event's window against the days before it: the counts, and the exposures a rate ratio compares them by
    (seasonal weight of the days, or for a shift in mix the rows of all slices)."""

    during: int
    before: int
    exposure_during: float
    exposure_before: float
    days: int

    @property
    def baseline(self) -> float:
        """The rows the window would hold at the rate before it."""
        return self.before * self.exposure_during / self.exposure_before if self.exposure_before else 0.0

    def pvalue(self, factor: float) -> float:
        """Two-sided p-value of the counts against a planted factor (see `rate_ratio_pvalue`)."""
        return rate_ratio_pvalue(self.during, self.before, self.exposure_during, self.exposure_before, factor)

    @property
    def ratio(self) -> float:
        """Rows in the window per row expected from before it."""
        return self.during / self.baseline if self.baseline else float("inf")


def _counts(
    conn: Output, spec: Spec, event: Planted, table: str, sliced: bool, weights: dict[date, float]
) -> EventCounts:
    """The counts of an event's window and of the `BASELINE_DAYS` before it that no planted event touching the table
    covers; for a shift in mix, the slice's rows against all rows of each."""
    stamp = spec.tables[table].stamp or ""
    window = days(event.start, event.end)
    taken = {d for other, _, _ in spec.touched(table) for d in days(other.start, other.end)}
    span = max(BASELINE_DAYS, len(window))
    before = [d for d in days(event.start - timedelta(days=span), event.start - timedelta(days=1)) if d not in taken]
    before = [d for d in before if d in weights]

    def count(dates: list[date], only_slice: bool) -> int:
        if not dates:
            return 0
        where = compose("{column} = ? AND ", column=event.column) if only_slice else Sql("")
        params = (event.value,) if only_slice else ()
        sql = compose(
            "SELECT count(*) FROM {table} WHERE {where}{day} IN ({listed})",
            table=table,
            where=where,
            day=_day(stamp),
            listed=[Literal(d.isoformat()) for d in dates],
        )
        return int(_scalar(conn, sql, params))

    during, prior = count(window, sliced), count(before, sliced)
    if event.kind == "shift" and sliced:
        exposure_during, exposure_before = float(count(window, False)), float(count(before, False))
    else:
        exposure_during = sum(weights.get(d, 0.0) for d in window)
        exposure_before = sum(weights[d] for d in before)
    return EventCounts(during, prior, exposure_during, exposure_before, len(before))


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
