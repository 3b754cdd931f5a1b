"""The Answer record: what a system said about one question, with full provenance."""

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from biarena.records.tool_call import ToolCall


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
    purpose: str | None = None
    """What the system meant this statement to find: CORGI's "Query N: description", the iterative agent's
    thought, BI-Bench's sub-question."""
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
    short_answer: str | None = None
    """What the system read from this result, when it answered the step's question on its own (BI-Bench)."""

    @property
    def ok(self) -> bool:
        """True when the statement ran without error."""
        return self.error is None


class Answer(BaseModel):
    """A system's answer to one question: plan, SQL steps, final SQL, prose, usage and status."""

    model_config = ConfigDict(extra="forbid")

    format_version: int = 2
    """Version of the answer record (2 added step purposes, the schema shown, notes and the failed stage;
    version 1 records load unchanged)."""
    question_id: str
    """Id of the question answered."""
    system: SystemSpec
    """The system that answered."""
    plan: str | None = None
    """The plan, when the system made one."""
    steps: list[Step] = Field(default_factory=list)
    """Every SQL statement run, in order."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """Every call a system made to the database tools (list, describe, query, submit), in order; each query's
    statement is also one of `steps`."""
    final_sql: str | None = None
    """The query the system offers as its answer, when it offers one."""
    text: str | None = None
    """The answer in prose."""
    schema_hash: str | None = None
    """Short hash of the database text the system was shown (the schema description, or the records a
    no-interaction agent reads), so answers given from different views of a database can be told apart."""
    schema_chars: int | None = None
    """Length in characters of that text."""
    notes: list[str] = Field(default_factory=list)
    """What a reviewer should know about how the answer was made: records cut to fit, queries over the
    limit dropped, the step limit reached."""
    usage: Usage = Field(default_factory=Usage)
    """Model usage."""
    status: Literal["ok", "error"] = "ok"
    """`error` only when the system produced neither an answer text nor a final SQL."""
    error: str | None = None
    """What went wrong: why there is no answer, or which stage failed in an answer that kept what it had."""
    error_stage: str | None = None
    """Where the system failed (`plan and queries`, `query 2`, `synthesis`, `step 3`, ...), when it did."""
    sanitized: list[str] = Field(default_factory=list)
    """What biarena changed in the system's output to store it (replaced characters, queries over the cap)."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    """When the answer was recorded."""
