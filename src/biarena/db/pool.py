"""DatabasePool: a benchmark's databases opened on demand, with optional location overrides."""

import contextlib
import threading
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from biarena.db.database import Database
from biarena.db.limits import Limited, SandboxLimits
from biarena.db.open_database import open_database
from biarena.errors import NotFoundError
from biarena.records import Benchmark


class DatabasePool(Limited):
    """Opens each benchmark database once; `overrides` maps names (or '*') to other URLs.

    Every database gets the same sandbox `limits` (keyword overrides such as `timeout=` replace single ones).
    """

    def __init__(
        self,
        benchmark: Benchmark,
        *,
        overrides: dict[str, str] | None = None,
        limits: SandboxLimits | None = None,
        allow_superuser: bool = False,
        **limit_overrides: Any,
    ) -> None:
        self.benchmark = benchmark
        self.overrides = overrides or {}
        self.limits = replace(limits or SandboxLimits(), **limit_overrides)
        self.allow_superuser = allow_superuser
        self._open: dict[str, Database] = {}
        self._lock = threading.Lock()
        self._starting: list[threading.Thread] = []

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
                self._open[name] = open_database(
                    self.location(name), limits=self.limits, allow_superuser=self.allow_superuser
                )
            return self._open[name]

    def source_dialect(self, name: str) -> str:
        """Return the dialect the benchmark's gold SQL for `name` is written in."""
        ref = self.benchmark.databases.get(name)
        return ref.dialect if ref else "sqlite"

    def open_all(self) -> None:
        """Open every database now, so a missing one fails before any work is done."""
        for name in self.benchmark.databases:
            self.get(name)

    def start(self, names: Iterable[str]) -> None:
        """Open the databases `names` and start their engines in the background, so that their first statements do
        not wait for them; a database that cannot be opened or started says so at its first use."""
        for name in dict.fromkeys(names):
            thread = threading.Thread(target=self._start, args=(name,), name=f"start {name}", daemon=True)
            with self._lock:
                self._starting.append(thread)
            thread.start()

    def _start(self, name: str) -> None:
        # Whatever keeps the database from opening, its first use meets it again and says it.
        with contextlib.suppress(Exception):
            self.get(name).start()

    def close(self) -> None:
        """Close every open database (once the engines being started have started)."""
        with self._lock:
            starting, self._starting = self._starting, []
        for thread in starting:
            thread.join()
        for db in self._open.values():
            db.close()
        self._open.clear()
