"""RunSettings: what a run is asked to do, as `biarena run` and `biarena.run(...)` both give it."""

from pathlib import Path
from typing import Any

from pydantic import Field

from biarena.settings import Settings


def _flag(name: str, **limits: Any) -> Any:
    """A field's extra schema naming the command-line flag that sets it (for errors), with its `limits` (ge=1)."""
    return Field(json_schema_extra={"flag": name}, **limits)


class RunSettings(Settings):
    """A run: a system over a benchmark into a run file, resumed or grown when it exists."""

    benchmark: str
    """Benchmark directory or built-in name."""
    agent: str
    """The system to run (`biarena describe agent` lists them)."""
    out: Path
    """Run file to write (resumed when it holds this run)."""
    model: str | None = None
    """A model string (`local`, `openai:MODEL@URL`, `mock`) or a model named in `models_file`."""
    model_options: dict[str, Any] | list[str] = Field(default_factory=dict)
    """The model's options, as values or as `NAME=VALUE` texts (`-M`)."""
    models_file: Path | None = None
    """Named models (`--models`); default: models.yaml here, if any."""
    options: dict[str, Any] | list[str] = Field(default_factory=dict)
    """The agent's own options, as values or as `NAME=VALUE` texts (`-O`); they win over `options_file`'s."""
    options_file: Path | None = None
    """The agent's options from a YAML mapping (`--options`)."""
    limit: int | None = _flag("--limit", default=None, ge=1)
    per_category: int | None = _flag("--per-category", default=None, ge=1)
    concurrency: int = _flag("--concurrency", default=1, ge=1)
    repeats: int | None = _flag("--repeats", default=None, ge=1)
    max_calls: int | None = _flag("--max-calls", default=None, ge=1)
    no_cache: bool = False
    """The same as model option cache=false."""
    structured: str | None = None
    """The same as model option structured=LEVEL."""
    prices: Path | None = None
    """The same as model option prices=FILE."""
    label: str | None = None
    retry_errors: bool = False
    partial: bool = False
    accepted_only: bool = False
    force: bool = False
    db_url: list[str] | None = None
    timeout: float = _flag("--timeout", default=30.0, ge=0.01)
    sandbox: list[str] | None = None
    allow_superuser: bool = False
