"""The Question record."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Question(BaseModel):
    """One business question about one database, with whatever references the benchmark has."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    """Stable identifier, unique within its benchmark (e.g. `dataset_2/0007`)."""
    text: str = Field(min_length=1)
    """The question as a user asks it."""
    language: str = "en"
    """ISO 639-1 code of the question's language (`en`, `zh`, ...)."""
    database: str = Field(min_length=1)
    """Name of the benchmark database the question is about."""
    labels: list[str] = Field(default_factory=list)
    """Taxonomy labels such as `bis:time_period`, `corgi:type3`, `dbqa:conclusive`."""
    gold_sql: list[str] = Field(default_factory=list)
    """Accepted gold queries; any one of them counts as correct."""
    reference_answer: str | None = None
    """A reference answer in prose, when the benchmark has one."""
    tables: list[str] = Field(default_factory=list)
    """Tables the question needs, when known."""
    domain: str | None = None
    """Business domain or vertical."""
    complexity: str | None = None
    """Difficulty label as the source benchmark gives it."""
    now: datetime | None = None
    """Clock anchor for this question; falls back to the benchmark's."""
    group: str | None = None
    """Paraphrase group: questions that ask the same thing (other wording or language) share it."""
    evidence: dict[str, Any] | None = None
    """What supports the reference answer, when a simulator knows it: `kind` (planted, seasonal, trend, segment,
    rule, forecast, ...), `parameters` (the hidden generator parameters it rests on), `support_sql` (queries whose
    rows support it; each returns rows), and where they apply `cause` ({table, row}), `window` ([first, last] day),
    `expected`, `tolerance` (relative, or in share points when `tolerance_unit` is `points`) and `naive_sql` (the
    same period a year earlier) for a forecast."""

    def category(self, prefix: str) -> str | None:
        """Return the first label's value under `prefix` (`bis` -> `time_period`), or None."""
        head = prefix + ":"
        for label in self.labels:
            if label.startswith(head):
                return label[len(head) :]
        return None
