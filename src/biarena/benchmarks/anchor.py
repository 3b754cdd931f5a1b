"""The clock anchor an importer gives a benchmark: a moment the user names, or `auto` (read from the data)."""

from datetime import datetime
from pathlib import Path
from typing import Literal

from biarena.benchmarks.latest_time import latest_timestamp
from biarena.benchmarks.shown import shown
from biarena.errors import UsageError
from biarena.records import Benchmark

Now = datetime | Literal["auto"] | None
"""A clock anchor as the user gives it: a moment, `auto`, or none."""


def parse_now(value: str | None) -> Now:
    """`--now` as given: an ISO date or date-time, or `auto`; UsageError for anything else (2023-13-45)."""
    if value is None:
        return None
    text = value.strip()
    if text.lower() == "auto":
        return "auto"
    try:
        return datetime.fromisoformat(text).replace(tzinfo=None)
    except ValueError as error:
        raise UsageError(
            f"--now {shown(value)}: not a date or time ({shown(error)}); give YYYY-MM-DD, 'YYYY-MM-DD HH:MM:SS' or auto"
        ) from None


def anchor_benchmark(benchmark: Benchmark, now: Now | str) -> Benchmark:
    """Anchor `benchmark`'s clock at `now`; `auto` anchors each database at the latest timestamp it holds.

    With `auto` each database gets its own `now` and `now_from` (the column it came from); a database with
    no date or time keeps none. Database paths must be readable files or URLs at this point.
    """
    moment = parse_now(now) if isinstance(now, str) else now
    if moment is None:
        return benchmark
    if moment != "auto":
        benchmark.now = moment
        return benchmark
    if not benchmark.databases:
        raise UsageError("now=auto reads the latest timestamp in the databases, and this import has none")
    benchmark.now = None
    for name, ref in benchmark.databases.items():
        location = ref.url or str(Path(benchmark.database_location(name)))
        found = latest_timestamp(location)
        if found is not None:
            benchmark.databases[name] = ref.model_copy(update={"now": found.moment, "now_from": found.column})
    return benchmark


def unanchored(benchmark: Benchmark) -> list[str]:
    """Names of databases whose questions have no clock anchor at all."""
    if benchmark.now is not None:
        return []
    return [name for name, ref in benchmark.databases.items() if ref.now is None]
