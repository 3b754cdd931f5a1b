"""JudgeCheckSettings: what `biarena judge check` and `biarena.judge_check(...)` ask of a judge check."""

from pathlib import Path
from typing import Any

from pydantic import Field

from biarena.settings import Settings


class JudgeCheckSettings(Settings):
    """A judge check: `pairs` good-vs-degraded answer pairs judged by `judge`."""

    judge: str
    """The judge (a scorer that judges, or `pairwise`)."""
    judge_model: str | None = None
    judge_model_options: dict[str, Any] | list[str] = Field(default_factory=list)
    """The judge's model's options, as values or `NAME=VALUE` texts (`--judge-M`)."""
    models_file: Path | None = None
    benchmark: str = "corgi-synth"
    """Benchmark with simulator-known truths (corgi-synth or a suite directory)."""
    pairs: int = Field(default=20, ge=1, json_schema_extra={"flag": "--pairs"})
    seed: int = 0
    out: Path | None = None
    """Write the figures and every pair as JSON here."""
    score_name: str | None = None
    """The score compared (default: the judge's first score the answer gets)."""
    rubric: Path | None = None
    judge_temperature: float = Field(default=0.0, ge=0.0, le=2.0, json_schema_extra={"flag": "--judge-temperature"})
    options: dict[str, Any] | list[str] = Field(default_factory=list)
    """The judge's own options, as values or `NAME=VALUE` texts (`-O`)."""
    options_file: Path | None = None
    no_cache: bool = False
