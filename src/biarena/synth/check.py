"""A verified property of simulated data (`Check`), and the SQL pieces the verification's checks share."""

from dataclasses import dataclass

from biarena.db.sql_text import Literal, Sql, compose
from biarena.synth.reader import Output
from biarena.synth.spec import Spec


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


def scalar(conn: Output, sql: str, params: tuple = ()) -> float:
    """The first value of the statement's first row (0 for none)."""
    return conn.query(sql, params)[0][0] or 0


def day_text(column: str | Sql) -> Sql:
    """The `YYYY-MM-DD` text of a timestamp column (a name, or a column already written), on any engine."""
    return compose("substr(CAST({column} AS VARCHAR), 1, 10)", column=column)


def epoch(conn: Output, column: Sql) -> Sql:
    """Seconds since 1970 of a timestamp or date column (as written in the statement), on the connection's engine."""
    if conn.format == "sqlite":
        return compose("CAST(strftime('%s', {column}) AS INTEGER)", column=column)
    return compose("epoch(CAST({column} AS TIMESTAMP))", column=column)


def count_check(conn: Output, kind: str, name: str, sql: Sql, what: str = "rows break it", params: tuple = ()) -> Check:
    """The check that no row breaks a property: `sql` counts the rows that do (a failed check when it cannot run)."""
    try:
        broken = scalar(conn, sql, params)
    except Exception as error:  # each engine has its own error types; the message says what is wrong
        return Check(kind, name, False, f"cannot be checked: {str(error).splitlines()[0]}")
    return Check(kind, name, broken == 0, f"{int(broken)} {what}")


def outside_events(spec: Spec, table: str, alias: str | Sql) -> Sql:
    """A WHERE clause keeping a table's rows outside the windows of the planted events that change it (empty when
    none does): planted events move shares on purpose, so shares are checked on the other rows."""
    stamp = spec.tables[table].stamp
    windows = sorted({(event.start, event.end) for event, _, _ in spec.touched(table)})
    if stamp is None or not windows:
        return Sql("")
    day = day_text(compose("{alias}.{stamp}", alias=alias, stamp=stamp))
    outside = [
        compose("{day} NOT BETWEEN {a} AND {b}", day=day, a=Literal(a.isoformat()), b=Literal(b.isoformat()))
        for a, b in windows
    ]
    return Sql(" WHERE " + " AND ".join(outside))


def left_out(spec: Spec, table: str) -> str:
    """What a share check's detail adds when planted events' windows were left out of it."""
    return "; rows in planted events' windows left out" if spec.tables[table].stamp and spec.touched(table) else ""
