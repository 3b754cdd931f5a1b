"""db_overrides and sandbox_limits: the `--db-url` and `--sandbox` values a run or a scoring pass is given, made
into the URL map and the limits a DatabasePool takes."""

from biarena.db.limits import OPTION_NAMES, SandboxLimits
from biarena.errors import UsageError
from biarena.records import Benchmark


def sandbox_limits(values: list[str] | None, timeout: float) -> SandboxLimits:
    """The sandbox limits from a statement `timeout` and `NAME=VALUE` changes (`--sandbox`)."""
    changes: dict[str, str] = {}
    for value in values or []:
        name, sep, setting = value.partition("=")
        if not sep or not setting.strip():
            raise UsageError(f"--sandbox {value}: give NAME=VALUE, NAME one of {', '.join(OPTION_NAMES)}")
        changes[name] = setting
    return SandboxLimits(timeout=timeout).with_options(changes)


def db_overrides(values: list[str] | None, benchmark: Benchmark) -> dict[str, str] | None:
    """`--db-url` values as a name -> URL map ('*' for a URL that applies to every database)."""
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
