"""SuiteSettings: what `biarena suite corgi -o DIR` and `biarena.suite(...)` ask of the CORGI suite's build."""

from pathlib import Path

from pydantic import Field

from biarena.settings import Settings


class SuiteSettings(Settings):
    """The CORGI suite (simulated verticals, four question types) written as a benchmark directory."""

    out: Path
    """Benchmark directory to write (absent or empty)."""
    verticals: list[str] | None = None
    """Verticals to include, by name or alias (default: all)."""
    scale: float = Field(1.0, ge=0.01, json_schema_extra={"flag": "--scale"})
    """Database size: row counts times this."""
    seed: int = 0
    """The same seed and scale give the same databases and questions."""
    audit: bool = False
    """Also work out the suite's quality figures: forms, leaks, naive forecasts, answerability."""
