"""Requests and completions exchanged with model providers."""

import json
from dataclasses import asdict, dataclass, field
from typing import Any

Message = dict[str, str]
"""A chat message: {"role": "system" | "user" | "assistant", "content": "..."}."""

ToolMessage = dict[str, Any]
"""A chat message of a tool loop, as OpenAI's API writes it: an assistant's `tool_calls` (content may be None), or a
`tool` message with its `tool_call_id`."""


@dataclass(frozen=True)
class ToolCall:
    """A function the model asks its caller to run (an OpenAI tool call)."""

    id: str
    """The call's id, which the tool's result names (`tool_call_id`)."""
    name: str
    """The function's name, one of the request's tools."""
    arguments: str = "{}"
    """The arguments as the text of a JSON object, as OpenAI's API carries them."""

    def wire(self) -> dict[str, Any]:
        """The call as OpenAI's API writes it in a message."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True)
class TokenLogprob:
    """One token of a reply with its log-probability and the likeliest tokens in its place (an entry of OpenAI's
    `logprobs.content`)."""

    token: str
    """The token's text."""
    logprob: float | None
    """Its natural log-probability (None when the provider does not know which token it was)."""
    top: tuple[tuple[str, float], ...] = ()
    """The likeliest tokens in its place, each (text, log-probability), likeliest first."""


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion request from an agent or judge; the provider adds what the model's options set, and the
    cache key is made of what it sends."""

    messages: tuple[tuple[str, ...], ...]
    """Each message as (role, content), or (role, content, the JSON of its other fields) in a tool loop (an
    assistant's `tool_calls`, a tool result's `tool_call_id`)."""
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
    tools: str | None = None
    """The functions the model may call (OpenAI's `tools`, serialized), when a tool loop asks."""
    tool_choice: str | None = None
    """Whether the model must call one (OpenAI's `tool_choice`, serialized: "auto", "none", "required" or one
    function); None: auto when there are tools."""
    logprobs: int | None = None
    """The likeliest tokens to report in each place of the reply, with their log-probabilities (OpenAI's
    `top_logprobs`); None asks for none."""

    @classmethod
    def make(
        cls,
        messages: list[Message] | list[ToolMessage],
        *,
        temperature: float = 0.0,
        max_tokens: int = 512,
        schema: dict[str, Any] | None = None,
        seed: int | None = 0,
        stop: tuple[str, ...] = (),
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        logprobs: int | None = None,
    ) -> "ChatRequest":
        """Build a request from plain messages (or a tool loop's), an optional schema dict, the tools the model may
        call, and how many likeliest tokens to report in each place of the reply."""
        return cls(
            messages=tuple(_message_tuple(m) for m in messages),
            temperature=temperature,
            max_tokens=max_tokens,
            # Properties keep their order: a grammar-constrained model writes them in that order, so a schema that
            # puts a reason before its verdict gets the reasoning first.
            schema=json.dumps(schema) if schema is not None else None,
            seed=seed,
            stop=stop,
            tools=json.dumps(tools, ensure_ascii=False) if tools else None,
            tool_choice=json.dumps(tool_choice) if tool_choice is not None and tools else None,
            logprobs=logprobs,
        )

    def fields(self) -> dict[str, Any]:
        """The request as plain data, without the structured-output level (what a provider with no wire format of
        its own, the mock, is asked)."""
        fields = asdict(self)
        fields.pop("structured")
        for name in ("tools", "tool_choice", "logprobs"):  # a request without them keeps its fields and cache key
            if fields[name] is None:
                fields.pop(name)
        return fields

    def message_dicts(self) -> list[ToolMessage]:
        """The messages as provider SDKs take them."""
        return [
            {"role": role, "content": content, **(json.loads(rest[0]) if rest else {})}
            for role, content, *rest in self.messages
        ]

    def tool_list(self) -> list[dict[str, Any]]:
        """The tools the model may call (none when the request has none)."""
        return json.loads(self.tools) if self.tools else []

    def tool_choice_value(self) -> str | dict[str, Any]:
        """OpenAI's `tool_choice`: "auto", "none", "required" or {"type": "function", "function": {"name": ...}}."""
        return json.loads(self.tool_choice) if self.tool_choice else "auto"

    def required_tool(self) -> str | None:
        """The function the reply must call ("" when it must call one of the tools, None when it need not)."""
        choice = self.tool_choice_value()
        if choice == "required":
            return ""
        if isinstance(choice, dict):
            return str((choice.get("function") or {}).get("name") or "")
        return None

    def schema_dict(self) -> dict[str, Any] | None:
        """The JSON schema as a dict."""
        return json.loads(self.schema) if self.schema else None


def _message_tuple(message: dict[str, Any]) -> tuple[str, ...]:
    """A message as a request holds it: its fields other than role and content (a tool loop's) as JSON."""
    rest = {key: value for key, value in message.items() if key not in ("role", "content") and value is not None}
    content = message.get("content") or ""
    if not rest:
        return (message["role"], content)
    return (message["role"], content, json.dumps(rest, sort_keys=True, ensure_ascii=False))


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
    tool_calls: tuple[ToolCall, ...] = ()
    """The functions the model asks to run, when the request offered tools (the finish reason is `tool_calls`)."""
    logprobs: tuple[TokenLogprob, ...] = ()
    """Each token of the reply with its log-probability and the likeliest tokens in its place, when the request asked
    for them and the endpoint gives them."""


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
