"""open_engine: SQLite in an engine process (engine_serve), one file read-only behind an authorizer, a heap limit,
a progress-handler clock, and row, byte and temp caps.

SQLite's heap limit (`PRAGMA hard_heap_limit`) holds for the whole process it is set in: here that is exactly one
database's statements. An aggregate that grows a value past the per-value cap (`json_group_array` of millions of
rows: the length limit is checked only on the finished value) fails when the heap limit is reached.
"""

import math
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from biarena.db.errors import SqlError, SqlRejected, SqlTimeout, SqlTooLarge
from biarena.db.fetch_capped import fetch_capped
from biarena.db.limits import format_size
from biarena.db.sql_text import compose

_ALLOWED_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)
# Table-valued pragmas that describe the schema (`FROM pragma_table_info('t')`); no other pragma runs.
_READ_PRAGMAS = frozenset({"table_info", "table_xinfo", "index_list", "index_info", "foreign_key_list"})
# The progress handler runs every this many virtual-machine steps (a fraction of a millisecond of work: a Python
# call each time costs a few per cent of a small statement at 4,000).
_PROGRESS_STEPS = 20_000
# Seconds between two measures of the temp files: a spill grows by tens of MB in that time at most.
_TEMP_CHECK_SECONDS = 0.05
_FD_DIR = "/proc/self/fd"
# Compiled statements kept for reuse (Python's default is 128: fewer than a benchmark's gold queries on one database).
_CACHED_STATEMENTS = 512


def sqlite_temp_bytes() -> int | None:
    """Bytes in SQLite's open temporary files in this process (sorter spills, temp tables), or None where unknown.

    SQLite deletes its temp files (`etilqs_*`) as it opens them, so they are found through the process's
    open file descriptors (Linux).
    """
    if not sys.platform.startswith("linux"):
        return None
    total = 0
    try:
        descriptors = os.listdir(_FD_DIR)
    except OSError:
        return None
    for fd in descriptors:
        try:
            if "etilqs_" in os.readlink(f"{_FD_DIR}/{fd}"):
                total += os.fstat(int(fd)).st_size
        except (OSError, ValueError):
            continue
    return total


class SqliteEngine:
    """One SQLite file opened read-only (`mode=ro`, `query_only`, extensions off) in the engine process.

    `options` (from the parent, which holds the parser's rules): `functions`, the allow-list the authorizer keeps;
    `open_names`, `closed_names`, `closed_prefixes`, the catalog tables a statement may and may not read;
    `heap_limit` and `temp_limit` in bytes.
    """

    errors: tuple[type[BaseException], ...] = (sqlite3.Error, ValueError, OverflowError)

    def __init__(self, path: str, options: dict[str, Any]) -> None:
        self._functions = frozenset(options["functions"])
        self._open_names = frozenset(options["open_names"])
        self._closed_names = frozenset(options["closed_names"])
        self._closed_prefixes = tuple(options["closed_prefixes"])
        self._heap_limit = int(options["heap_limit"])
        self._temp_limit = int(options["temp_limit"])
        self._readable: dict[str, bool] = {}
        self._deadline = math.inf
        self._stopped: str | None = None
        self._next_temp_check = 0.0
        self._length: int | None = None
        uri = Path(path).resolve().as_uri() + "?mode=ro"
        self._conn = sqlite3.connect(uri, uri=True, isolation_level=None, cached_statements=_CACHED_STATEMENTS)
        self._conn.execute("PRAGMA query_only = ON")
        self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        if hasattr(self._conn, "enable_load_extension"):
            self._conn.enable_load_extension(False)
        self._conn.execute(compose("PRAGMA hard_heap_limit = {limit}", limit=int(self._heap_limit)))
        # Set once: setting an authorizer expires every prepared statement, and a statement run again (a gold query
        # per language, a re-score) reuses its compiled form, which the authorizer passed when it was compiled.
        self._conn.set_authorizer(self._authorize)
        self._conn.set_progress_handler(self._progress, _PROGRESS_STEPS)

    def _may_read(self, table: str) -> bool:
        # The parser check's catalog rules (db/catalog.py) for statements that run unparsed: no dbstat,
        # sqlite_stmt, pragma_* but those that describe tables.
        known = self._readable.get(table)
        if known is None:
            name = table.lower()
            known = name in self._open_names or not (
                name in self._closed_names or name.startswith(self._closed_prefixes)
            )
            if len(self._readable) < 4096:
                self._readable[table] = known
        return known

    def _authorize(self, action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None) -> int:
        if action == sqlite3.SQLITE_FUNCTION:
            return sqlite3.SQLITE_OK if (arg2 or "").lower() in self._functions else sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_READ:
            return sqlite3.SQLITE_OK if self._may_read(arg1 or "") else sqlite3.SQLITE_DENY
        if action in _ALLOWED_ACTIONS:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() in _READ_PRAGMAS:
            return sqlite3.SQLITE_OK
        # A table-valued function (json_each, pragma_table_info) declares its columns by an internal schema
        # update; the connection is read-only at the file level, so nothing can be written.
        if action == sqlite3.SQLITE_UPDATE and arg1 == "sqlite_master":
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY

    def _progress(self) -> int:
        now = time.monotonic()
        if now > self._deadline:
            self._stopped = "timeout"
            return 1
        if now > self._next_temp_check:
            self._next_temp_check = now + _TEMP_CHECK_SECONDS
            spilled = sqlite_temp_bytes()
            if spilled is not None and spilled > self._temp_limit:
                self._stopped = "temp"
                return 1
        return 0

    def run(self, sql: str, max_rows: int, max_bytes: int, max_cell: int, timeout: float) -> tuple:
        """Run untrusted SQL within `timeout` seconds; return columns, rows and which cap cut them."""
        conn = self._conn
        temp_cap = self._temp_limit
        if max_cell != self._length:
            # SQLite refuses to make any string or blob past this length, so a value never outgrows the cap.
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_cell)
            self._length = max_cell
        started = time.monotonic()
        deadline = self._deadline = started + timeout
        self._stopped = None
        self._next_temp_check = started + _TEMP_CHECK_SECONDS
        cursor = None
        try:
            cursor = conn.cursor()
            cursor.execute(sql)
            columns = [d[0] for d in cursor.description or []]
            rows, truncated_by = fetch_capped(
                cursor, max_rows, max_bytes=max_bytes, max_cell=max_cell, columns=columns, deadline=deadline
            )
            return columns, rows, truncated_by
        except sqlite3.Warning as error:
            raise SqlRejected(str(error)) from None
        except sqlite3.ProgrammingError as error:
            if "one statement" in str(error):
                raise SqlRejected(str(error)) from None
            raise SqlError(str(error)) from None
        except sqlite3.DatabaseError as error:
            if self._stopped == "timeout":
                raise SqlTimeout(f"statement interrupted after {timeout:g} s") from None
            if self._stopped == "temp":
                raise SqlTooLarge(
                    f"statement interrupted: its temporary files passed the {format_size(temp_cap)} limit"
                ) from None
            message = str(error)
            if "string or blob too big" in message:
                raise SqlTooLarge(
                    f"the statement made a value over the {format_size(max_cell)} per-value limit"
                ) from None
            if "not authorized" in message or "prohibited" in message:
                raise SqlRejected(f"the engine refused it: {message}") from None
            raise SqlError(message) from None
        finally:
            if cursor is not None:
                cursor.close()
            self._deadline = math.inf

    def internal(self, sql: str, params: list) -> tuple:
        """Run trusted SQL (under the same authorizer, which lets the schema's reads through); return columns and
        every row."""
        cursor = self._conn.execute(sql, params)
        columns = [d[0] for d in cursor.description or []]
        return columns, [tuple(r) for r in cursor.fetchall()]

    def problem(self, error: BaseException) -> tuple[str, str]:
        """The failure class name and message the parent raises for an error `run` did not explain."""
        if isinstance(error, MemoryError):
            # SQLite reports its heap limit as out of memory; Python's own allocations fail at the data segment limit.
            return "SqlTooLarge", (
                f"the statement needed more than the {format_size(self._heap_limit)} memory limit "
                "(sandbox limit: memory)"
            )
        return "SqlError", str(error) or type(error).__name__

    def close(self) -> None:
        """Close the file."""
        self._conn.close()


def open_engine(path: str, options: dict[str, Any], temp_directory: str) -> SqliteEngine:
    """Open the SQLite file at `path` read-only under `options` (SqliteEngine); temp files go to the environment's
    SQLITE_TMPDIR, which the parent points at `temp_directory`."""
    return SqliteEngine(path, options)
