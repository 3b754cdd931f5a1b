"""DuckDatabase: DuckDB opened read-only with external access off, memory and temp space capped, and a timer."""

import hashlib
import threading
from pathlib import Path
from typing import Any

from biarena.db.database import Database, fetch_capped, finite
from biarena.db.errors import SqlError, SqlRejected, SqlTimeout, SqlTooLarge
from biarena.db.result import QueryResult
from biarena.db.scratch import scratch_dir
from biarena.errors import NotFoundError, UsageError


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError:
        raise UsageError("DuckDB support needs: pip install 'biarena[duckdb]'") from None
    return duckdb


class DuckDatabase(Database):
    """A DuckDB file, read-only, with file and network access disabled, memory and temp space capped.

    Its temporary files go to the process's scratch area (never beside the benchmark's file).
    """

    dialect = "duckdb"

    def __init__(self, path: str | Path, **limits: Any) -> None:
        super().__init__(**limits)
        duckdb = _duckdb()
        self.path = Path(path)
        if not self.path.is_file():
            raise NotFoundError(f"database file not found: {self.path}")
        # One directory per file: DuckDB shares one instance per file in a process, so its settings must agree.
        digest = hashlib.sha256(str(self.path.resolve()).encode()).hexdigest()[:16]
        self.temp_directory = scratch_dir(f"duckdb-{digest}")
        config = {
            "enable_external_access": False,
            "memory_limit": f"{self.limits.max_memory_bytes}B",
            "temp_directory": str(self.temp_directory),
            "max_temp_directory_size": f"{self.limits.max_temp_bytes}B",
            "lock_configuration": True,
        }
        try:
            self._conn = duckdb.connect(str(self.path), read_only=True, config=config)
        except duckdb.Error as error:
            if "different configuration" in str(error):
                raise UsageError(
                    f"{self.path} is already open in this process with other settings or sandbox limits"
                ) from None
            raise NotFoundError(f"cannot open {self.path} as a DuckDB database: {error}") from None
        self._errors = duckdb

    def _run(self, sql: str, timeout: float, max_rows: int) -> tuple[list[str], list[tuple], str | None]:
        duckdb = self._errors
        limits = self.limits
        cursor = self._conn.cursor()
        fired = threading.Event()

        def interrupt() -> None:
            fired.set()
            cursor.interrupt()

        timer = threading.Timer(timeout, interrupt) if finite(timeout) else None
        if timer is not None:
            timer.start()
        try:
            cursor.execute(sql)
            columns = [d[0] for d in cursor.description or []]
            rows, truncated_by = fetch_capped(
                cursor, max_rows, max_bytes=limits.max_result_bytes, max_cell=limits.max_cell_bytes, columns=columns
            )
            return columns, rows, truncated_by
        except duckdb.Error as error:
            if fired.is_set() or isinstance(error, getattr(duckdb, "InterruptException", ())):
                raise SqlTimeout(f"statement interrupted after {timeout:g} s") from None
            if isinstance(error, getattr(duckdb, "OutOfMemoryException", ())):
                first = str(error).splitlines()[0]
                raise SqlTooLarge(f"{first} (sandbox limits: memory and temp space)") from None
            if (
                isinstance(error, duckdb.PermissionException | getattr(duckdb, "InvalidInputException", ()))
                and "read-only" in str(error).lower()
            ):
                raise SqlRejected(f"the engine refused it: {error}") from None
            raise SqlError(str(error)) from None
        finally:
            if timer is not None:
                timer.cancel()
            cursor.close()

    def _internal(self, sql: str, params: list | None = None) -> tuple[list[str], list[tuple]]:
        # Fetch while holding the lock: one connection serves every thread.
        with self._lock:
            cursor = self._conn.execute(sql, params or [])
            columns = [d[0] for d in cursor.description or []]
            return columns, [tuple(r) for r in cursor.fetchall()]

    def tables(self) -> list[str]:
        """Return the user tables' names."""
        _, rows = self._internal(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY table_name"
        )
        return [r[0] for r in rows]

    def table_ddl(self, table: str) -> str:
        """Return the table's CREATE statement."""
        _, rows = self._internal("SELECT sql FROM duckdb_tables() WHERE table_name = ?", [table])
        return rows[0][0] if rows else ""

    def foreign_keys(self, table: str) -> list[tuple[str, str, str]]:
        """Return (column, referenced table, referenced column) for `table`."""
        _, rows = self._internal(
            "SELECT constraint_column_names, referenced_table, referenced_column_names "
            "FROM duckdb_constraints() WHERE table_name = ? AND constraint_type = 'FOREIGN KEY'",
            [table],
        )
        out = []
        for cols, ref_table, ref_cols in rows:
            for col, ref in zip(cols, ref_cols or [""] * len(cols), strict=False):
                out.append((col, ref_table, ref))
        return out

    def sample_rows(self, table: str, limit: int) -> QueryResult:
        """Return up to `limit` rows of `table`."""
        quoted = '"' + table.replace('"', '""') + '"'
        columns, rows = self._internal(f"SELECT * FROM {quoted} LIMIT {int(limit)}")
        return QueryResult(columns, rows)

    def close(self) -> None:
        """Close the connection (DuckDB removes its temporary files as statements end)."""
        self._conn.close()
