"""Benchmarks: the native format, importers for published benchmarks, and built-in suites."""

from collections.abc import Callable
from typing import Any

from biarena.benchmarks.anchor import anchor_benchmark, parse_now
from biarena.benchmarks.bibench import import_bibench
from biarena.benchmarks.bird import import_bird
from biarena.benchmarks.bis import import_bis
from biarena.benchmarks.builtin import BUILTINS, build_builtin, builtin_builder, cache_dir, resolve_benchmark
from biarena.benchmarks.corgi import import_corgi
from biarena.benchmarks.dbqa import import_dbqa
from biarena.benchmarks.native import check_target, load_benchmark, save_benchmark
from biarena.benchmarks.spider import import_spider
from biarena.benchmarks.spider2_lite import import_spider2_lite
from biarena.benchmarks.verticals import canonical_vertical

IMPORTERS: dict[str, Callable[..., Any]] = {
    "bis": import_bis,
    "corgi": import_corgi,
    "bibench": import_bibench,
    "dbqa": import_dbqa,
    "bird": import_bird,
    "spider": import_spider,
    "spider2-lite": import_spider2_lite,
}
"""Importers by source format: `importer(path, options=None, **values)` reads a published layout into a Benchmark
(CORGI's is a context manager yielding the benchmark and the verticals skipped; Spider 2.0-lite's gives the
benchmark with `notes` for the user); its `Options` model declares what
it takes, and the first paragraph of its docstring is the `biarena import FORMAT` help."""

__all__ = [
    "BUILTINS",
    "IMPORTERS",
    "anchor_benchmark",
    "build_builtin",
    "builtin_builder",
    "cache_dir",
    "canonical_vertical",
    "check_target",
    "import_bibench",
    "import_bird",
    "import_bis",
    "import_corgi",
    "import_dbqa",
    "import_spider",
    "import_spider2_lite",
    "load_benchmark",
    "parse_now",
    "resolve_benchmark",
    "save_benchmark",
]
