"""The Question record."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class GoldResult(BaseModel):
    """One accepted result of a question, as a table: column names and rows of JSON values."""

    model_config = ConfigDict(extra="forbid")

    columns: list[str]
    """Column names, in order."""
    rows: list[list[Any]] = Field(default_factory=list)
    """The rows, each as long as `columns`."""

    @model_validator(mode="after")
    def _rows_fit(self) -> "GoldResult":
        for index, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"row {index} has {len(row)} values for {len(self.columns)} columns")
        return self


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
    gold_results: list[GoldResult] = Field(default_factory=list)
    """Accepted gold results, when the benchmark gives results rather than queries (Spider 2.0's CSVs); scored in
    place of `gold_sql`, any one of them counts as correct."""
    reference_answer: str | None = None
    """A reference answer in prose, when the benchmark has one."""
    tables: list[str] = Field(default_factory=list)
    """Tables the question needs, when known."""
    domain: str | None = None
    """Business domain or vertical."""
    complexity: str | None = None
    """Difficulty label as the source benchmark gives it."""
    knowledge: str | None = None
    """Knowledge that goes with this question alone (BIRD's evidence, Spider 2.0's external-knowledge document),
    shown to systems beside the benchmark's knowledge."""
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

    @property
    def has_gold(self) -> bool:
        """True when the question has a gold query or a gold result to compare with."""
        return bool(self.gold_sql or self.gold_results)

    def category(self, prefix: str) -> str | None:
        """Return the first label's value under `prefix` (`bis` -> `time_period`), or None."""
        head = prefix + ":"
        for label in self.labels:
            if label.startswith(head):
                return label[len(head) :]
        return None
