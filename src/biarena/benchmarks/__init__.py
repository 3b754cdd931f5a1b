"""Benchmarks: the native format, importers for published benchmarks, and built-in suites."""

from collections.abc import Callable

from biarena.benchmarks.anchor import anchor_benchmark, parse_now
from biarena.benchmarks.bibench import import_bibench
from biarena.benchmarks.bis import import_bis
from biarena.benchmarks.builtin import BUILTINS, build_builtin, cache_dir, resolve_benchmark
from biarena.benchmarks.corgi import import_corgi
from biarena.benchmarks.dbqa import import_dbqa
from biarena.benchmarks.native import check_target, load_benchmark, save_benchmark
from biarena.benchmarks.verticals import canonical_vertical

IMPORTERS: dict[str, Callable[..., object]] = {
    "bis": import_bis,
    "corgi": import_corgi,
    "bibench": import_bibench,
    "dbqa": import_dbqa,
}
"""Importers by source format: each reads a published layout into a Benchmark (CORGI's is a context manager)."""

__all__ = [
    "BUILTINS",
    "IMPORTERS",
    "anchor_benchmark",
    "build_builtin",
    "cache_dir",
    "canonical_vertical",
    "check_target",
    "import_bibench",
    "import_bis",
    "import_corgi",
    "import_dbqa",
    "load_benchmark",
    "parse_now",
    "resolve_benchmark",
    "save_benchmark",
]
