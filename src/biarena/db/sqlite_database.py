"""SqliteDatabase: read-only SQLite with an authorizer, a progress-handler clock, and row, byte and temp caps."""

import os
import sqlite3
import sys
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from biarena.db.allowed_functions import allowed_functions
from biarena.db.catalog import relation_problem
from biarena.db.database import Database, fetch_capped
from biarena.db.errors import SqlError, SqlRejected, SqlTimeout, SqlTooLarge
from biarena.db.limits import format_size
from biarena.db.result import QueryResult
from biarena.errors import NotFoundError

_ALLOWED_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)
# Operators SQLite runs as functions (x LIKE y, a -> '$.b') beside the functions a query may name.
_ENGINE_FUNCTIONS = allowed_functions("sqlite") | {"like", "glob", "regexp", "match", "->", "->>"}
# The progress handler runs every this many virtual-machine steps (well under a millisecond of work).
_PROGRESS_STEPS = 4000
# Seconds between two measures of the temp files: a spill grows by tens of MB in that time at most.
_TEMP_CHECK_SECONDS = 0.05
_FD_DIR = "/proc/self/fd"


# Table-valued pragmas that describe the schema (`FROM pragma_table_info('t')`); no other pragma runs.
_READ_PRAGMAS = frozenset({"table_info", "table_xinfo", "index_list", "index_info", "foreign_key_list"})


@lru_cache(maxsize=1024)
def _may_read(table: str) -> bool:
    # The parser check's catalog rules, for statements that run unparsed: no dbstat, sqlite_stmt, pragma_*.
    return relation_problem("sqlite", table) is None


def _authorizer(action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None) -> int:
    if action == sqlite3.SQLITE_FUNCTION:
        return sqlite3.SQLITE_OK if (arg2 or "").lower() in _ENGINE_FUNCTIONS else sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_READ:
        return sqlite3.SQLITE_OK if _may_read(arg1 or "") else sqlite3.SQLITE_DENY
    if action in _ALLOWED_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() in _READ_PRAGMAS:
        return sqlite3.SQLITE_OK
    # A table-valued function (json_each, pragma_table_info) declares its columns by an internal schema
    # update; the connection is read-only at the file level, so nothing can be written.
    if action == sqlite3.SQLITE_UPDATE and arg1 == "sqlite_master":
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


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


class SqliteDatabase(Database):
    """An SQLite file opened read-only (`mode=ro`, `query_only`) with an authorizer that denies writes."""

    dialect = "sqlite"
    engine_checks_functions = True
    engine_is_sandbox = True

    def __init__(self, path: str | Path, **limits: Any) -> None:
        super().__init__(**limits)
        self.path = Path(path)
        if not self.path.is_file():
            raise NotFoundError(f"database file not found: {self.path}")
        uri = self.path.resolve().as_uri() + "?mode=ro"
        try:
            self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
            self._conn.execute("PRAGMA query_only = ON")
            self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as error:
            raise NotFoundError(f"cannot open {self.path} as an SQLite database: {error}") from None
        if hasattr(self._conn, "enable_load_extension"):
            self._conn.enable_load_extension(False)

    def _run(self, sql: str, timeout: float, max_rows: int) -> tuple[list[str], list[tuple], str | None]:
        limits = self.limits
        deadline = time.monotonic() + timeout
        temp_cap = limits.max_temp_bytes
        stopped: str | None = None
        next_temp_check = time.monotonic() + _TEMP_CHECK_SECONDS

        def progress() -> int:
            nonlocal stopped, next_temp_check
            now = time.monotonic()
            if now > deadline:
                stopped = "timeout"
                return 1
            if now > next_temp_check:
                next_temp_check = now + _TEMP_CHECK_SECONDS
                spilled = sqlite_temp_bytes()
                if spilled is not None and spilled > temp_cap:
                    stopped = "temp"
                    return 1
            return 0

        conn = self._conn
        conn.set_authorizer(_authorizer)
        conn.set_progress_handler(progress, _PROGRESS_STEPS)
        # SQLite refuses to make any string or blob past this length, so a value never outgrows the cap.
        length = conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limits.max_cell_bytes)
        cursor = None
        try:
            cursor = conn.cursor()
            cursor.execute(sql)
            columns = [d[0] for d in cursor.description or []]
            rows, truncated_by = fetch_capped(
                cursor, max_rows, max_bytes=limits.max_result_bytes, max_cell=limits.max_cell_bytes, columns=columns
            )
            return columns, rows, truncated_by
        except sqlite3.Warning as error:
            raise self.check_refusal(sql) or SqlRejected(str(error)) from None
        except sqlite3.DatabaseError as error:
            if stopped == "timeout":
                raise SqlTimeout(f"statement interrupted after {timeout:g} s") from None
            if stopped == "temp":
                raise SqlTooLarge(
                    f"statement interrupted: its temporary files passed the {format_size(temp_cap)} limit"
                ) from None
            message = str(error)
            if "string or blob too big" in message:
                raise SqlTooLarge(
                    f"the statement made a value over the {format_size(limits.max_cell_bytes)} per-value limit"
                ) from None
            # A statement may have run unparsed (engine_is_sandbox): when the check refuses it, its reason is clearer.
            refusal = self.check_refusal(sql)
            if "not authorized" in message or "prohibited" in message:
                raise refusal or SqlRejected(f"the engine refused it: {message}") from None
            raise refusal or SqlError(message) from None
        except sqlite3.ProgrammingError as error:
            if "one statement" in str(error):
                raise self.check_refusal(sql) or SqlRejected(str(error)) from None
            raise SqlError(str(error)) from None
        except (ValueError, OverflowError, MemoryError) as error:
            raise SqlError(str(error) or type(error).__name__) from None
        finally:
            if cursor is not None:
                cursor.close()
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, length)
            conn.set_progress_handler(None, 0)
            conn.set_authorizer(None)

    def _internal(self, sql: str, params: tuple = ()) -> tuple[list[str], list[tuple]]:
        # Fetch while holding the lock: one connection serves every thread.
        with self._lock:
            cursor = self._conn.execute(sql, params)
            columns = [d[0] for d in cursor.description or []]
            return columns, [tuple(r) for r in cursor.fetchall()]

    def tables(self) -> list[str]:
        """Return the user tables' names."""
        _, rows = self._internal(
            "SELECT name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
        return [r[0] for r in rows]

    def table_ddl(self, table: str) -> str:
        """Return the table's CREATE statement as stored."""
        _, rows = self._internal("SELECT sql FROM sqlite_master WHERE name = ?", (table,))
        return (rows[0][0] or "") if rows else ""

    def foreign_keys(self, table: str) -> list[tuple[str, str, str]]:
        """Return (column, referenced table, referenced column) for `table`."""
        _, rows = self._internal('SELECT "from", "table", "to" FROM pragma_foreign_key_list(?)', (table,))
        return [(r[0], r[1], r[2] or "") for r in rows]

    def sample_rows(self, table: str, limit: int) -> QueryResult:
        """Return up to `limit` rows of `table`."""
        quoted = '"' + table.replace('"', '""') + '"'
        columns, rows = self._internal(f"SELECT * FROM {quoted} LIMIT ?", (limit,))
        return QueryResult(columns, rows)

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()
