"""stage_as_sqlite: an SQLite copy of a DuckDB file or a server database, for Conjecture-Construct-Conclude.

Rows are injected into a writable copy of a question's database; a server database is never written to, and a
DuckDB file is copied into SQLite so that every synthetic database is of one kind. The source is read through the
sandbox (`open_database`); dates and times become ISO text, the way the SQLite sources hold them.
"""

import sqlite3
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.db import Database, open_database
from biarena.db.sql_text import Sql, compose, placeholders
from biarena.generate.column_types import ColumnTypes

_AFFINITY = {"number": "NUMERIC", "boolean": "INTEGER", "text": "TEXT", "date": "TEXT", "timestamp": "TEXT"}
MAX_STAGED_ROWS = 1_000_000
"""Rows copied per table when the copy takes the data (`--base data`)."""


def _cell(value: object) -> object:
    if isinstance(value, datetime):
        return value.replace(tzinfo=None).isoformat(sep=" ")
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, bytes | str | int | float) or value is None:
        return value
    return str(value)


def primary_key(db: Database, table: str) -> list[str]:
    """The table's primary key columns, as its DDL declares them (none when it cannot be read)."""
    try:
        tree = sqlglot.parse_one(db.table_ddl(table), read=db.dialect)
    except (SqlglotError, ValueError):
        return []
    if tree is None:
        return []
    for key in tree.find_all(exp.PrimaryKey):
        return [part.name for part in key.expressions]
    return [
        definition.name
        for definition in tree.find_all(exp.ColumnDef)
        if any(isinstance(c.args.get("kind"), exp.PrimaryKeyColumnConstraint) for c in definition.constraints)
    ]


def stage_as_sqlite(location: str, target: Path, *, with_rows: bool) -> Path:
    """Write `target`: the tables of the database at `location` (file or URL), with their rows when `with_rows`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    writer = sqlite3.connect(target)
    try:
        with open_database(location) as db, writer:
            types = ColumnTypes(db)
            for table in db.tables():
                storage = types.of(table)
                columns = list(db.sample_rows(table, 0).columns)
                key = primary_key(db, table)
                parts = [
                    Sql(compose("{c} {type}", c=c, type=Sql(_AFFINITY.get(storage.get(c, "other"), ""))).rstrip())
                    for c in columns
                ]
                if key:
                    parts.append(compose("PRIMARY KEY ({key})", key=list(key)))
                for column, other, other_column in db.foreign_keys(table):
                    referred = compose(" ({c})", c=other_column) if other_column else Sql("")
                    parts.append(
                        compose(
                            "FOREIGN KEY ({c}) REFERENCES {other}{referred}", c=column, other=other, referred=referred
                        )
                    )
                writer.execute(compose("CREATE TABLE {table} ({parts})", table=table, parts=parts))
                if with_rows:
                    rows = db.sample_rows(table, MAX_STAGED_ROWS).rows
                    insert = compose(
                        "INSERT INTO {table} VALUES ({marks})", table=table, marks=placeholders(len(columns))
                    )
                    writer.executemany(insert, [tuple(_cell(v) for v in r) for r in rows])
    finally:
        writer.close()
    return target
