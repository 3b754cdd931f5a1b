"""Options several commands share, and the `-O NAME=VALUE` / `--options FILE.yaml` pair every command with an
agent, importer or built-in reads the same way."""

from pathlib import Path
from typing import Any, TypeVar

import typer

from biarena.db import SandboxLimits
from biarena.db.overrides import db_overrides, sandbox_limits
from biarena.options import Options

__all__ = [
    "ALLOW_SUPERUSER",
    "BENCHMARK",
    "BENCHMARK_NAME",
    "DATABASE",
    "DB_URL",
    "HOST",
    "LABELS",
    "LIMIT",
    "MAX_CALLS",
    "NO_CACHE",
    "OPTIONS_FILE",
    "SANDBOX",
    "TIMEOUT",
    "db_overrides",
    "flag",
    "gather_options",
    "option_pairs",
    "read_options_file",
    "sandbox_limits",
]

OptionsModel = TypeVar("OptionsModel", bound=Options)

DB_URL = typer.Option(
    None,
    "--db-url",
    help="Read the benchmark's databases from a server: URL for all, or NAME=URL for one (repeatable).",
)
TIMEOUT = typer.Option(
    30.0,
    "--timeout",
    help="Time limit per SQL statement (checking, running, fetching), in seconds; inf for none.",
    min=0.01,
)
SANDBOX = typer.Option(
    None,
    "--sandbox",
    metavar="NAME=VALUE",
    help="Change a sandbox limit (repeatable). Defaults: "
    + ", ".join(f"{name}={value}" for name, value in SandboxLimits().describe().items() if name != "timeout")
    + " (memory: an SQLite or DuckDB engine's; temp: spill files).",
)
ALLOW_SUPERUSER = typer.Option(
    False,
    "--allow-superuser",
    help="Run SQL on a PostgreSQL server even as a superuser or a role that reads the server's files.",
    metavar="",
)


def option_pairs(describe: str) -> Any:
    """The repeatable `-O NAME=VALUE` option; `describe` is the command that lists the names, types and defaults."""
    return typer.Option(
        None,
        "-O",
        metavar="NAME=VALUE",
        help=f"Set an option (repeatable; a list takes a,b,c); `{describe}` lists them with their defaults.",
    )


OPTIONS_FILE = typer.Option(
    None, "--options", metavar="FILE.yaml", help="Options from a YAML mapping of NAME: VALUE (-O wins over it)."
)


def flag(name: str, help: str) -> Any:
    """An on/off option that takes no value (shown without a type in --help)."""
    return typer.Option(False, name, help=help, metavar="")


NO_CACHE = flag("--no-cache", "Do not use cached model replies.")
MAX_CALLS = typer.Option(None, "--max-calls", min=1, help="Stop after N model calls (not cached).")
LIMIT = typer.Option(None, "--limit", min=1, help="Only the first N questions.")
BENCHMARK = typer.Argument(..., metavar="BENCH", help="Benchmark directory or built-in name.")
"""A command's benchmark: a directory or a built-in name (`biarena run BENCH`)."""
DATABASE = typer.Argument(..., metavar="DB", help="SQLite or DuckDB file, or a server URL (postgresql://...).")
"""A command's database: a file or a server's URL (`biarena generate templates DB`)."""
BENCHMARK_NAME = typer.Option(None, "--name", help="Benchmark name (default: the output directory's name).")
HOST = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0 puts it on the network).")

LABELS = typer.Option(
    None,
    "--label",
    metavar="NAME",
    help="Name the runs in the output, in the order given (repeatable); default: the label the run was given, else "
    "agent · model.",
)


def read_options_file(path: Path) -> dict[str, Any]:
    """An options file's mapping (`biarena.benchmarks.options_file`, loaded only when a file is read)."""
    from biarena.benchmarks.options_file import read_options_file as read

    return read(path)


def gather_options(
    model: type[OptionsModel], owner: str, pairs: list[str] | None = None, file: Path | None = None, flag: str = "-O"
) -> OptionsModel:
    """Options from an options file and `-O NAME=VALUE` pairs, validated (`biarena.benchmarks.options_file`)."""
    from biarena.benchmarks.options_file import gather_options as gather

    return gather(model, owner, pairs, file, flag)
