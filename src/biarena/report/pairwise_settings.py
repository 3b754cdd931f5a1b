"""PairwiseSettings: what `biarena judge pairwise` and `biarena.judge_pairwise(...)` ask of a pairwise judging."""

from pathlib import Path

from pydantic import Field

from biarena.settings import Settings


class PairwiseSettings(Settings):
    """Runs' answers compared two by two by a judge model, each pair in both orders, and ranked from the verdicts."""

    runs: list[Path]
    """Two or more run files answering the same questions."""
    judge_model: str | None = None
    """The judge's model: local (default), local:/path.gguf, openai:MODEL[@URL], mock."""
    out: Path | None = None
    """Write the verdicts here as votes (JSONL, the arena's export format)."""
    questions: int | None = Field(default=None, ge=1, json_schema_extra={"flag": "--questions"})
    """Compare on the first N shared questions only (None: all)."""
    seed: int = 0
    """The judge model's seed, and the bootstrap's."""
    judge_temperature: float = Field(default=0.0, ge=0.0, le=2.0, json_schema_extra={"flag": "--judge-temperature"})
    bootstrap: int = Field(default=500, ge=0, json_schema_extra={"flag": "--bootstrap"})
    """Bootstrap resamples behind the intervals."""
    arena: Path | None = None
    """An arena database: the judge's agreement with its human votes."""
    no_cache: bool = False
    """Do not use cached model replies."""
