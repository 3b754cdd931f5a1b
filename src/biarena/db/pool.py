"""DatabasePool: a benchmark's databases opened on demand, with optional location overrides."""

import threading

from biarena.db.database import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, Database
from biarena.db.open_database import open_database
from biarena.errors import NotFoundError
from biarena.records import Benchmark


class DatabasePool:
    """Opens each benchmark database once; `overrides` maps names (or '*') to other URLs."""

    def __init__(
        self,
        benchmark: Benchmark,
        *,
        overrides: dict[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> None:
        self.benchmark = benchmark
        self.overrides = overrides or {}
        self.timeout = timeout
        self.max_rows = max_rows
        self._open: dict[str, Database] = {}
        self._lock = threading.Lock()

    def location(self, name: str) -> str:
        """Return where database `name` is read from."""
        if name in self.overrides:
            return self.overrides[name]
        if "*" in self.overrides:
            return self.overrides["*"]
        if name not in self.benchmark.databases:
            raise NotFoundError(f"benchmark '{self.benchmark.name}' has no database '{name}'")
        return self.benchmark.database_location(name)

    def get(self, name: str) -> Database:
        """Return the open database `name`, opening it on first use."""
        with self._lock:
            if name not in self._open:
                self._open[name] = open_database(self.location(name), timeout=self.timeout, max_rows=self.max_rows)
            return self._open[name]

    def source_dialect(self, name: str) -> str:
        """Return the dialect the benchmark's gold SQL for `name` is written in."""
        ref = self.benchmark.databases.get(name)
        return ref.dialect if ref else "sqlite"

    def open_all(self) -> None:
        """Open every database now, so a missing one fails before any work is done."""
        for name in self.benchmark.databases:
            self.get(name)

    def close(self) -> None:
        """Close every open database."""
        for db in self._open.values():
            db.close()
        self._open.clear()
