"""`biarena load BENCH --db-url URL`: copy a benchmark's database files into server databases."""

import typer
from rich.text import Text

from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err
from biarena.cli.options import db_overrides, flag
from biarena.db import copy_database
from biarena.errors import UsageError


def load(
    benchmark_arg: str = typer.Argument(..., metavar="BENCH", help="Benchmark directory or built-in name."),
    db_url: list[str] = typer.Option(..., "--db-url", help="Server URL for all databases, or NAME=URL (repeatable)."),
    replace: bool = flag("--replace", "Replace tables that already exist at the server."),
) -> None:
    """Load the benchmark's databases into a server, so `biarena run --db-url` can use them."""
    benchmark = resolve_benchmark(benchmark_arg)
    overrides = db_overrides(db_url, benchmark) or {}
    for name, ref in benchmark.databases.items():
        url = overrides.get(name) or overrides.get("*")
        if url is None:
            raise UsageError(f"no --db-url for database '{name}' (give NAME=URL or one URL for all)")
        if ref.url:
            raise UsageError(f"database '{name}' is already a server database")
        copied = copy_database(benchmark.database_location(name), url, replace=replace)
        err.print(Text(f"{name}: copied {sum(copied.values())} rows in {len(copied)} tables"))
