"""latest_timestamp: the latest date or time a database holds, and the column that holds it."""

import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from biarena.db.column_words import is_audit, is_birth
from biarena.db.sql_text import compose
from biarena.errors import FormatError, UsageError

# Years from 9000 on are "open-ended" markers (9999-12-31), not moments in the data.
_SQLITE_ISO = "[0-8][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]*"
_DUCKDB_ISO = r"[0-8]\d{3}-[01]\d-[0-3]\d.*"
_SENTINEL_YEAR = 9000


@dataclass(frozen=True)
class Latest:
    """The latest moment found and where: `table.column`."""

    moment: datetime
    column: str
    maintenance: bool = False
    """It comes from a maintenance stamp or a birth date (`last_update`, `BirthDate`): taken only where no other
    column holds a date."""


def as_moment(value: Any) -> datetime | None:
    """A date, datetime or ISO-8601 text as a naive datetime (wall-clock time kept); None for anything else."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time())
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    else:
        return None
    if moment.year >= _SENTINEL_YEAR:
        return None
    return moment.replace(tzinfo=None)


def _later(best: Latest | None, value: Any, column: str) -> Latest | None:
    """The later of `best` and `value` (in `table.column`), a business date beating any maintenance stamp."""
    moment = as_moment(value)
    if moment is None:
        return best
    name = column.rsplit(".", 1)[-1]
    found = Latest(moment, column, maintenance=is_audit(name) or is_birth(name))
    if best is None or (best.maintenance and not found.maintenance):
        return found
    if found.maintenance and not best.maintenance:
        return best
    return found if moment > best.moment else best


def latest_timestamp(location: str | Path) -> Latest | None:
    """The latest date or time in any table: ISO text in any column, and date/time-typed columns."""
    text = str(location)
    if "://" in text:
        return _server_latest(text)
    path = Path(text)
    with path.open("rb") as handle:
        head = handle.read(16)
    if head[8:12] == b"DUCK" or path.suffix.lower() in (".duckdb", ".ddb"):
        return _duckdb_latest(path)
    return _sqlite_latest(path)


def _sqlite_latest(path: Path) -> Latest | None:
    best: Latest | None = None
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            tables = [
                r[0]
                for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
                )
            ]
            for table in tables:
                columns = [r[1] for r in conn.execute(compose("PRAGMA table_info({table})", table=table))]
                if not columns:
                    continue
                # ISO text sorts as time does: one scan of the table gives every column's latest value.
                picks = [
                    compose("max(CASE WHEN typeof({c}) = 'text' AND {c} GLOB ? THEN {c} END)", c=c) for c in columns
                ]
                sql = compose("SELECT {picks} FROM {table}", picks=picks, table=table)
                try:
                    row = conn.execute(sql, [_SQLITE_ISO] * len(columns)).fetchone()
                except sqlite3.OperationalError:  # a virtual table whose module is not loaded
                    continue
                for column, value in zip(columns, row, strict=True):
                    if value is not None and as_moment(value) is None:
                        value = _first_parsable(conn, table, column)
                    best = _later(best, value, f"{table}.{column}")
    except sqlite3.DatabaseError as error:
        raise FormatError(f"{path}: cannot read the database for now=auto ({error})") from None
    return best


def _first_parsable(conn: sqlite3.Connection, table: str, column: str) -> str | None:
    """The latest value of `column` that parses, when the greatest ISO-looking text does not (e.g. '2023-01-17x')."""
    cursor = conn.execute(
        compose(
            "SELECT DISTINCT {column} FROM {table} WHERE typeof({column}) = 'text' AND {column} GLOB ? ORDER BY 1 DESC",
            column=column,
            table=table,
        ),
        [_SQLITE_ISO],
    )
    for (value,) in cursor:
        if as_moment(value) is not None:
            return value
    return None


def _duckdb_latest(path: Path) -> Latest | None:
    try:
        import duckdb
    except ImportError:
        raise UsageError("reading DuckDB files needs: pip install 'biarena[duckdb]'") from None
    try:
        with duckdb.connect(str(path), read_only=True) as conn:
            return _duckdb_scan(conn)
    except duckdb.Error as error:
        raise FormatError(f"{path}: cannot read the database for now=auto ({error})") from None


def _duckdb_scan(conn: Any) -> Latest | None:
    best: Latest | None = None
    columns = conn.execute(
        "SELECT table_schema, table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema NOT IN ('information_schema', 'pg_catalog') ORDER BY 1, 2, ordinal_position"
    ).fetchall()
    for schema, table, column, kind in columns:
        name = compose("{schema}.{table}", schema=schema, table=table)
        kind = kind.upper()
        if kind == "DATE" or kind.startswith("TIMESTAMP"):
            value = conn.execute(compose("SELECT max({column}) FROM {name}", column=column, name=name)).fetchone()[0]
        elif kind == "VARCHAR":
            # latest first; the first that parses wins (the greatest ISO-looking text may not be a date)
            conn.execute(
                compose(
                    "SELECT DISTINCT {column} FROM {name} WHERE regexp_full_match({column}, ?) ORDER BY 1 DESC",
                    column=column,
                    name=name,
                ),
                [_DUCKDB_ISO],
            )
            value = None
            while (row := conn.fetchone()) is not None:
                if as_moment(row[0]) is not None:
                    value = row[0]
                    break
        else:
            continue
        best = _later(best, value, f"{table}.{column}")
    return best


def _server_latest(url: str) -> Latest | None:
    """Date and time-typed columns of a server database (its text columns are not scanned)."""
    import sqlalchemy as sa

    try:
        engine = sa.create_engine(url)
    except Exception as error:  # an unknown driver or a malformed URL, whatever SQLAlchemy raises for it
        raise UsageError(f"{url}: cannot open for now=auto ({type(error).__name__}: {error})") from None
    best: Latest | None = None
    try:
        with engine.connect() as conn:
            inspector = sa.inspect(conn)
            for table in inspector.get_table_names():
                for column in inspector.get_columns(table):
                    if not isinstance(column["type"], sa.Date | sa.DateTime):
                        continue
                    query = sa.select(sa.func.max(sa.column(column["name"]))).select_from(sa.table(table))
                    best = _later(best, conn.execute(query).scalar(), f"{table}.{column['name']}")
    except sa.exc.SQLAlchemyError as error:
        raise UsageError(f"{url}: cannot read for now=auto ({error.__class__.__name__}: {error})") from None
    finally:
        engine.dispose()
    return best
