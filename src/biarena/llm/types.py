"""Requests and completions exchanged with model providers."""

import json
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, str]
"""A chat message: {"role": "system" | "user" | "assistant", "content": "..."}."""


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion request; everything that changes the reply is in here (and in the cache key)."""

    messages: tuple[tuple[str, str], ...]
    temperature: float = 0.0
    max_tokens: int = 512
    schema: str | None = None
    """JSON schema (serialized) the reply must follow, when structured output is asked for."""
    seed: int | None = 0
    stop: tuple[str, ...] = ()

    @classmethod
    def make(
        cls,
        messages: list[Message],
        *,
        temperature: float = 0.0,
        max_tokens: int = 512,
        schema: dict[str, Any] | None = None,
        seed: int | None = 0,
        stop: tuple[str, ...] = (),
    ) -> "ChatRequest":
        """Build a request from plain messages and an optional schema dict."""
        return cls(
            messages=tuple((m["role"], m["content"]) for m in messages),
            temperature=temperature,
            max_tokens=max_tokens,
            schema=json.dumps(schema, sort_keys=True) if schema is not None else None,
            seed=seed,
            stop=stop,
        )

    def message_dicts(self) -> list[Message]:
        """The messages as provider SDKs take them."""
        return [{"role": role, "content": content} for role, content in self.messages]

    def schema_dict(self) -> dict[str, Any] | None:
        """The JSON schema as a dict."""
        return json.loads(self.schema) if self.schema else None


@dataclass
class Completion:
    """A provider's reply, with token counts; `parsed` holds the validated JSON of a structured reply."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    parsed: Any = None
    raw: dict[str, Any] = field(default_factory=dict)


class ModelError(Exception):
    """A model call failed for good (after retries); the message says why."""


class RetryableError(ModelError):
    """A failure worth retrying: rate limit, timeout, server error."""
