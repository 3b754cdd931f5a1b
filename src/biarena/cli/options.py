"""Options several commands share."""

import typer

from biarena.errors import UsageError
from biarena.records import Benchmark

DB_URL = typer.Option(
    None,
    "--db-url",
    help="Read the benchmark's databases from a server: URL for all, or NAME=URL for one (repeatable).",
)
TIMEOUT = typer.Option(30.0, "--timeout", help="Time limit per SQL statement, in seconds.", min=0.01)


def db_overrides(values: list[str] | None, benchmark: Benchmark) -> dict[str, str] | None:
    """Turn --db-url values into a name -> URL map ('*' for a URL that applies to every database)."""
    if not values:
        return None
    overrides: dict[str, str] = {}
    for value in values:
        name, sep, url = value.partition("=")
        if sep and name in benchmark.databases:
            overrides[name] = url
        elif sep and name and "/" not in name and ":" not in name:
            known = ", ".join(sorted(benchmark.databases))
            raise UsageError(f"--db-url {value}: benchmark '{benchmark.name}' has no database '{name}' (has {known})")
        else:
            overrides["*"] = value
    return overrides
