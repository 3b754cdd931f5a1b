"""The ScoreRecord record: what one scorer concluded about one answer, as a run stores it."""

from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from biarena.records.score import Score
from biarena.records.trace import TraceEntry


class ScoreRecord(BaseModel):
    """One scorer's scores of one answer with the model calls behind them, or the note that it does not apply."""

    model_config = ConfigDict(extra="forbid")

    question_id: str
    """Id of the question whose answer was scored."""
    scorer: str
    """Registry name of the scorer."""
    scorer_version: str
    """The scorer's version: a change of method bumps it."""
    rubric_hash: str | None = None
    """Hash of the rubric the scorer read, when it reads one."""
    model: str | None = None
    """The scorer's model, when it calls one."""
    applies: bool = True
    """False when the scorer does not score answers to this question (then it has no scores)."""
    failed: str | None = None
    """Why the scoring failed (a reply that stayed invalid, a model error, a scorer that broke)."""
    scores: list[Score] = Field(default_factory=list)
    """One Score per named score."""
    trace: list[TraceEntry] = Field(default_factory=list)
    """Every model call made, in order."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    """When the record was made."""

    @property
    def status(self) -> str:
        """`scored`, `failed` or `not_applicable`."""
        if not self.applies:
            return "not_applicable"
        return "failed" if self.failed is not None else "scored"

    def key(self) -> tuple[str, str, str, str, str]:
        """(question id, scorer, version, rubric hash, model): what makes a stored record done for a scorer setup."""
        return (self.question_id, self.scorer, self.scorer_version, self.rubric_hash or "", self.model or "")
