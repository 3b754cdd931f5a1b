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
from biarena.benchmarks.imported import Imported, open_import
from biarena.benchmarks.native import check_target, load_benchmark, save_benchmark
from biarena.benchmarks.spider import import_spider
from biarena.benchmarks.spider2_lite import import_spider2_lite
from biarena.benchmarks.verticals import canonical_vertical
from biarena.registry import Registry

IMPORTERS: Registry[Callable[..., Any]] = Registry(
    "importer",
    {
        "bis": "biarena.benchmarks.bis:import_bis",
        "corgi": "biarena.benchmarks.corgi:import_corgi",
        "bibench": "biarena.benchmarks.bibench:import_bibench",
        "dbqa": "biarena.benchmarks.dbqa:import_dbqa",
        "bird": "biarena.benchmarks.bird:import_bird",
        "spider": "biarena.benchmarks.spider:import_spider",
        "spider2-lite": "biarena.benchmarks.spider2_lite:import_spider2_lite",
        "insightbench": "biarena.benchmarks.insightbench:import_insightbench",
    },
    group="biarena.importers",
)
"""Importers by source format (plugins add theirs through the `biarena.importers` entry points):
`importer(path, options=None, **values)` reads a published layout and returns a Benchmark, or an object with
`benchmark` (and `skipped`, `notes`), or a context manager giving one; `open_import` reads any of them as one
Imported. Its `Options` model declares what it takes, and the first paragraph of its docstring is the
`biarena import FORMAT` help."""

__all__ = [
    "BUILTINS",
    "IMPORTERS",
    "Imported",
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
    "open_import",
    "parse_now",
    "resolve_benchmark",
    "save_benchmark",
]
