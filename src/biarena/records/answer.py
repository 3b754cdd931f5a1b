"""The Answer record: what a system said about one question, with full provenance."""

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class SystemSpec(BaseModel):
    """Which system produced an answer."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    """Agent or system name (`gold`, `predictions`, `text2sql`, ...)."""
    model: str | None = None
    """Model string, when the system uses one."""
    prompt_hash: str | None = None
    """Hash of the prompt templates used, when any."""
    options: dict[str, Any] = Field(default_factory=dict)
    """System options that change its answers."""


class Usage(BaseModel):
    """Model usage of one answer or one judgement."""

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    """Model calls made (replies from the cache not included)."""
    cache_hits: int = 0
    """Calls answered from the cache."""
    prompt_tokens: int = 0
    """Prompt tokens billed."""
    completion_tokens: int = 0
    """Completion tokens billed."""
    cost: float | None = None
    """Cost in the price table's currency, when a price table is set."""


class Step(BaseModel):
    """One SQL statement a system ran, with what came back. Steps align with CORGI's (S, R)."""

    model_config = ConfigDict(extra="forbid")

    sql: str
    """The statement as the system wrote it."""
    columns: list[str] = Field(default_factory=list)
    """Result column names."""
    preview: list[list[Any]] = Field(default_factory=list)
    """The first rows of the result."""
    row_count: int | None = None
    """Rows fetched (capped; see `truncated`)."""
    truncated: bool = False
    """True when the row cap cut the result."""
    error: str | None = None
    """Why the statement failed, when it did."""
    error_kind: Literal["rejected", "timeout", "error"] | None = None
    """Which kind of failure: refused by the sandbox, over the time limit, or an engine error."""
    elapsed: float = 0.0
    """Seconds the statement took."""

    @property
    def ok(self) -> bool:
        """True when the statement ran without error."""
        return self.error is None


class Answer(BaseModel):
    """A system's answer to one question: plan, SQL steps, final SQL, prose, usage and status."""

    model_config = ConfigDict(extra="forbid")

    format_version: int = 1
    """Version of the answer record."""
    question_id: str
    """Id of the question answered."""
    system: SystemSpec
    """The system that answered."""
    plan: str | None = None
    """The plan, when the system made one."""
    steps: list[Step] = Field(default_factory=list)
    """Every SQL statement run, in order."""
    final_sql: str | None = None
    """The query the system offers as its answer, when it offers one."""
    text: str | None = None
    """The answer in prose."""
    usage: Usage = Field(default_factory=Usage)
    """Model usage."""
    status: Literal["ok", "error"] = "ok"
    """`error` when the system failed to produce an answer."""
    error: str | None = None
    """What went wrong, when status is `error`."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    """When the answer was recorded."""
