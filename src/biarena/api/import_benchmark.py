"""import_benchmark: a published benchmark read into the native format, as `biarena import FORMAT PATH -o DIR`."""

from pathlib import Path
from typing import Any

from biarena.api.messages import print_messages


def import_benchmark(
    importer: str, path: str | Path, out: str | Path, *, options: dict[str, Any] | None = None, **settings: Any
) -> Path:
    """Read the published benchmark at `path` with `importer` (`bird`, `spider`, `bis`, `corgi`, a plugin's) into
    the benchmark directory `out`; return it.

    `options` are the importer's own (`-O`; `biarena describe importer NAME` lists them); `settings` the other
    fields of `biarena.benchmarks.import_settings.ImportSettings`: `options_file`, `force`, `skip_missing`,
    `gold_check` (on by default: the imported gold is run once and its health reported). A name it does not take
    is a UsageError that suggests the closest one."""
    from biarena.benchmarks.execute_import import execute_import
    from biarena.benchmarks.import_settings import ImportSettings
    from biarena.metrics.imported_gold import check_imported_gold

    values = {"importer": importer, "path": Path(path), "out": Path(out), **settings}
    if options is not None:
        values["options"] = options
    chosen = ImportSettings.of("import_benchmark()", values)
    execute_import(chosen, print_messages)
    if chosen.gold_check:
        check_imported_gold(chosen.out, print_messages)
    return chosen.out
