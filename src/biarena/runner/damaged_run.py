"""DamagedRunFile: a run file whose tables or rows are not what biarena wrote, named by file, table and row.

The run store reads every row through these helpers, so a bad byte, a dropped table or a field of the wrong type
is one line naming where it is, never a traceback; `score` and `merge` read the whole file (`RunStore.check`) before
they write anything.
"""

import contextlib
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from pydantic import ValidationError

from biarena.benchmarks.shown import shown
from biarena.db.sql_text import compose
from biarena.errors import FormatError

T = TypeVar("T")

ROW_KEYS: dict[str, tuple[str, ...]] = {
    "meta": ("key",),
    "questions": ("question_id",),
    "answers": ("question_id",),
    "results": ("question_id", "scorer"),
    "statement_results": ("database", "role"),
}
"""The columns that name a row of each table in a message."""

NAMED_BY_ROWID = frozenset({"statement_results"})
"""Tables whose key columns above do not tell rows apart: a message adds the row's number."""


class DamagedRunFile(FormatError):
    """A run file's table or row cannot be read as the run format wrote it."""

    def __init__(self, path: Path, table: str, problem: str, row: str | None = None) -> None:
        self.path, self.table, self.problem, self.row = path, table, problem, row
        where = f"table '{table}'" + (f", row {row}" if row else "")
        super().__init__(f"{path}: damaged run file: {where}: {problem}")

    def __reduce__(self) -> tuple:
        # rebuilt from its parts when it crosses to another process (a campaign's worker)
        return type(self), (self.path, self.table, self.problem, self.row)


def row_name(table: str, values: Sequence[Any], rowid: int | None = None) -> str:
    """How a message names a row: its key columns' values (`values` in `ROW_KEYS` order), and its rowid if given."""
    keys = ", ".join(
        f"{column} '{shown(value, 60)}'" for column, value in zip(ROW_KEYS.get(table, ()), values, strict=False)
    )
    if rowid is None:
        return keys
    return f"{rowid} ({keys})" if keys else str(rowid)


def fetch_rows(conn: sqlite3.Connection, path: Path, table: str, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
    """All rows of a read of `table`; DamagedRunFile when SQLite cannot give them (a missing table or column, text
    that is not UTF-8, a damaged page)."""
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.Error as error:
        raise damage_of(path, table, error) from None


def damage_of(path: Path, table: str, error: sqlite3.Error) -> DamagedRunFile:
    """The DamagedRunFile an SQLite error reading `table` means (for bad UTF-8, the row and column that hold it)."""
    message = str(error)
    if message.startswith("Could not decode to UTF-8"):
        found = undecodable_row(path, table)
        if found is not None:
            row, column = found
            return DamagedRunFile(path, table, f"column '{column}' is not UTF-8 text", row)
        return DamagedRunFile(path, table, "a column is not UTF-8 text")
    if message.startswith("no such table"):
        return DamagedRunFile(path, table, "the table is missing")
    if message.startswith("no such column"):
        return DamagedRunFile(path, table, f"column '{message.split(':', 1)[-1].strip()}' is missing")
    return DamagedRunFile(path, table, f"cannot be read ({shown(message, 120)})")


def undecodable_row(path: Path, table: str) -> tuple[str, str] | None:
    """(row, column) of the first value in `table` that is not UTF-8, read on a connection of its own."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
        conn.text_factory = bytes
        cursor = conn.execute(compose("SELECT rowid, * FROM {table}", table=table))
        columns = [item[0] for item in cursor.description[1:]]
        for rowid, *values in cursor:
            for column, value in zip(columns, values, strict=True):
                if isinstance(value, bytes) and not _is_utf8(value):
                    keys = [values[columns.index(key)] for key in ROW_KEYS.get(table, ()) if key in columns]
                    readable = [key.decode("utf-8", "replace") if isinstance(key, bytes) else key for key in keys]
                    return row_name(table, readable, rowid if table in NAMED_BY_ROWID else None), column
    return None


def _is_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def parsed(path: Path, table: str, row: str, column: str, parse: Callable[[Any], T], value: Any) -> T:
    """`parse(value)`, the value of `column` in a row (of several columns when `column` is empty: the fields of a
    record are its columns); DamagedRunFile says what is wrong with it."""
    prefix = f"column '{column}': " if column else ""
    try:
        return parse(value)
    except ValidationError as error:
        raise DamagedRunFile(path, table, prefix + validation_problem(error), row) from None
    except (ValueError, TypeError, RecursionError) as error:
        raise DamagedRunFile(path, table, prefix + shown(error, 120), row) from None


def validation_problem(error: ValidationError) -> str:
    """The first problem of a validation error as "field 'a.b': message" (or the message, for the value itself)."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    return f"field '{field}': {first['msg']}" if field else first["msg"]


def integer(path: Path, table: str, row: str, column: str, value: Any, allowed: Sequence[int] | None = None) -> int:
    """`value` of an integer column (one of `allowed` when given); DamagedRunFile for text, NULL or a real."""
    if isinstance(value, bool) or not isinstance(value, int) or (allowed is not None and value not in allowed):
        kind = "NULL" if value is None else f"{type(value).__name__} {shown(value, 40)!r}"
        need = f"one of {', '.join(map(str, allowed))}" if allowed is not None else "an integer"
        raise DamagedRunFile(path, table, f"column '{column}' must be {need}, not {kind}", row)
    return value


def text(path: Path, table: str, row: str, column: str, value: Any) -> str:
    """`value` of a text column; DamagedRunFile for NULL, a number or a blob."""
    if not isinstance(value, str):
        kind = "NULL" if value is None else type(value).__name__
        raise DamagedRunFile(path, table, f"column '{column}' must be text, not {kind}", row)
    return value


def check_tables(conn: sqlite3.Connection, path: Path, expected: dict[str, list[str]]) -> None:
    """DamagedRunFile unless every table of the run format is there with all of its columns."""
    for table, columns in expected.items():
        found = [row[1] for row in fetch_rows(conn, path, table, compose("PRAGMA table_info({table})", table=table))]
        if not found:
            raise DamagedRunFile(path, table, "the table is missing")
        missing = [column for column in columns if column not in found]
        if missing:
            raise DamagedRunFile(path, table, f"column '{missing[0]}' is missing")
