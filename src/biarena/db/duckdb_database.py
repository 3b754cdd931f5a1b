"""DuckDatabase: DuckDB opened read-only with external access off, memory and temp space capped, and a timer.

Statements run in an engine process of their own (EngineProcess), which is killed past the memory limit plus a
fixed margin or past the time limit: DuckDB's own memory limit leaves values that functions build unbounded.
"""

import hashlib
import importlib.util
import math
from pathlib import Path
from typing import Any

from biarena.db.database import Database
from biarena.db.engine_process import EngineProcess
from biarena.db.result import QueryResult
from biarena.db.sql_text import compose
from biarena.errors import NotFoundError, UsageError

_MAGIC = b"DUCK"
"""What a DuckDB file holds at bytes 8 to 12."""


class DuckDatabase(Database):
    """A DuckDB file, read-only, with file and network access disabled, memory and temp space capped.

    Its engine process starts on first use and spills to the process's scratch area (never beside the file).
    """

    dialect = "duckdb"

    @classmethod
    def from_url(cls, url: str, *, allow_superuser: bool = False, **settings: Any) -> "DuckDatabase":
        """The DuckDB file of `duckdb:///PATH`."""
        path = url.split(":///", 1)[1] if ":///" in url else ""
        if not path or path == ":memory:":
            raise UsageError(f"a DuckDB URL must name a file as duckdb:///PATH: {url}")
        return cls(path, **settings)

    def __init__(self, path: str | Path, **limits: Any) -> None:
        super().__init__(**limits)
        if importlib.util.find_spec("duckdb") is None:
            raise UsageError("DuckDB support needs: pip install 'biarena[duckdb]'")
        self.path = Path(path)
        if not self.path.is_file():
            raise NotFoundError(f"database file not found: {self.path}")
        with self.path.open("rb") as handle:
            if handle.read(12)[8:12] != _MAGIC:
                raise NotFoundError(f"cannot open {self.path} as a DuckDB database: not a DuckDB file")
        config = {
            "enable_external_access": False,
            "memory_limit": f"{self.limits.max_memory_bytes}B",
            "max_temp_directory_size": f"{self.limits.max_temp_bytes}B",
        }
        digest = hashlib.sha256(str(self.path.resolve()).encode()).hexdigest()[:16]
        self._worker = EngineProcess("duckdb", self.path, config, self.limits.max_memory_bytes, f"duckdb-{digest}")

    def _run(self, sql: str, timeout: float, max_rows: int) -> tuple[list[str], list[tuple], str | None]:
        limits = self.limits
        request = ("run", sql, max_rows, limits.max_result_bytes, limits.max_cell_bytes, timeout)
        return self._worker.request(request, timeout)

    def _internal(self, sql: str, params: list | None = None) -> tuple[list[str], list[tuple]]:
        # Trusted reads, through the same engine process: no time limit, the same memory watch.
        with self._lock:
            return self._worker.request(("internal", sql, params or []), math.inf)

    def tables(self) -> list[str]:
        """Return the user tables' names."""
        _, rows = self._internal(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY table_name"
        )
        return [r[0] for r in rows]

    def views(self) -> list[str]:
        """Return the views' names."""
        _, rows = self._internal(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'VIEW' "
            "ORDER BY table_name"
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
        columns, rows = self._internal(compose("SELECT * FROM {table} LIMIT {limit}", table=table, limit=int(limit)))
        return QueryResult(columns, rows)

    def close(self) -> None:
        """Stop the engine process and remove its temporary files."""
        with self._lock:
            self._worker.stop()
