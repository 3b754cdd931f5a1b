"""file_tools: biarena's own (trusted) reading and writing of an engine's database files, through its Dialect.

Not the analyst's sandbox: imported CSV tables written into a new file, the latest moment a file holds, a file's
tables read and rewritten for fuzzed neighbours. Each engine that offers this names its module in its Dialect
(`Dialect.files`), which provides `write_tables`, `latest_values`, `read_tables`, `write_rows` and
`write_reversed` over the tables described here.
"""

from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from biarena.db.dialect import dialect_of, file_engines
from biarena.db.open_database import file_engine
from biarena.db.sql_text import Sql, compose, placeholders
from biarena.errors import UsageError

Kind = Literal["integer", "real", "date", "timestamp", "text"]


@dataclass
class Column:
    """One typed column: its name, its kind and its values (None for an empty cell)."""

    name: str
    kind: Kind
    values: list[Any]


@dataclass(frozen=True)
class TableShape:
    """What the fuzzer keeps of a table: its columns, which are keys, which may hold NULL."""

    name: str
    columns: list[str]
    primary: set[str]
    """The primary key's columns: kept as they are."""
    keys: set[str]
    """Primary and foreign key columns: their values are kept (a foreign key may take another existing value)."""
    nullable: set[str]
    integer_key: str | None
    """The single integer primary key, when there is one: a duplicated row gets a fresh value there."""
    referenced: bool
    """True when another table's foreign key points here: no row is dropped."""


def keeping_first(shape: TableShape) -> Sql:
    """The statement adding a row to the table, keeping the first of rows that clash on a key (either engine)."""
    return compose(
        "INSERT OR IGNORE INTO {name} ({columns}) VALUES ({marks})",
        name=shape.name,
        columns=list(shape.columns),
        marks=placeholders(len(shape.columns)),
    )


class TablesRefused(Exception):
    """The engine refused the tables being written into a new file; the message is its reason's first line."""


def table_engines() -> tuple[str, ...]:
    """The file engines biarena writes tables into, in registry order."""
    return tuple(name for name in file_engines() if dialect_of(name).files is not None)


def engine_tools(engine: str) -> ModuleType:
    """The module that reads and writes files of `engine` for biarena's own work (UsageError when it has none)."""
    found = dialect_of(engine)
    if found.files is None:
        raise UsageError(f"{found.label} files are not read or written by biarena itself")
    return import_module(found.files)


def file_tools(path: Path) -> ModuleType:
    """The module that reads and writes the database file at `path` (its engine by suffix or first bytes)."""
    return engine_tools(file_engine(path))
