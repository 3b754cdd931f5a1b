"""Options several commands share, and the `-O NAME=VALUE` / `--options FILE.yaml` pair every command with an
agent, importer or built-in reads the same way."""

from pathlib import Path
from typing import Any, TypeVar

import typer

from biarena.db import SandboxLimits
from biarena.db.limits import OPTION_NAMES
from biarena.errors import FormatError, NotFoundError, UsageError
from biarena.options import Options, option_name, parse_option_pairs, validate_options
from biarena.records import Benchmark

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


def sandbox_limits(values: list[str] | None, timeout: float) -> SandboxLimits:
    """The sandbox limits from --timeout and the --sandbox NAME=VALUE options."""
    changes: dict[str, str] = {}
    for value in values or []:
        name, sep, setting = value.partition("=")
        if not sep or not setting.strip():
            raise UsageError(f"--sandbox {value}: give NAME=VALUE, NAME one of {', '.join(OPTION_NAMES)}")
        changes[name] = setting
    return SandboxLimits(timeout=timeout).with_options(changes)


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


LABELS = typer.Option(
    None,
    "--label",
    metavar="NAME",
    help="Name the runs in the output, in the order given (repeatable); default: the label the run was given, else "
    "agent · model.",
)


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


def read_options_file(path: Path) -> dict[str, Any]:
    """An options file: a YAML (or JSON) mapping of option names to values; dates stay text for the model to read."""
    if not path.is_file():
        raise NotFoundError(f"options file not found: {path}")
    from biarena.benchmarks.yaml_file import read_yaml  # the benchmarks package loads only when a file is read

    data = read_yaml(path, timestamps=False)
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(key, str) for key in data):
        raise FormatError(f"{path}: an options file is a mapping of option names to values")
    return {option_name(key): value for key, value in data.items()}


def gather_options(
    model: type[OptionsModel],
    owner: str,
    pairs: list[str] | None = None,
    file: Path | None = None,
    flag: str = "-O",
) -> OptionsModel:
    """Options from an options file and `-O NAME=VALUE` pairs (the pairs win), validated against `model`."""
    values = read_options_file(file) if file is not None else {}
    values.update(parse_option_pairs(model, pairs or [], flag))
    return validate_options(model, values, owner, flag)
