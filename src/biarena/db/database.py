"""Database: the sandboxed engine interface every backend implements."""

import threading
import time
from abc import ABC, abstractmethod
from datetime import datetime
from typing import Any

from biarena.db.clock import anchor_clock, fold_sqlite_time_calls
from biarena.db.guard import check_read_only
from biarena.db.result import QueryResult

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_ROWS = 100_000


class Database(ABC):
    """A read-only database that runs untrusted SQL under a time limit and a row cap."""

    dialect: str = "sqlite"

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, max_rows: int = DEFAULT_MAX_ROWS) -> None:
        self.timeout = timeout
        self.max_rows = max_rows
        self._lock = threading.RLock()

    def prepare(self, sql: str, dialect: str | None = None, now: datetime | None = None) -> str:
        """Check `sql`, anchor its clock to `now`, and return the text to run on this engine."""
        source = dialect or self.dialect
        tree = check_read_only(sql, source)
        changed = False
        if now is not None:
            tree, changed = anchor_clock(tree, now, source)
        if source == "sqlite" and self.dialect != "sqlite":
            tree = fold_sqlite_time_calls(tree)
        if source != self.dialect or changed:
            text = tree.sql(dialect=self.dialect)
            check_read_only(text, self.dialect)
            return text
        return sql

    def execute(
        self,
        sql: str,
        *,
        dialect: str | None = None,
        now: datetime | None = None,
        timeout: float | None = None,
        max_rows: int | None = None,
    ) -> QueryResult:
        """Run one untrusted read statement; raise SqlRejected, SqlTimeout or SqlError on failure."""
        text = self.prepare(sql, dialect, now)
        limit = self.timeout if timeout is None else timeout
        cap = self.max_rows if max_rows is None else max_rows
        started = time.monotonic()
        with self._lock:
            columns, rows, truncated = self._run(text, limit, cap)
        return QueryResult(
            columns=columns,
            rows=rows,
            truncated=truncated,
            elapsed=time.monotonic() - started,
            executed_sql=text,
        )

    @abstractmethod
    def _run(self, sql: str, timeout: float, max_rows: int) -> tuple[list[str], list[tuple], bool]:
        """Run checked SQL in the engine's sandbox; return columns, rows and the truncated flag."""

    @abstractmethod
    def tables(self) -> list[str]:
        """Return the user tables' names."""

    @abstractmethod
    def table_ddl(self, table: str) -> str:
        """Return a CREATE TABLE statement describing `table`."""

    @abstractmethod
    def foreign_keys(self, table: str) -> list[tuple[str, str, str]]:
        """Return (column, referenced table, referenced column) for `table`'s foreign keys."""

    @abstractmethod
    def sample_rows(self, table: str, limit: int) -> QueryResult:
        """Return up to `limit` rows of `table` (trusted, internal)."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def fetch_capped(cursor: Any, max_rows: int) -> tuple[list[tuple], bool]:
    """Fetch at most `max_rows` rows from a DB-API cursor and say whether more were waiting."""
    rows = [tuple(r) for r in cursor.fetchmany(max_rows + 1)] if max_rows >= 0 else []
    truncated = len(rows) > max_rows
    return rows[:max_rows], truncated
