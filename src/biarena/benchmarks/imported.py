"""open_import: run an importer and get what it read in one shape, whatever the importer returns."""

from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biarena.records import Benchmark


@dataclass
class Imported:
    """What an importer read: the benchmark, the parts it skipped (part -> why) and lines to tell the user."""

    benchmark: Benchmark
    skipped: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def as_imported(made: Any) -> Imported:
    """An importer's result as Imported: a Benchmark, or an object with `benchmark` (and `skipped`, `notes`)."""
    if isinstance(made, Imported):
        return made
    benchmark = getattr(made, "benchmark", made)
    if not isinstance(benchmark, Benchmark):
        raise TypeError(f"an importer returned {type(made).__name__}, not a Benchmark")
    return Imported(benchmark, dict(getattr(made, "skipped", {}) or {}), list(getattr(made, "notes", []) or []))


@contextmanager
def open_import(name: str, path: str | Path, options: Any = None, **values: Any) -> Iterator[Imported]:
    """Run the importer `name` (from IMPORTERS, plugins' included) on `path` with its options (an options object or
    keywords) and give what it read as Imported; an importer that is a context manager (its files live while it
    is open) is read inside it."""
    from biarena.benchmarks import IMPORTERS

    importer = IMPORTERS[name]
    with ExitStack() as stack:
        made = importer(Path(path), options, **values)
        if isinstance(made, AbstractContextManager):
            made = stack.enter_context(made)
        yield as_imported(made)
