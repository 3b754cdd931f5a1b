"""sqlite_files: SQLite files as biarena reads and writes them for its own work (not the analyst's sandbox): typed
tables written into a new file, the ISO text a file's columns hold, tables read and rewritten (`db.file_tools`)."""

import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from datetime import date, datetime
from pathlib import Path
from typing import Any

from biarena.db.file_tools import Column, Kind, TableShape, keeping_first
from biarena.db.sql_text import Sql, compose, placeholders
from biarena.errors import FormatError

_TYPES: dict[Kind, str] = {
    "integer": "INTEGER",
    "real": "REAL",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
    "text": "TEXT",
}
# Years from 9000 on are "open-ended" markers (9999-12-31), not moments in the data.
_ISO = "[0-8][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]*"
_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"


def _value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    return value


def _read_only(path: Path) -> sqlite3.Connection:
    """The SQLite file at `path` opened read-only (its name escaped as a URI: `?`, `#` and `%` are no query)."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


def write_tables(target: Path, tables: dict[str, list[Column]]) -> None:
    """Create the SQLite file `target` holding each table (name -> typed columns)."""
    with closing(sqlite3.connect(target)) as conn, conn:
        for name, columns in tables.items():
            spec = [compose("{column} {kind}", column=c.name, kind=Sql(_TYPES[c.kind])) for c in columns]
            try:
                conn.execute(compose("CREATE TABLE {name} ({spec})", name=name, spec=spec))
            except sqlite3.OperationalError as exc:  # e.g. more columns than SQLite allows (2000)
                raise FormatError(
                    f"table {name!r} ({len(columns)} columns): SQLite refuses it: {exc}; try -O engine=duckdb"
                ) from exc
            rows = zip(*([_value(v) for v in c.values] for c in columns), strict=True)
            insert = compose("INSERT INTO {name} VALUES ({marks})", name=name, marks=placeholders(len(columns)))
            conn.executemany(insert, rows)


def latest_values(path: Path, parses: Callable[[Any], bool]) -> Iterator[tuple[str, Any]]:
    """Each column's latest ISO-looking text that `parses`, as (`table.column`, value), table by table."""
    try:
        with closing(_read_only(path)) as conn:
            tables = [r[0] for r in conn.execute(_TABLES)]
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
                    row = conn.execute(sql, [_ISO] * len(columns)).fetchone()
                except sqlite3.OperationalError:  # a virtual table whose module is not loaded
                    continue
                for column, value in zip(columns, row, strict=True):
                    if value is not None and not parses(value):
                        value = _first_parsable(conn, table, column, parses)
                    yield f"{table}.{column}", value
    except sqlite3.DatabaseError as error:
        raise FormatError(f"{path}: cannot read the database for now=auto ({error})") from None


def _first_parsable(conn: sqlite3.Connection, table: str, column: str, parses: Callable[[Any], bool]) -> str | None:
    """The latest value of `column` that parses, when the greatest ISO-looking text does not (e.g. '2023-01-17x')."""
    cursor = conn.execute(
        compose(
            "SELECT DISTINCT {column} FROM {table} WHERE typeof({column}) = 'text' AND {column} GLOB ? ORDER BY 1 DESC",
            column=column,
            table=table,
        ),
        [_ISO],
    )
    for (value,) in cursor:
        if parses(value):
            return value
    return None


def table_shapes(conn: sqlite3.Connection) -> list[TableShape]:
    """The ordinary tables of an SQLite database, as the fuzzer sees them."""
    names = [r[0] for r in conn.execute(_TABLES)]
    referenced = set()
    foreign: dict[str, set[str]] = {}
    for name in names:
        links = conn.execute(compose("PRAGMA foreign_key_list({name})", name=name)).fetchall()
        foreign[name] = {row[3] for row in links}
        referenced |= {row[2] for row in links}
    shapes = []
    for name in names:
        info = conn.execute(compose("PRAGMA table_info({name})", name=name)).fetchall()
        primary = [row for row in info if row[5]]
        integer_key = primary[0][1] if len(primary) == 1 and "INT" in (primary[0][2] or "").upper() else None
        shapes.append(
            TableShape(
                name=name,
                columns=[row[1] for row in info],
                primary={row[1] for row in primary},
                keys={row[1] for row in primary} | foreign[name],
                nullable={row[1] for row in info if not row[3] and not row[5]},
                integer_key=integer_key,
                referenced=name in referenced,
            )
        )
    return shapes


def read_tables(path: Path) -> tuple[list[TableShape], dict[str, list[tuple]]]:
    """The tables of an SQLite file and their rows (in storage order)."""
    conn = _read_only(path)
    try:
        shapes = table_shapes(conn)
        rows = {}
        for shape in shapes:
            sql = compose("SELECT {columns} FROM {name}", columns=list(shape.columns), name=shape.name)
            rows[shape.name] = conn.execute(sql).fetchall()
        return shapes, rows
    finally:
        conn.close()


def write_rows(path: Path, shapes: list[TableShape], tables: dict[str, list[tuple]]) -> None:
    """Replace the rows of the tables of the SQLite file at `path` (schema, indexes and views kept); a row a
    constraint refuses is left out."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        with conn:
            for shape in shapes:
                conn.execute(compose("DELETE FROM {name}", name=shape.name))
                conn.executemany(keeping_first(shape), tables[shape.name])
        conn.execute("VACUUM")
    finally:
        conn.close()


def write_reversed(source: Path, target: Path, shapes: list[TableShape], rows: dict[str, list[tuple]]) -> None:
    """Write `source` again at `target` with every table's rows stored in reverse order.

    An INTEGER PRIMARY KEY orders a table's rows by itself in SQLite, so the twin declares it INT PRIMARY KEY (the
    same key, kept unique by an index, no longer the row's place)."""
    conn = _read_only(source)
    try:
        schema = conn.execute(
            "SELECT type, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        ).fetchall()
    finally:
        conn.close()
    target.unlink(missing_ok=True)
    twin = sqlite3.connect(target)
    try:
        with twin:
            for kind, sql in schema:
                if kind == "table":
                    sql = re.sub(r"\bINTEGER(\s+PRIMARY\s+KEY)", r"INT\1", sql, flags=re.IGNORECASE)
                    sql = re.sub(r"\s+AUTOINCREMENT\b", "", sql, flags=re.IGNORECASE)
                    twin.execute(sql)
            for shape in shapes:
                twin.executemany(keeping_first(shape), rows[shape.name][::-1])
            for kind, sql in schema:
                if kind != "table":
                    twin.execute(sql)
    finally:
        twin.close()
