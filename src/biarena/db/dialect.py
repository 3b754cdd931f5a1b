"""Dialect: everything biarena knows of one SQL engine, in one object; `dialect_of(name)` finds it.

An embedded engine's dialect is its entry in the engine registry (`open_database.ENGINES`), which opens its files
and URLs through it; the SQL dialects of the servers SQLAlchemy reaches are in SERVER_DIALECTS. Adding an engine
is one module holding its Dialect and one registry entry (or entry point) naming it.
"""

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from biarena.db.allowed_functions import DEFAULT_ALLOWED
from biarena.db.catalog_rules import DEFAULT as DEFAULT_CATALOG
from biarena.db.catalog_rules import CatalogRules
from biarena.registry import PluginError, import_target


@dataclass(frozen=True)
class Dialect:
    """One engine's knowledge: its allow-list, catalog rules, clock anchoring, value sizing, how its statements
    are served and its files found, and whether questions are written for it."""

    name: str
    """The sqlglot dialect its SQL is read and written in."""
    label: str
    """The engine's name in messages."""
    functions: frozenset[str]
    """The function names a query may call, lower case."""
    catalog: CatalogRules = DEFAULT_CATALOG
    """What a query may read of the engine's own catalog."""
    description: str = ""
    """What it is, one line (`biarena describe engine`)."""
    database: str | None = None
    """"module:attr" of the Database class that opens its files and URLs (None for a server's dialect)."""
    serve: str | None = None
    """The module that opens it in an engine process (its `open_engine(path, options, temp_directory)`)."""
    files: str | None = None
    """The module biarena reads and writes its files with for its own work (`db.file_tools`: imported CSV tables,
    the latest moment a file holds, fuzzed neighbours); None when biarena does not."""
    file_suffixes: tuple[str, ...] = ()
    """Suffixes of its database files (lower case)."""
    file_magic: bytes | None = None
    """Bytes 8-11 of its database files."""
    builtin_schemas: frozenset[str] | None = None
    """Schemas whose functions are the engine's own; a call qualified with any other may be user code (None: not
    checked)."""
    named_files: re.Pattern[str] | None = None
    """The names in FROM the engine reads as files ('data.csv', '/tmp/x.parquet'): never a table here."""
    bounds_own_values: bool = False
    """True when the engine caps every value it builds itself (SQLite's length limit), so no call is sized."""
    sized_formats: bool = False
    """True when printf() and format() are sized from their pattern before they run."""
    fmt_format: bool = False
    """True when format() takes fmt's `{}` patterns rather than printf's."""
    series_values: bool = False
    """True when range() and generate_series() outside FROM build one list value."""
    age_from_today: bool = False
    """True when age(x) is PostgreSQL's: the time from x to today's midnight."""
    method_calls: bool = False
    """True when `x.f(...)` calls f with x first (DuckDB's dot calls)."""
    clock_strings: bool = False
    """True when strings such as 'now', 'today' or 'tomorrow' read the clock once cast to a time."""
    writes_questions: bool = False
    """True when generated questions' SQL is written for it."""
    text_times: bool = False
    """True when times are ISO text, read and moved by time functions (`date`, `datetime`, `strftime`) that take a
    time value such as 'now' (SQLite): the clock is anchored in those values, and generated questions write times
    as text and booleans as 0 and 1."""
    function_casts: bool = False
    """True when `date(x)` and `pg_catalog.timestamp(x)` are casts (PostgreSQL): the clock guards them and writes
    them back as casts."""
    to_char: bool = False
    """True when a time is formatted by `TO_CHAR(time, 'YYYY-MM')` rather than `STRFTIME(time, '%Y-%m')`."""
    rounds_numeric_only: bool = False
    """True when ROUND to some digits takes only an exact number (PostgreSQL's NUMERIC), so a value is cast first."""

    def database_class(self) -> Any:
        """The Database class that opens this engine's files and URLs."""
        if self.database is None:
            raise TypeError(f"{self.label} is not opened by an engine of its own")
        return import_target(self.database)

    def __call__(self, path: Any, **settings: Any) -> Any:
        """The database file at `path`, read-only (as its Database class opens it)."""
        return self.database_class()(path, **settings)

    def from_url(self, url: str, *, allow_superuser: bool = False, **settings: Any) -> Any:
        """The database at `url`, read-only (as its Database class opens it)."""
        return self.database_class().from_url(url, allow_superuser=allow_superuser, **settings)

    def claims_file(self, suffix: str, head: bytes) -> bool:
        """True when a file of this `suffix` (lower case) starting with `head` is one of this engine's."""
        return suffix in self.file_suffixes or (self.file_magic is not None and head[8:12] == self.file_magic)


DEFAULT = Dialect(name="", label="the engine", functions=DEFAULT_ALLOWED)
"""For a dialect without knowledge of its own: the portable allow-list, information_schema's describing views."""

SERVER_DIALECTS: Mapping[str, str] = {
    "postgres": "biarena.db.postgres_dialect:POSTGRES",
    "mysql": "biarena.db.mysql_dialect:MYSQL",
}
"""Where the dialect of each server the `sqlalchemy` engine reaches is, by sqlglot name ("module:attr")."""


@cache
def _server_dialect(name: str) -> Dialect:
    found: Dialect = import_target(SERVER_DIALECTS[name])
    return found


@cache  # the one registry object (it changes in place); the import statement costs more than the lookup after it
def _engines() -> Mapping[str, Any]:
    from biarena.db.open_database import ENGINES  # the registry opens databases, which consult their dialect

    return ENGINES


def _engine_dialects() -> Iterator[tuple[str, Dialect]]:
    """Each engine that is a Dialect, by name; the SQLAlchemy engine is not loaded, a plugin that fails to load is
    left out (it fails where it is named)."""
    from biarena.db.open_database import SERVER_ENGINE

    engines = _engines()
    for name in engines:
        try:
            found = engines[name] if name != SERVER_ENGINE else None
        except PluginError:
            continue
        if isinstance(found, Dialect):
            yield name, found


def dialect_of(name: str) -> Dialect:
    """The dialect named `name`: an engine's, a server's, else the default (the portable core)."""
    engines = _engines()
    if name in engines and isinstance(found := engines[name], Dialect):
        return found
    if name in SERVER_DIALECTS:
        return _server_dialect(name)
    return DEFAULT


def dialects() -> Iterator[Dialect]:
    """Every engine's and server's dialect, engines first."""
    yield from (found for _, found in _engine_dialects())
    yield from (_server_dialect(name) for name in SERVER_DIALECTS)


def file_engine_by_magic(head: bytes) -> str | None:
    """The engine whose files start with `head` (their first 16 bytes), by their magic bytes; None when none."""
    return next((name for name in file_engines() if dialect_of(name).file_magic == head[8:12]), None)


def file_suffixes() -> tuple[str, ...]:
    """Every database file suffix an engine claims."""
    return tuple(suffix for name in file_engines() for suffix in dialect_of(name).file_suffixes)


def file_engines() -> tuple[str, ...]:
    """The engines whose databases are files (their names are also their URL schemes)."""
    return tuple(name for name, found in _engine_dialects() if found.file_suffixes)
