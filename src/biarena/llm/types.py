"""Requests and completions exchanged with model providers."""

import json
from dataclasses import asdict, dataclass, field
from typing import Any

Message = dict[str, str]
"""A chat message: {"role": "system" | "user" | "assistant", "content": "..."}."""


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion request from an agent or judge; the provider adds what the model's options set, and the
    cache key is made of what it sends."""

    messages: tuple[tuple[str, str], ...]
    temperature: float = 0.0
    max_tokens: int = 512
    schema: str | None = None
    """JSON schema (serialized) the reply must follow, when structured output is asked for."""
    seed: int | None = 0
    stop: tuple[str, ...] = ()
    structured: str | None = None
    """How the provider asks for the schema (`json_schema`, `json_object` or `prompt`); not part of the cache key."""
    top_p: float | None = None
    """Nucleus sampling, when the model's options set it (None sends none)."""

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
            # Properties keep their order: a grammar-constrained model writes them in that order, so a schema that
            # puts a reason before its verdict gets the reasoning first.
            schema=json.dumps(schema) if schema is not None else None,
            seed=seed,
            stop=stop,
        )

    def fields(self) -> dict[str, Any]:
        """The request as plain data, without the structured-output level (what a provider with no wire format of
        its own, the mock, is asked)."""
        fields = asdict(self)
        fields.pop("structured")
        return fields

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
    finish_reason: str | None = None
    """Why generation stopped, as the provider says: `stop`, `length` (cut off at max_tokens), ..."""
    structured: str | None = None
    """The structured-output level the reply was asked for with, when a schema was given."""
    rejected: tuple[str, ...] = ()
    """Earlier replies to the same ask that the schema rejected (each was asked again with what was wrong)."""
    earlier: tuple["Completion", ...] = ()
    """The completions of those rejected replies, so their calls and tokens are counted too."""


class ModelError(Exception):
    """A model call failed for good (after retries); the message says why."""


class RetryableError(ModelError):
    """A failure worth retrying: rate limit, timeout, server error; `retry_after` is the wait the server asked for."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        """Seconds the server asked to wait before asking again (its Retry-After header), if it said."""


class UnreachableError(RetryableError):
    """The server did not answer: the connection failed or the reply did not come in time (`timed_out`)."""

    def __init__(self, message: str, *, timed_out: bool = False, again: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out
        self.again = again
        """Not asked: the server had not answered the calls before this one either."""


class InvalidRequestError(ModelError):
    """The server says the request itself is invalid: asking again the same way cannot help."""

    def __init__(self, message: str, *, about_response_format: bool = False) -> None:
        super().__init__(message)
        self.about_response_format = about_response_format
        """The server rejects the way structured output was asked for (another level may work)."""


class StructuredOutputError(ModelError):
    """The model's reply is not JSON that the schema accepts, even when asked again; `.raw` is the last reply."""

    def __init__(
        self,
        message: str,
        *,
        raw: str,
        problem: str,
        replies: tuple[str, ...] = (),
        completions: tuple[Completion, ...] = (),
    ) -> None:
        super().__init__(message)
        self.raw = raw
        self.problem = problem
        self.replies = replies or (raw,)
        """Every reply that was rejected, in order."""
        self.completions = completions
        """The completions of those replies, so their calls and tokens are counted."""
