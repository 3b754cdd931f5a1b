"""ScoreSettings: what a scoring pass is asked to do, as `biarena score` and `biarena.score(...)` both give it."""

from pathlib import Path
from typing import Any

from pydantic import Field

from biarena.settings import Settings


def _flag(name: str, **limits: Any) -> Any:
    """A field naming the command-line flag that sets it (for errors), with its `limits` (ge=1) and default."""
    return Field(json_schema_extra={"flag": name}, **limits)


class ScoreSettings(Settings):
    """A scoring pass over a run file: the deterministic metrics unless scorers are named, plus judges."""

    run: Path
    """The run file."""
    scorers: list[str] | None = None
    """Scorers to apply instead of the deterministic metrics (`--scorer`)."""
    metrics: str | None = None
    """Comma-separated scorers (the same as `scorers`)."""
    options: dict[str, dict[str, Any]] | list[str] = Field(default_factory=list)
    """Scorers' options: {SCORER: {NAME: VALUE}}, or `SCORER.NAME=VALUE` texts (`-O`)."""
    options_file: Path | None = None
    contract: list[str] | None = None
    suite: int | None = _flag("--suite", default=None, ge=1, le=100)
    rescore: bool = False
    benchmark: str | None = None
    """Benchmark to use instead of the run's own (its databases are then not checked)."""
    decimals: int = _flag("--decimals", default=6, ge=0, le=15)
    db_url: list[str] | None = None
    timeout: float = _flag("--timeout", default=30.0, ge=0.01)
    sandbox: list[str] | None = None
    allow_superuser: bool = False
    score_budget: float | None = _flag("--score-budget", default=None, ge=0.01)
    """Seconds of comparison work per answer besides running its SQL (None: the budget's default)."""
    judges: list[str] | None = None
    judge_model: str | None = None
    judge_model_options: dict[str, Any] | list[str] = Field(default_factory=list)
    """The judges' model's options, as values or `NAME=VALUE` texts (`--judge-M`)."""
    models_file: Path | None = None
    rubric: list[Path] | None = None
    concurrency: int = _flag("--concurrency", default=1, ge=1)
    max_calls: int | None = _flag("--max-calls", default=None, ge=1)
    judge_temperature: float = _flag("--judge-temperature", default=0.0, ge=0.0, le=2.0)
