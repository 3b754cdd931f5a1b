"""The Score record."""

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from biarena.records.answer import Usage


class Score(BaseModel):
    """One named score of one answer, by one scorer version."""

    model_config = ConfigDict(extra="forbid")

    format_version: int = 1
    """Version of the score record."""
    question_id: str
    """Id of the question whose answer was scored."""
    name: str
    """Score name (`execution_accuracy`, `result_f1`, ...)."""
    scorer: str
    """Scorer that produced it."""
    scorer_version: str
    """Scorer version: a change of method bumps it."""
    value: float | None
    """The score; None when it could not be computed (see `rationale`)."""
    sub_scores: dict[str, Any] = Field(default_factory=dict)
    """Parts of the score (counts, matched columns, judge dimensions)."""
    rationale: str | None = None
    """Why the score is what it is, in a sentence."""
    usage: Usage | None = None
    """Model usage of the judgement, for LLM judges."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    """When the score was recorded."""
