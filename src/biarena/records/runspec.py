"""The RunSpec record: what a run is, stored at the head of its run file."""

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RunSpec(BaseModel):
    """The benchmark and system of a run; a resumed run must match it."""

    model_config = ConfigDict(extra="forbid")

    format_version: int = 1
    """Version of the run format."""
    benchmark: str
    """Benchmark as given: a built-in name or a directory path."""
    benchmark_name: str
    """The benchmark's own name."""
    system: str
    """System or agent name."""
    model: str | None = None
    """Model string, when the system uses one."""
    options: dict[str, Any] = Field(default_factory=dict)
    """System and runner options that change answers (predictions file, limits, db url)."""
    question_ids: list[str] = Field(default_factory=list)
    """The questions this run covers, in order."""
    biarena_version: str = ""
    """biarena version that created the run."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    """When the run was created."""

    def same_work(self, other: "RunSpec") -> bool:
        """True when `other` asks for the same answers (so this run may be resumed for it)."""
        return (
            self.benchmark_name == other.benchmark_name
            and self.system == other.system
            and self.model == other.model
            and self.options == other.options
            and self.question_ids == other.question_ids
        )
