"""streamed_completion: one chat completion read as an OpenAI-compatible server streams it (server-sent events), or
as a plain JSON body from a server that does not stream, into the same `Completion`."""

import json
import sys
from collections.abc import Iterator
from typing import Any

from biarena.llm.redact import redact_reply
from biarena.llm.types import Completion, RetryableError, TokenLogprob, UnreachableError
from biarena.llm.writing_notices import Tally


def http_errors() -> tuple[tuple[type[Exception], ...], tuple[type[Exception], ...]]:
    """The HTTP client's own request errors and, among them, its timeouts (httpx, and httpx2 under newer openai SDKs):
    what reading a streamed body may raise without the SDK wrapping it. Only a client already loaded (by the SDK)
    can raise them."""
    loaded = [sys.modules[name] for name in ("httpx", "httpx2") if name in sys.modules]
    return tuple(module.RequestError for module in loaded), tuple(module.TimeoutException for module in loaded)


def streamed_completion(stream: Any, tally: Tally) -> Completion:
    """The completion an SDK `Stream` carries: its pieces joined, the finish reason and usage its chunks give (usage
    comes in the last one when `include_usage` was asked); `tally` counts the pieces as they come, or takes the
    server's own count when its chunks carry usage. A server that answered with a plain JSON body instead is read as
    one; a stream that ends before a finish reason is a reply cut short (asked again)."""
    response = stream.response
    if "text/event-stream" not in response.headers.get("content-type", ""):
        return plain_completion(_read(response))
    parts: list[str] = []
    logprobs: list[TokenLogprob] = []
    finish: str | None = None
    usage: Any = None
    for chunk in _chunks(stream):
        chunk_usage = getattr(chunk, "usage", None)
        if chunk_usage is not None:
            usage = chunk_usage
        choice = next((c for c in chunk.choices or () if getattr(c, "index", 0) == 0), None)
        if choice is None:
            continue
        delta = choice.delta
        content = getattr(delta, "content", None) if delta is not None else None
        thinking = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None) if delta else None
        if content:
            parts.append(content)
        logprobs += read_logprobs(getattr(choice, "logprobs", None))
        if content or thinking:
            counted = getattr(chunk_usage, "completion_tokens", None) if chunk_usage is not None else None
            tally.add(exact=counted if isinstance(counted, int) and counted > 0 else None)
        if choice.finish_reason:
            finish = choice.finish_reason
    if finish is None:  # the connection closed before the server said why it stopped: the reply was cut short
        raise RetryableError(f"the streamed reply was cut short after {tally.written} pieces (no finish reason)")
    return Completion(
        text="".join(parts),
        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        finish_reason=finish,
        logprobs=tuple(logprobs),
    )


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def read_logprobs(logprobs: Any) -> tuple[TokenLogprob, ...]:
    """The tokens of a choice's `logprobs` (its `content` list, as the SDK's objects or as JSON), () when it has
    none."""
    content = _field(logprobs, "content") if logprobs is not None else None
    read: list[TokenLogprob] = []
    for entry in content if isinstance(content, list) else ():
        token, logprob = _field(entry, "token"), _field(entry, "logprob")
        if not isinstance(token, str):
            continue
        top = tuple(
            (str(_field(alt, "token")), float(_field(alt, "logprob")))
            for alt in _field(entry, "top_logprobs") or ()
            if isinstance(_field(alt, "token"), str) and isinstance(_field(alt, "logprob"), int | float)
        )
        read.append(TokenLogprob(token, float(logprob) if isinstance(logprob, int | float) else None, top))
    return tuple(read)


def plain_completion(data: Any) -> Completion:
    """The completion a chat completion's JSON body holds (as the SDK reads a reply that was not streamed)."""
    if not isinstance(data, dict):
        raise RetryableError(f"the reply is not a chat completion: {_clip(json.dumps(data))}")
    choices = data.get("choices") or []
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    message = choice.get("message") or {}
    usage = data.get("usage") or {}
    return Completion(
        text=message.get("content") or "",
        prompt_tokens=usage.get("prompt_tokens") or 0,
        completion_tokens=usage.get("completion_tokens") or 0,
        finish_reason=choice.get("finish_reason"),
        logprobs=read_logprobs(choice.get("logprobs")),
    )


def _read(response: Any) -> Any:
    """A whole reply's JSON body; a retryable error when it is cut short or not JSON."""
    errors, timeouts = http_errors()
    try:
        response.read()
        return json.loads(response.text)
    except timeouts as error:
        raise UnreachableError(f"{type(error).__name__}: the reply stopped coming", timed_out=True) from None
    except errors as error:
        raise RetryableError(f"the reply was cut short: {type(error).__name__}: {_clip(str(error))}") from None
    except ValueError as error:
        raise RetryableError(f"the reply is not a chat completion: {_clip(' '.join(str(error).split()))}") from None
    finally:
        response.close()


def _chunks(stream: Any) -> Iterator[Any]:
    """The stream's chunks; the HTTP client's errors while reading become the provider's (the SDK's own are left to
    its caller)."""
    errors, timeouts = http_errors()
    pieces = iter(stream)
    try:
        while True:
            try:
                chunk = next(pieces)
            except StopIteration:
                return
            except timeouts as error:
                raise UnreachableError(f"{type(error).__name__}: the reply stopped coming", timed_out=True) from None
            except errors as error:
                raise RetryableError(f"the reply was cut short: {type(error).__name__}: {_clip(str(error))}") from None
            except ValueError as error:  # a chunk that is not JSON
                said = _clip(" ".join(str(error).split()))
                raise RetryableError(f"the streamed reply is not a chat completion: {said}") from None
            yield chunk
    finally:
        stream.close()


def _clip(text: str, limit: int = 200) -> str:
    """`text` (a server's words) redacted, then cut to `limit` characters."""
    text = redact_reply(text, error=True)
    return text if len(text) <= limit else text[:limit] + " ..."
