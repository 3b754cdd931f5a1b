"""Benchmarks: the native format, importers for published benchmarks, and built-in suites."""

from collections.abc import Callable
from pathlib import Path

from biarena.benchmarks.bis import import_bis
from biarena.benchmarks.builtin import BUILTINS, build_builtin, cache_dir, resolve_benchmark
from biarena.benchmarks.native import load_benchmark, save_benchmark
from biarena.records import Benchmark

IMPORTERS: dict[str, Callable[[Path], Benchmark]] = {
    "bis": import_bis,
}
"""Importers by source format: each reads a published layout into a Benchmark."""

__all__ = [
    "BUILTINS",
    "IMPORTERS",
    "build_builtin",
    "cache_dir",
    "import_bis",
    "load_benchmark",
    "resolve_benchmark",
    "save_benchmark",
]
