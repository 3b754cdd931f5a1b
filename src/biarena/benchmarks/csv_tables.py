"""Typed CSV tables: a CSV file's columns read as integers, reals, dates, timestamps or text, and written into a
new SQLite or DuckDB database file."""

import csv
import re
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from biarena.benchmarks.json_file import decode_text
from biarena.benchmarks.shown import shown
from biarena.errors import FormatError, UsageError

Kind = Literal["integer", "real", "date", "timestamp", "text"]
Engine = Literal["sqlite", "duckdb"]

_INTEGER = re.compile(r"[+-]?(?:0|[1-9]\d*)")
_REAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MOMENT = re.compile(r"(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?")
_SQLITE_TYPES: dict[Kind, str] = {
    "integer": "INTEGER",
    "real": "REAL",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
    "text": "TEXT",
}
_DUCKDB_TYPES: dict[Kind, str] = {
    "integer": "BIGINT",
    "real": "DOUBLE",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
    "text": "VARCHAR",
}
_INT64 = 2**63


@dataclass
class Column:
    """One typed column: its name, its kind and its values (None for an empty cell)."""

    name: str
    kind: Kind
    values: list[Any]


def _moment(text: str) -> datetime | None:
    """A timestamp written `YYYY-MM-DD HH:MM[:SS[.fraction]]` (nanoseconds cut to microseconds), or a date alone."""
    if _DATE.fullmatch(text):
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            return None
    found = _MOMENT.fullmatch(text)
    if found is None:
        return None
    day, clock, fraction = found.groups()
    micro = f".{(fraction + '000000')[:6]}" if fraction else ""
    try:
        return datetime.fromisoformat(f"{day} {clock}{micro}")
    except ValueError:
        return None


def _typed(cells: list[str]) -> tuple[Kind, list[Any]]:
    """The narrowest kind every non-empty cell fits, and the cells as values of that kind."""
    filled = [c for c in cells if c != ""]
    if not filled:
        return "text", [None] * len(cells)
    if all(_INTEGER.fullmatch(c) for c in filled) and all(abs(int(c)) < _INT64 for c in filled):
        return "integer", [int(c) if c else None for c in cells]
    if all(_REAL.fullmatch(c) for c in filled):
        return "real", [float(c) if c else None for c in cells]
    if all(_DATE.fullmatch(c) for c in filled):
        days = [_moment(c) for c in filled]
        if all(d is not None for d in days):
            return "date", [date.fromisoformat(c) if c else None for c in cells]
    moments = [_moment(c) for c in filled]
    if all(m is not None for m in moments):
        return "timestamp", [_moment(c) if c else None for c in cells]
    return "text", [c if c else None for c in cells]


def _names(header: list[str], where: str) -> list[str]:
    """Column names as the header gives them; an empty one becomes column_N, a repeated one gets _2, _3, ..."""
    names: list[str] = []
    taken: set[str] = set()
    for index, raw in enumerate(header, start=1):
        name = raw.strip() or f"column_{index}"
        if "\0" in name:
            raise FormatError(f"{where}: column {index}: a NUL character in its name")
        candidate, counter = name, 2
        while candidate.lower() in taken:
            candidate, counter = f"{name}_{counter}", counter + 1
        taken.add(candidate.lower())
        names.append(candidate)
    return names


def read_csv_table(path: Path) -> list[Column]:
    """The columns of a CSV file with a header line, each typed; FormatError names the file and line of a problem."""
    text = decode_text(path.read_bytes(), str(path)).lstrip("\ufeff")
    try:
        rows = list(csv.reader(text.splitlines(keepends=True)))
    except csv.Error as error:
        raise FormatError(f"{path}: not a readable CSV file ({error})") from None
    rows = [r for r in rows if r]
    if not rows:
        raise FormatError(f"{path}: empty (a CSV file with a header line was expected)")
    names = _names(rows[0], str(path))
    body = rows[1:]
    for number, row in enumerate(body, start=2):
        if len(row) > len(names) and any(cell.strip() for cell in row[len(names) :]):
            raise FormatError(f"{path} row {number}: {len(row)} cells for {len(names)} columns")
    cells = [[row[j] if j < len(row) else "" for row in body] for j in range(len(names))]
    return [Column(name, *_typed(values)) for name, values in zip(names, cells, strict=True)]


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sqlite_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    return value


def write_tables(target: Path, tables: dict[str, list[Column]], engine: Engine = "sqlite") -> None:
    """Create the database file `target` holding each table (name -> typed columns), on SQLite or DuckDB."""
    if engine == "duckdb":
        _write_duckdb(target, tables)
        return
    with closing(sqlite3.connect(target)) as conn, conn:
        for name, columns in tables.items():
            spec = ", ".join(f"{_quoted(c.name)} {_SQLITE_TYPES[c.kind]}" for c in columns)
            try:
                conn.execute(f"CREATE TABLE {_quoted(name)} ({spec})")
            except sqlite3.OperationalError as exc:  # e.g. more columns than SQLite allows (2000)
                raise FormatError(
                    f"table {name!r} ({len(columns)} columns): SQLite refuses it: {exc}; try -O engine=duckdb"
                ) from exc
            rows = zip(*([_sqlite_value(v) for v in c.values] for c in columns), strict=True)
            marks = ", ".join("?" for _ in columns)
            conn.executemany(f"INSERT INTO {_quoted(name)} VALUES ({marks})", rows)


def _frame(columns: list[Column]) -> Any:
    """The columns as a pandas data frame DuckDB inserts in one statement (row by row is slow there)."""
    import pandas as pd

    data: dict[str, Any] = {}
    for index, column in enumerate(columns):
        key = f"c{index}"
        if column.kind == "integer":
            data[key] = pd.array(column.values, dtype="Int64")
        elif column.kind == "real":
            data[key] = pd.array(column.values, dtype="Float64")
        elif column.kind in ("date", "timestamp"):
            data[key] = pd.to_datetime(pd.Series(column.values, dtype=object)).astype("datetime64[us]")
        else:
            data[key] = pd.Series(column.values, dtype=object)
    return pd.DataFrame(data)


def _write_duckdb(target: Path, tables: dict[str, list[Column]]) -> None:
    try:
        import duckdb
    except ImportError:
        raise UsageError("writing DuckDB databases needs: pip install 'biarena[duckdb]'") from None
    try:
        with duckdb.connect(str(target)) as conn:
            for name, columns in tables.items():
                spec = ", ".join(f"{_quoted(c.name)} {_DUCKDB_TYPES[c.kind]}" for c in columns)
                conn.execute(f"CREATE TABLE {_quoted(name)} ({spec})")
                frame = _frame(columns)  # noqa: F841 (DuckDB reads the local data frame by its name)
                conn.execute(f"INSERT INTO {_quoted(name)} SELECT * FROM frame")
    except duckdb.Error as error:
        raise FormatError(f"{target}: {shown(str(error).splitlines()[0], limit=200)}") from None
