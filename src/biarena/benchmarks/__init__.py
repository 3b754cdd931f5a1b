"""Benchmarks: the native format, importers for published benchmarks, and built-in suites."""

from collections.abc import Callable

from biarena.benchmarks.bibench import import_bibench
from biarena.benchmarks.bis import import_bis
from biarena.benchmarks.builtin import BUILTINS, build_builtin, cache_dir, resolve_benchmark
from biarena.benchmarks.corgi import import_corgi
from biarena.benchmarks.dbqa import import_dbqa
from biarena.benchmarks.native import load_benchmark, save_benchmark

IMPORTERS: dict[str, Callable[..., object]] = {
    "bis": import_bis,
    "corgi": import_corgi,
    "bibench": import_bibench,
    "dbqa": import_dbqa,
}
"""Importers by source format: each reads a published layout into a Benchmark."""

__all__ = [
    "BUILTINS",
    "IMPORTERS",
    "build_builtin",
    "cache_dir",
    "import_bibench",
    "import_bis",
    "import_corgi",
    "import_dbqa",
    "load_benchmark",
    "resolve_benchmark",
    "save_benchmark",
]
