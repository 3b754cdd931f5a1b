"""The TraceEntry record: one model call a scorer made, as a run stores it."""

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class TraceEntry(BaseModel):
    """One model call a scorer made: what it asked, what came back, and what was read from it."""

    model_config = ConfigDict(extra="forbid")

    role: str
    """Which part of the scorer asked (`discriminator`, `Data Sense`, `reviewer 2 / planning`, ...)."""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    """The request's messages ({"role": ..., "content": ...})."""
    reply: str = ""
    """The raw reply text (the last one, when the reply was asked again)."""
    parsed: Any = None
    """The validated JSON read from the reply; None when it failed."""
    rejected: list[str] = Field(default_factory=list)
    """Earlier replies the schema rejected."""
    error: str | None = None
    """Why the call failed, when it did."""
    prompt_tokens: int = 0
    """Prompt tokens of the call (and of the replies asked again)."""
    completion_tokens: int = 0
    """Completion tokens of the call (and of the replies asked again)."""
    cached: bool = False
    """True when the reply came from the response cache."""
