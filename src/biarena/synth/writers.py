"""open_writer: stream generated chunks into SQLite, DuckDB or a directory of Parquet files.

Columns arrive as numpy arrays in the generator's types: `int`, `float`, `text`, `timestamp` (int64 seconds since
1970) and `date` (int64 days since 1970). Each writer creates a table, appends chunks, and on `close` stores the
generation metadata in a `_biarena_synth` table (key, value).
"""

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from biarena.db.sql_text import Sql, compose
from biarena.errors import UsageError
from biarena.synth.arrow_columns import arrow_table

FORMATS = ("sqlite", "duckdb", "parquet")
META_TABLE = "_biarena_synth"
_META = Sql(META_TABLE)  # a plain word, written unquoted as the stored schema has always shown it
ROWS_PER_INSERT = 64
"""Rows one INSERT statement carries into SQLite."""
MAX_PARAMETERS = 999
"""The most parameters a statement may have in any SQLite build (older ones allow no more)."""
_SQLITE_TYPES = {"int": "INTEGER", "float": "REAL", "text": "TEXT", "timestamp": "TEXT", "date": "TEXT"}
_DUCKDB_TYPES = {"int": "BIGINT", "float": "DOUBLE", "text": "VARCHAR", "timestamp": "TIMESTAMP", "date": "DATE"}


@dataclass
class TableDef:
    """A table as the writers see it: column types, primary key, and `column -> parent(key)` references."""

    name: str
    types: dict[str, str]
    primary_key: str | None
    references: dict[str, str]


def timestamp_text(values: np.ndarray) -> list:
    """`YYYY-MM-DD HH:MM:SS` for each int64 second (None stays None; text already made is kept)."""
    return _text_list(values, timestamp_strings)


def timestamp_strings(values: np.ndarray) -> np.ndarray:
    """`YYYY-MM-DD HH:MM:SS` for each int64 second, as a fixed-width text array (an object array is kept)."""
    if values.dtype == object:
        return values
    text = np.datetime_as_string(values.astype("datetime64[s]")).astype("U19")
    text.view("U1").reshape(-1, 19)[:, 10] = " "
    return text


def date_text(values: np.ndarray) -> list:
    """`YYYY-MM-DD` for each int64 day (text already made is kept)."""
    return _text_list(values, date_strings)


def date_strings(values: np.ndarray) -> np.ndarray:
    """`YYYY-MM-DD` for each int64 day, as a fixed-width text array (an object array is kept)."""
    if values.dtype == object:
        return values
    return np.datetime_as_string(values.astype("datetime64[D]"))


def _text_list(values: np.ndarray, strings: Callable[[np.ndarray], np.ndarray]) -> list:
    """The `strings` of int64 `values` as a list (None stays None; text already made is kept)."""
    if values.dtype.kind == "U":
        return values.tolist()
    if values.dtype == object:
        return [None if v is None else strings(np.array([v], dtype=np.int64)).tolist()[0] for v in values.tolist()]
    return strings(values).tolist()


def create_sql(table: TableDef, types: dict[str, str]) -> str:
    """CREATE TABLE for `table` with the engine's `types` (int/float/text/timestamp/date -> SQL type)."""
    columns = []
    for name, kind in table.types.items():
        # the reference is kept as `parent(key)`, as the stored schema has always shown it
        ref = Sql(" REFERENCES " + table.references[name] if name in table.references else "")
        key = Sql(" PRIMARY KEY" if name == table.primary_key else "")
        columns.append(compose("{name} {type}{key}{ref}", name=name, type=Sql(types[kind]), key=key, ref=ref))
    return compose("CREATE TABLE {name} ({columns})", name=table.name, columns=columns)


class _DatabaseWriter:
    """What the writers into one database file share: each table made with the engine's column types, and the
    metadata table stored as the transaction is committed."""

    column_types: dict[str, str]
    """The engine's SQL type of each generator type (int/float/text/timestamp/date)."""
    after_commit: tuple[str, ...] = ()
    """Statements run after the commit, before the connection closes."""
    conn: Any
    types: dict[str, dict[str, str]]

    def create(self, table: TableDef) -> None:
        """Create the table with its key and references."""
        self.conn.execute(create_sql(table, self.column_types))
        self.types[table.name] = table.types

    def close(self, meta: dict[str, str]) -> None:
        """Store the metadata and commit."""
        text = Sql(self.column_types["text"])
        self.conn.execute(compose("CREATE TABLE {meta} (key {text} PRIMARY KEY, value {text})", meta=_META, text=text))
        self.conn.executemany(compose("INSERT INTO {meta} VALUES (?, ?)", meta=_META), list(meta.items()))
        self.conn.execute("COMMIT")
        for statement in self.after_commit:
            self.conn.execute(statement)
        self.conn.close()

    def abort(self) -> None:
        """Drop the connection without committing."""
        self.conn.close()


class SqliteWriter(_DatabaseWriter):
    """One SQLite file; rows go in with executemany inside one transaction."""

    column_types = _SQLITE_TYPES

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA page_size = 4096")
        self.conn.execute("PRAGMA journal_mode = OFF")
        self.conn.execute("PRAGMA synchronous = OFF")
        self.conn.execute("BEGIN")
        self.types: dict[str, dict[str, str]] = {}

    def append(self, table: str, data: dict[str, np.ndarray]) -> None:
        """Insert one chunk, ROWS_PER_INSERT rows a statement (the rows, their order and the file are the same as one
        row a statement gives; SQLite's per-statement work is paid once for many rows)."""
        types = self.types[table]
        width = len(types)
        size = len(next(iter(data.values()))) if data else 0
        grid = np.empty((size, width), dtype=object)
        for j, (name, kind) in enumerate(types.items()):
            values = data[name]
            if values.dtype.kind != "U":  # text already made (by a writer process's sender) goes in as it is
                if kind == "timestamp":
                    values = timestamp_text(values)
                elif kind == "date":
                    values = date_text(values)
            grid[:, j] = values  # an array's items become Python values here, as tolist makes them, without a list
        row = "(" + ",".join("?" * width) + ")"
        per = max(1, min(ROWS_PER_INSERT, MAX_PARAMETERS // max(1, width)))
        whole = size - size % per
        if whole:
            marks = ",".join([row] * per)
            flat = grid[:whole].reshape(-1, per * width).tolist()
            self.conn.executemany(compose("INSERT INTO {table} VALUES {marks}", table=table, marks=Sql(marks)), flat)
        if whole < size:
            insert = compose("INSERT INTO {table} VALUES {row}", table=table, row=Sql(row))
            self.conn.executemany(insert, grid[whole:].tolist())


class DuckdbWriter(_DatabaseWriter):
    """One DuckDB file; chunks go in as Arrow tables."""

    column_types = _DUCKDB_TYPES
    after_commit = ("CHECKPOINT",)

    def __init__(self, path: Path) -> None:
        import duckdb

        self.conn = duckdb.connect(str(path))
        self.conn.execute("SET threads = 1")
        self.conn.execute("BEGIN TRANSACTION")
        self.types: dict[str, dict[str, str]] = {}

    def append(self, table: str, data: dict[str, np.ndarray]) -> None:
        """Insert one chunk."""
        chunk = arrow_table(self.types[table], data)
        self.conn.register("_biarena_chunk", chunk)
        self.conn.execute(compose("INSERT INTO {table} SELECT * FROM _biarena_chunk", table=table, dialect="duckdb"))
        self.conn.unregister("_biarena_chunk")


class ParquetWriter:
    """A directory with one `<table>.parquet` per table, written a row group per chunk."""

    def __init__(self, path: Path) -> None:
        path.mkdir(parents=True)
        self.path = path
        self.writers: dict[str, object] = {}
        self.types: dict[str, dict[str, str]] = {}

    def create(self, table: TableDef) -> None:
        """Open the table's file."""
        import pyarrow.parquet as pq

        self.writers[table.name] = pq.ParquetWriter(self.path / f"{table.name}.parquet", arrow_schema(table))
        self.types[table.name] = table.types

    def append(self, table: str, data: dict[str, np.ndarray]) -> None:
        """Write one chunk as a row group."""
        self.writers[table].write_table(arrow_table(self.types[table], data))  # type: ignore[attr-defined]

    def close(self, meta: dict[str, str]) -> None:
        """Close every file and write the metadata table."""
        for writer in self.writers.values():
            writer.close()  # type: ignore[attr-defined]
        write_meta(self.path, meta)

    def abort(self) -> None:
        """Close the files (the caller removes the directory)."""
        for writer in self.writers.values():
            writer.close()  # type: ignore[attr-defined]


class ParquetPart:
    """One file of a partitioned table: a row group per chunk, and `meta` (day range, partition) in its footer."""

    def __init__(self, path: Path, table: TableDef, meta: dict[str, str]) -> None:
        import pyarrow.parquet as pq

        self.writer = pq.ParquetWriter(path, arrow_schema(table).with_metadata(meta))
        self.types = table.types

    def append(self, data: dict[str, np.ndarray]) -> None:
        """Write one chunk as a row group."""
        self.writer.write_table(arrow_table(self.types, data))

    def close(self) -> None:
        """Finish the file."""
        self.writer.close()


def arrow_schema(table: TableDef) -> Any:
    """The Arrow schema of `table`'s columns (a `pyarrow.Schema`)."""
    return arrow_table(table.types, {c: np.array([], dtype=object) for c in table.types}).schema


def write_meta(folder: Path, meta: dict[str, str]) -> None:
    """The generation metadata of a Parquet output, as its `_biarena_synth.parquet`."""
    import pyarrow.parquet as pq

    columns = {"key": np.array(list(meta), dtype=object), "value": np.array(list(meta.values()), dtype=object)}
    pq.write_table(arrow_table({"key": "text", "value": "text"}, columns), folder / f"{META_TABLE}.parquet")


Writer = SqliteWriter | DuckdbWriter | ParquetWriter


def open_writer(fmt: str, path: Path) -> Writer:
    """A writer for `fmt` (sqlite, duckdb or parquet) at a path that does not exist yet."""
    try:
        if fmt == "sqlite":
            return SqliteWriter(path)
        if fmt == "duckdb":
            return DuckdbWriter(path)
        if fmt == "parquet":
            return ParquetWriter(path)
    except ImportError as error:
        extra = "duckdb" if fmt == "duckdb" else "parquet"
        raise UsageError(f"--format {fmt} needs {error.name}: pip install 'biarena[{extra}]'") from None
    raise UsageError(f"unknown format '{fmt}' (known: {', '.join(FORMATS)})")
