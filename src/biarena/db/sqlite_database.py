"""SqliteDatabase: read-only SQLite; statements run in an engine process with an authorizer, a heap limit, a
progress-handler clock, and row, byte and temp caps (sqlite_serve).

The engine process is killed past the memory limit plus a margin or shortly past the time limit (EngineProcess), so
no statement grows biarena's own process; trusted reads of the schema use a read-only connection in this process.
"""

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

from biarena.db.database import Database
from biarena.db.engine_process import MEMORY_MARGIN, EngineProcess
from biarena.db.errors import SqlError, SqlRejected, SqlTimeout, SqlTooLarge
from biarena.db.result import QueryResult
from biarena.db.sql_text import compose
from biarena.db.sqlite_dialect import SQLITE
from biarena.db.sqlite_serve import sqlite_temp_bytes
from biarena.errors import NotFoundError

__all__ = ["SqliteDatabase", "sqlite_temp_bytes"]

# Operators SQLite runs as functions (x LIKE y, a -> '$.b') beside the functions a query may name.
_ENGINE_FUNCTIONS = SQLITE.functions | {"like", "glob", "regexp", "match", "->", "->>"}

WATCH_SECONDS = 0.02
"""How often the parent reads the SQLite engine process's memory while a statement runs."""

KILL_GRACE = 1.0
"""Seconds past the time limit before the engine process is killed: SQLite's progress handler interrupts a statement
at the limit and keeps the process, unless the statement is stuck where the handler does not run."""


def _existing(path: Path) -> Path:
    if not path.is_file():
        raise NotFoundError(f"database file not found: {path}")
    return path


class SqliteDatabase(Database):
    """An SQLite file opened read-only (`mode=ro`, `query_only`) with an authorizer that denies writes.

    Its engine process starts on first use; schema reads (`tables`, `table_ddl`, ...) stay in this process.
    """

    dialect = "sqlite"
    engine_checks_functions = True
    engine_is_sandbox = True

    @classmethod
    def from_url(cls, url: str, *, allow_superuser: bool = False, **settings: Any) -> "SqliteDatabase":
        """The SQLite file of `sqlite:///PATH`."""
        path = url.split(":///", 1)[1] if ":///" in url else ""
        if not path or path == ":memory:":
            raise NotFoundError(f"an SQLite URL must name a file: {url}")
        return cls(_existing(Path(path)), **settings)

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
        options = {
            "functions": sorted(_ENGINE_FUNCTIONS),
            "open_names": sorted(SQLITE.catalog.open_names),
            "closed_names": sorted(SQLITE.catalog.closed_names),
            "closed_prefixes": list(SQLITE.catalog.closed_prefixes),
            "heap_limit": self.limits.max_memory_bytes,
            "temp_limit": self.limits.max_temp_bytes,
        }
        resolved = self.path.resolve()
        digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
        # SQLite's heap is limited in the engine process, and its data segment to what the memory watch allows: any
        # allocation past it fails at once, so the watch is a backstop and reads less often (a reading costs a wake-up
        # of this process per statement).
        self._worker = EngineProcess(
            "sqlite",
            resolved,
            options,
            self.limits.max_memory_bytes,
            f"sqlite-{digest}",
            data_margin=MEMORY_MARGIN,
            poll_seconds=WATCH_SECONDS,
        )

    def _run(self, sql: str, timeout: float, max_rows: int) -> tuple[list[str], list[tuple], str | None]:
        limits = self.limits
        request = ("run", sql, max_rows, limits.max_result_bytes, limits.max_cell_bytes, timeout)
        try:
            return self._worker.request(request, timeout, grace=KILL_GRACE)
        except (SqlTimeout, SqlTooLarge):
            raise
        except (SqlRejected, SqlError) as problem:
            # A statement may have run unparsed (engine_is_sandbox): when the check refuses it, its reason is clearer.
            raise self.check_refusal(sql) or problem from None

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

    def views(self) -> list[str]:
        """Return the views' names."""
        _, rows = self._internal("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name")
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
        columns, rows = self._internal(compose("SELECT * FROM {table} LIMIT ?", table=table), (limit,))
        return QueryResult(columns, rows)

    def close(self) -> None:
        """Stop the engine process and close the connection."""
        with self._lock:
            self._worker.stop()
            self._conn.close()
