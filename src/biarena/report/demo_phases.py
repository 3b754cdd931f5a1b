"""Phase: what one phase of the demo cost (wall time, peak memory, model calls and tokens), and its file."""

import json
import resource
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

PHASES_FILE = "demo-phases.json"
"""Per-phase wall time, peak memory and model tokens of the last demo, beside its report."""


@dataclass
class Phase:
    """What one phase of the demo cost."""

    name: str
    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    """Peak resident memory of the process so far, in MB."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0


def _peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


@contextmanager
def timed(phases: list[Phase], name: str) -> Iterator[Phase]:
    """Measure the block as phase `name` and add it to `phases` when the block ends (also when it fails)."""
    phase = Phase(name)
    start = time.perf_counter()
    try:
        yield phase
    finally:
        phase.seconds = round(time.perf_counter() - start, 2)
        phase.peak_rss_mb = round(_peak_rss_mb(), 1)
        phases.append(phase)


def write_phases(phases: list[Phase], folder: Path) -> Path:
    """Write the phases as JSON to `PHASES_FILE` in `folder`; return its path."""
    path = folder / PHASES_FILE
    path.write_text(json.dumps([asdict(p) for p in phases], indent=2) + "\n", encoding="utf-8")
    return path
