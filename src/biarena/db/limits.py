"""SandboxLimits: every bound on one statement (time, rows, bytes, memory, temp space), with laptop-safe defaults."""

import math
import re
from dataclasses import dataclass, fields, replace

from biarena.errors import UsageError

KB, MB, GB = 1000, 1000**2, 1000**3
KIB, MIB, GIB = 1024, 1024**2, 1024**3

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_ROWS = 100_000


@dataclass(frozen=True)
class SandboxLimits:
    """Bounds on each untrusted statement; `timeout` may be `math.inf` for none."""

    timeout: float = DEFAULT_TIMEOUT
    """Seconds for checking, rewriting, running and fetching one statement."""
    max_rows: int = DEFAULT_MAX_ROWS
    """Rows kept; more set `truncated`."""
    max_result_bytes: int = 64 * MIB
    """Bytes of values kept (each by what it holds: held_size, and 16 more each); more set `truncated`."""
    max_cell_bytes: int = 1 * MIB
    """Largest single value; a statement that makes a larger one fails."""
    max_sql_bytes: int = 100_000
    """Longest statement text accepted (parsing time grows with it)."""
    max_memory_bytes: int = 1 * GIB
    """The engine's memory (DuckDB's memory limit, SQLite's heap limit); its engine process is stopped past this plus
    a margin, so a statement adds at most this plus 512 MiB to biarena's processes."""
    max_temp_bytes: int = 2 * GIB
    """Temporary files a statement may spill (DuckDB's temp directory, SQLite's sorter and temp tables)."""

    def with_options(self, options: dict[str, str]) -> "SandboxLimits":
        """These limits with some replaced from `NAME=VALUE` option text (see OPTION_NAMES)."""
        changes: dict[str, float | int] = {}
        for name, text in options.items():
            key = OPTION_NAMES.get(name.strip().lower().replace("_", "-"))
            if key is None:
                known = ", ".join(OPTION_NAMES)
                raise UsageError(f"unknown sandbox limit '{name}' (known: {known})")
            changes[key] = parse_seconds(text) if key == "timeout" else parse_size(text, name)
        return replace(self, **changes)  # type: ignore[arg-type]

    def describe(self) -> dict[str, str]:
        """The limits as `--sandbox` option names and values that option accepts (`64MiB`, `100000`)."""
        out = {}
        for option, key in OPTION_NAMES.items():
            value = getattr(self, key)
            out[option] = f"{value:g}" if key == "timeout" else format_size(value, count=key == "max_rows", unit_sep="")
        return out


OPTION_NAMES: dict[str, str] = {
    "timeout": "timeout",
    "rows": "max_rows",
    "result-bytes": "max_result_bytes",
    "cell-bytes": "max_cell_bytes",
    "sql-bytes": "max_sql_bytes",
    "memory": "max_memory_bytes",
    "temp": "max_temp_bytes",
}
"""`--sandbox NAME=VALUE` names and the SandboxLimits field each sets."""

_UNITS = {"": 1, "b": 1, "k": KB, "kb": KB, "m": MB, "mb": MB, "g": GB, "gb": GB, "kib": KIB, "mib": MIB, "gib": GIB}
_SIZE = re.compile(r"^\s*([0-9][0-9_,]*(?:\.[0-9]+)?)\s*([a-z]*)\s*$", re.I)


def parse_size(text: str, name: str = "size") -> int:
    """Parse `64MB`, `1GiB`, `100000` or `100_000` into a count (KB/MB/GB are powers of 1000, KiB/MiB/GiB of 1024)."""
    match = _SIZE.match(str(text))
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _UNITS:
        raise UsageError(f"{name}: '{text}' is not a size (e.g. 100000, 64MB, 1GiB)")
    value = float(match.group(1).replace("_", "").replace(",", "")) * _UNITS[unit]
    if value < 1:
        raise UsageError(f"{name}: '{text}' must be at least 1")
    return int(value)


def parse_seconds(text: str) -> float:
    """Parse a time limit in seconds; `inf` or `none` means no limit."""
    if str(text).strip().lower() in ("inf", "none", "off"):
        return math.inf
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"timeout: '{text}' is not a number of seconds") from None
    if not value > 0:
        raise UsageError(f"timeout: '{text}' must be more than 0 (or 'inf')")
    return value


def format_size(value: int, *, count: bool = False, unit_sep: str = " ") -> str:
    """A size for people: 67108864 -> '64 MiB', 1000 -> '1,000 bytes' (digits alone for a count or no separator)."""
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if not count and value >= size and value % size == 0:
            return f"{value // size}{unit_sep}{unit}"
    if count or not unit_sep:
        return str(value)
    return f"{value:,} bytes"


LIMIT_FIELDS = tuple(f.name for f in fields(SandboxLimits))
"""Every SandboxLimits field name."""


class Limited:
    """What runs statements within `limits` (a database, a pool of them), with its timeout and row cap at hand."""

    limits: SandboxLimits

    @property
    def timeout(self) -> float:
        """Seconds allowed per statement."""
        return self.limits.timeout

    @property
    def max_rows(self) -> int:
        """Rows kept per statement."""
        return self.limits.max_rows
