"""DemoSettings: what `biarena demo` and `biarena.demo(...)` ask of the demo (build, run, score, report)."""

from pathlib import Path
from typing import Any

from pydantic import Field

from biarena.settings import Settings


def _flag(name: str, **limits: Any) -> Any:
    """A field's extra schema naming the command-line flag that sets it (for errors), with its `limits` (ge=1)."""
    return Field(json_schema_extra={"flag": name}, **limits)


class DemoSettings(Settings):
    """The main job on small defaults: a benchmark's questions answered by agents, scored, and compared in a report."""

    out: Path = Path("biarena-demo")
    """Directory for the runs (`AGENT.run`), the report (`report.html`) and the phases' costs (`demo-phases.json`)."""
    benchmark: str = "bis-synth"
    """Benchmark directory or built-in name."""
    model: str = "local"
    """local (embedded), local:/path.gguf, openai:MODEL[@URL], mock, or a model named in `models_file`."""
    agents: list[str] = Field(default_factory=lambda: ["text2sql", "sequential"])
    """The agents to compare, in order."""
    per_category: int = _flag("--per-category", default=1, ge=1)
    """Questions per category (languages mixed)."""
    max_queries: int = _flag("--max-queries", default=2, ge=1)
    """Queries the sequential agent may write."""
    answer_words: int = _flag("--answer-words", default=50, ge=10)
    """Length of the sequential agent's answer (a concise answer, BIS style)."""
    model_options: dict[str, Any] | list[str] = Field(default_factory=list)
    """The model's options, as values or as `NAME=VALUE` texts (`-M`)."""
    models_file: Path | None = None
    """Named models (`--models`); default: models.yaml here, if any."""
