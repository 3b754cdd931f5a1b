"""The checks of consistency through keys: time order and lags, inherited values, parent conditions, matches,
optional keys, ranges and bounds."""

from datetime import date

from biarena.db.sql_text import Literal, Sql, compose, qualified
from biarena.synth.check import Check, count_check, epoch, left_out, outside_events
from biarena.synth.reader import Output
from biarena.synth.sampling import (
    CHECK_ALPHA,
    share_pvalue,
)
from biarena.synth.schema import column_type, seconds
from biarena.synth.spec import Column, Spec, column_kind


def relation_checks(conn: Output, spec: Spec) -> list[Check]:
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
                out.append(count_check(conn, "inherited", f"{name}.{column_name} = {hops[-1][2]}.{last}", sql))
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
                out.append(count_check(conn, "parent condition", f"{name}.{column_name}: {column.where}", sql))
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
    latest = epoch(conn, bases[0][0])
    for base, _ in bases[1:]:
        other = epoch(conn, base)
        latest = compose("(CASE WHEN {other} > {latest} THEN {other} ELSE {latest} END)", other=other, latest=latest)
    lag = compose("({moment} - {latest})", moment=epoch(conn, child), latest=latest)
    low, high = (column.low or 0.0) * 3600, (column.high if column.high is not None else 24.0) * 3600
    ceilings = []
    for bound in column.not_after or []:
        sql_of, what = reach(bound)
        # a date bounds the whole of its day
        whole_day = 86_399 if column_kind(spec, name, bound) == "date" else 0
        last = compose("({moment} + {day})", moment=epoch(conn, sql_of), day=whole_day)
        ceilings.append((last, what))
    # a lag cut short by the end of the data, or by a `not_after` time, is the only one allowed below `low`
    moment = epoch(conn, child)
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
    out = [count_check(conn, "timestamp order", label, sql, "rows outside the lag")]
    for last, what in ceilings:
        sql = compose("SELECT count(*) FROM {source} WHERE {moment} > {last}", source=source, moment=moment, last=last)
        out.append(count_check(conn, "timestamp order", f"{name}.{column_name} before {what}", sql))
    if column.via and table.columns[column.via].empty is not None:
        sql = compose(
            "SELECT count(*) FROM {name} WHERE (CASE WHEN {via} IS NULL THEN 1 ELSE 0 END) <> "
            "(CASE WHEN {column} IS NULL THEN 1 ELSE 0 END)",
            name=name,
            via=column.via,
            column=column_name,
        )
        out.append(count_check(conn, "optional key", f"{name}.{column_name} empty where {column.via} is", sql))
    return out


def _lifetime(conn: Output, spec: Spec, name: str, column_name: str, column: Column, join: Sql) -> list[Check]:
    """A key's parent alive at the row's time: on or after its start (`follows`, at least `low` hours before) and
    on or before its end of validity (`until`; a date is valid all that day)."""
    at = column.at or spec.tables[name].stamp
    if at is None:
        return []
    parent = (column.ref or ".").split(".")[0]
    moment = epoch(conn, qualified("c", at))
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
        moment = epoch(conn, qualified(alias, last))
    out = []
    # rows before the parent's start (plus the lag), or at or after its end (a date's end: all that day)
    bounds = []
    if column.follows:
        bounds.append(("after", column.follows, "<", Literal((column.low or 0.0) * 3600)))
    if column.until:
        day = 86_400 if column_type(spec, parent, column.until) == "date" else 0
        bounds.append(("before", column.until, ">=", day or 1))
    for word, bound, broken, offset in bounds:
        sql = compose(
            "SELECT count(*) FROM {join} WHERE {moment} {broken} {bound} + {offset}",
            join=join,
            moment=moment,
            broken=Sql(broken),
            bound=epoch(conn, qualified("p", bound)),
            offset=offset,
        )
        out.append(count_check(conn, "timestamp order", f"{name}.{at} {word} {parent}.{bound}", sql))
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
        return count_check(conn, "optional key", label, sql)
    share = float(column.empty or 0)
    label = f"{name}.{column_name} empty in {share:.0%} of rows"
    outside = outside_events(spec, name, name)
    sql = compose(
        "SELECT count(*), sum(CASE WHEN {column} IS NULL THEN 1 ELSE 0 END) FROM {name}{outside}",
        column=column_name,
        name=name,
        outside=outside,
    )
    n, empty = (int(v or 0) for v in conn.query(sql)[0])
    pvalue = share_pvalue(empty, n, share)
    detail = f"{empty / n if n else share:.1%} of {n} rows empty (planned {share:.0%}; p = {pvalue:.2g})"
    return Check("optional key", label, pvalue >= CHECK_ALPHA, detail + left_out(spec, name), pvalue, CHECK_ALPHA)


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
        start, moment = epoch(conn, qualified("q", column.follows)), epoch(conn, qualified("c", at))
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
        outside=outside_events(spec, name, Sql("c")),
    )
    total, same, unmatchable = (int(v or 0) for v in conn.query(sql)[0])
    n = total - unmatchable
    # unmatched rows may agree by chance, so the planned share is a floor: a one-sided test
    pvalue = share_pvalue(same, n, share, "less") if share < 1 else (1.0 if same == n else 0.0)
    detail = f"{same / n if n else 1.0:.1%} of {n} rows agree (planned {share:.0%}; p = {pvalue:.2g})"
    if unmatchable:
        detail += f"; {unmatchable} more rows name a {of} that no eligible {parent} row has"
    return Check("key match", label, pvalue >= CHECK_ALPHA, detail + left_out(spec, name), pvalue, CHECK_ALPHA)


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
        out.append(count_check(conn, "range", f"{name}.{column_name} for {ranges['column']} = {value}", sql))
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
    return count_check(conn, "bounds", f"{name}.{column_name} {' and '.join(label)}", sql)
