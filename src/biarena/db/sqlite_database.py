"""SqliteDatabase: read-only SQLite with an authorizer, a progress-handler clock and a row cap."""

import sqlite3
import time
from pathlib import Path

from biarena.db.database import Database, fetch_capped
from biarena.db.errors import SqlError, SqlRejected, SqlTimeout
from biarena.db.result import QueryResult
from biarena.errors import NotFoundError

_ALLOWED_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)
_DENIED_FUNCTIONS = frozenset({"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"})
_PROGRESS_STEPS = 1000


def _authorizer(action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None) -> int:
    if action not in _ALLOWED_ACTIONS:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _DENIED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


class SqliteDatabase(Database):
    """An SQLite file opened read-only (`mode=ro`, `query_only`) with an authorizer that denies writes."""

    dialect = "sqlite"

    def __init__(self, path: str | Path, **limits: float) -> None:
        super().__init__(**limits)  # type: ignore[arg-type]
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

    def _run(self, sql: str, timeout: float, max_rows: int) -> tuple[list[str], list[tuple], bool]:
        deadline = time.monotonic() + timeout
        timed_out = False

        def progress() -> int:
            nonlocal timed_out
            if time.monotonic() > deadline:
                timed_out = True
                return 1
            return 0

        conn = self._conn
        conn.set_authorizer(_authorizer)
        conn.set_progress_handler(progress, _PROGRESS_STEPS)
        cursor = None
        try:
            cursor = conn.cursor()
            cursor.execute(sql)
            columns = [d[0] for d in cursor.description or []]
            rows, truncated = fetch_capped(cursor, max_rows)
            return columns, rows, truncated
        except sqlite3.Warning as error:
            raise SqlRejected(str(error)) from None
        except sqlite3.DatabaseError as error:
            if timed_out:
                raise SqlTimeout(f"statement interrupted after {timeout:g} s") from None
            message = str(error)
            if "not authorized" in message or "prohibited" in message:
                raise SqlRejected(f"the engine refused it: {message}") from None
            raise SqlError(message) from None
        except sqlite3.ProgrammingError as error:
            if "one statement" in str(error):
                raise SqlRejected(str(error)) from None
            raise SqlError(str(error)) from None
        except (ValueError, OverflowError) as error:
            raise SqlError(str(error)) from None
        finally:
            if cursor is not None:
                cursor.close()
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
