"""open_engine: DuckDB in an engine process (engine_serve), one file read-only with its configuration locked.

DuckDB's `memory_limit` bounds only its buffer manager, while a function can build a value of any size outside it:
the parent's watch on the engine process bounds the rest.
"""

from typing import Any

from biarena.db.fetch_capped import fetch_capped


class DuckEngine:
    """One DuckDB file opened read-only in the engine process."""

    def __init__(self, path: str, config: dict[str, Any]) -> None:
        import duckdb

        self._duckdb = duckdb
        self.errors: tuple[type[BaseException], ...] = (duckdb.Error,)
        self._conn = duckdb.connect(path, read_only=True, config=config)
        # No progress bar on a process nobody watches; then no statement may change a setting.
        self._conn.execute("SET enable_progress_bar = false")
        self._conn.execute("SET lock_configuration = true")

    def run(self, sql: str, max_rows: int, max_bytes: int, max_cell: int, timeout: float) -> tuple:
        """Run untrusted SQL; return columns, rows and which cap cut them (the parent enforces `timeout`)."""
        # On the connection itself: this process runs one statement at a time, every statement checked read-only
        # before it comes, and a cursor of its own would cost a connection's set-up each time (a fifth of a small
        # statement's time).
        cursor = self._conn.execute(sql)
        columns = [d[0] for d in cursor.description or []]
        rows, truncated_by = fetch_capped(
            cursor, max_rows, max_bytes=max_bytes, max_cell=max_cell, columns=columns, short_batch_ends=True
        )
        if truncated_by is not None:
            self._conn.execute("SELECT 1")  # the rest of a cut result is dropped now, not at the next statement
        return columns, rows, truncated_by

    def internal(self, sql: str, params: list) -> tuple:
        """Run trusted SQL; return columns and every row."""
        cursor = self._conn.execute(sql, params)
        columns = [d[0] for d in cursor.description or []]
        return columns, [tuple(r) for r in cursor.fetchall()]

    def problem(self, error: BaseException) -> tuple[str, str]:
        """The failure class name and message the parent raises for a DuckDB error."""
        duckdb = self._duckdb
        if isinstance(error, getattr(duckdb, "InterruptException", ())):
            return "SqlTimeout", "statement interrupted"
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        if isinstance(error, MemoryError | getattr(duckdb, "OutOfMemoryException", ())):
            return "SqlTooLarge", f"{first or 'out of memory'} (sandbox limits: memory and temp space)"
        if (
            isinstance(error, duckdb.PermissionException | getattr(duckdb, "InvalidInputException", ()))
            and "read-only" in str(error).lower()
        ):
            return "SqlRejected", f"the engine refused it: {error}"
        return "SqlError", str(error)

    def close(self) -> None:
        """Close the file."""
        self._conn.close()


def open_engine(path: str, options: dict[str, Any], temp_directory: str) -> DuckEngine:
    """Open `path` read-only with DuckDB configuration `options`, spilling to `temp_directory`."""
    return DuckEngine(path, {**options, "temp_directory": temp_directory})
