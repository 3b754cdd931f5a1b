"""Model: the one path every LLM call takes (cache, retries, concurrency limit, JSON checking, usage)."""

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from biarena.llm.cache import ResponseCache, cache_key
from biarena.llm.structured import LEVELS, at_level, check_level, json_values, parse_reply, repair_request
from biarena.llm.types import (
    ChatRequest,
    Completion,
    InvalidRequestError,
    Message,
    ModelError,
    RetryableError,
    StructuredOutputError,
)
from biarena.records import Usage


class Provider(Protocol):
    """A backend that completes chats: local llama.cpp, an OpenAI-compatible server, or a script.

    A provider may name its `endpoint` (the server and model it talks to), under which the structured-output level
    the server accepts is remembered; without one, `name:model` is used.
    """

    name: str
    model: str

    def complete(self, request: ChatRequest) -> Completion:
        """Complete one request at `request.structured`; raise RetryableError for failures worth retrying and
        InvalidRequestError when the server says the request itself is invalid."""
        ...


_SEMAPHORES: dict[str, threading.BoundedSemaphore] = {}
_SEMAPHORES_LOCK = threading.Lock()


def _semaphore(provider: str, limit: int) -> threading.BoundedSemaphore:
    with _SEMAPHORES_LOCK:
        key = f"{provider}:{limit}"
        if key not in _SEMAPHORES:
            _SEMAPHORES[key] = threading.BoundedSemaphore(limit)
        return _SEMAPHORES[key]


@dataclass
class UsageMeter:
    """Running totals of one model's calls (thread-safe)."""

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, completion: Completion, cost: float) -> None:
        """Count one call."""
        with self._lock:
            self.cache_hits += int(completion.cached)
            if not completion.cached:
                self.calls += 1
                self.prompt_tokens += completion.prompt_tokens
                self.completion_tokens += completion.completion_tokens
                self.cost += cost

    def snapshot(self) -> Usage:
        """The totals as a Usage record."""
        with self._lock:
            return Usage(
                calls=self.calls,
                cache_hits=self.cache_hits,
                prompt_tokens=self.prompt_tokens,
                completion_tokens=self.completion_tokens,
                cost=round(self.cost, 6) if self.cost else None,
            )


def extract_json(text: str) -> Any:
    """The first JSON object or array in a reply (bare, or inside a ```json block)."""
    values = json_values(text)
    if not values:
        raise ValueError("no JSON value in the reply")
    return values[0]


class Model:
    """A provider behind the shared call path. `chat` is the only way biarena talks to a model."""

    def __init__(
        self,
        provider: Provider,
        *,
        cache: ResponseCache | None = None,
        retries: int = 4,
        backoff: float = 1.0,
        concurrency: int = 4,
        prices: dict[str, float] | None = None,
        structured: str | None = None,
    ) -> None:
        self.provider = provider
        self.structured = check_level(structured)
        """The one structured-output level to use; None steps down from `json_schema` as the endpoint requires."""
        self.cache = cache
        self.retries = retries
        self.backoff = backoff
        self.concurrency = concurrency
        self.prices = prices or {}
        self.usage = UsageMeter()

    @property
    def spec(self) -> str:
        """The model string this model was made from."""
        return f"{self.provider.name}:{self.provider.model}"

    def cost(self, completion: Completion) -> float:
        """What a completion costs at this model's prices (per million tokens); 0 without prices."""
        prompt = self.prices.get("prompt", 0.0) * completion.prompt_tokens
        output = self.prices.get("completion", 0.0) * completion.completion_tokens
        return (prompt + output) / 1_000_000

    def _call(self, request: ChatRequest) -> Completion:
        retrying = Retrying(
            stop=stop_after_attempt(self.retries + 1),
            wait=wait_exponential(multiplier=self.backoff, max=30 * self.backoff),
            retry=retry_if_exception_type(RetryableError),
            reraise=True,
        )
        with _semaphore(self.provider.name, self.concurrency):
            for attempt in retrying:
                with attempt:
                    return self.provider.complete(request)
        raise ModelError("unreachable")  # pragma: no cover

    @property
    def endpoint(self) -> str:
        """The server and model that structured-output levels are remembered for."""
        return getattr(self.provider, "endpoint", None) or f"{self.provider.name}:{self.provider.model}"

    def complete(self, request: ChatRequest, *, use_cache: bool = True) -> Completion:
        """Complete a request through the cache, retries and the concurrency limit."""
        # The key leaves out the structured level: a reply is validated against the schema whichever level produced
        # it, so a re-run never asks again just because this process has not yet learnt what the server accepts.
        key = cache_key(self.provider.name, self.provider.model, request)
        completion = self.cache.get(key) if (self.cache and use_cache) else None
        if completion is None:
            completion = self._structured_call(request) if request.schema is not None else self._retrying(request)
            if self.cache is not None:
                self.cache.put(key, completion)
        self.usage.add(completion, self.cost(completion))
        return completion

    def _retrying(self, request: ChatRequest) -> Completion:
        try:
            return self._call(request)
        except RetryableError as error:
            raise ModelError(f"{self.spec}: gave up after {self.retries + 1} attempts: {error}") from None

    def _structured_call(self, request: ChatRequest) -> Completion:
        """Ask at the best level the endpoint accepts; step down when the server rejects the way JSON is asked for."""
        endpoint = self.endpoint
        levels = (self.structured,) if self.structured else LEVELS.levels(endpoint)
        for index, level in enumerate(levels):
            try:
                completion = self._retrying(at_level(request, level))
            except InvalidRequestError as error:
                if not error.about_response_format:
                    raise
                if index + 1 < len(levels):
                    continue
                forced = ", the level this model is set to" if self.structured else ""
                raise InvalidRequestError(
                    f"{self.spec}: the server rejects structured output as {level}{forced}: {error}",
                    about_response_format=True,
                ) from None
            if not self.structured:
                LEVELS.accepted(endpoint, level)
            completion.structured = level
            return completion
        raise ModelError("unreachable")  # pragma: no cover

    def chat(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        stop: tuple[str, ...] = (),
        json_attempts: int = 2,
        seed: int | None = 0,
    ) -> Completion:
        """Chat; with `schema`, the reply is parsed and validated, and asked again (with what was wrong) if invalid.

        A reply that is still invalid raises StructuredOutputError carrying the raw replies. `seed` tells samples at
        a temperature apart (and keeps each one reproducible and cached).
        """
        request = ChatRequest.make(
            messages, temperature=temperature, max_tokens=max_tokens, schema=schema, stop=stop, seed=seed
        )
        completion = self.complete(request)
        if schema is None:
            return completion
        replies: list[str] = []
        earlier: list[Completion] = []
        problem = ""
        for attempt in range(json_attempts):
            try:
                completion.parsed = parse_reply(completion.text, schema, cut_off=completion.finish_reason == "length")
                completion.rejected = tuple(replies)
                completion.earlier = tuple(earlier)
                return completion
            except ValueError as error:
                problem = str(error)
                replies.append(completion.text)
                if attempt + 1 < json_attempts:
                    earlier.append(completion)
                    request = repair_request(request, completion.text, problem)
                    completion = self.complete(request)
        preview = " ".join(completion.text.split())[:200]
        raise StructuredOutputError(
            f"{self.spec}: the reply is not valid JSON for the schema after {json_attempts} attempts "
            f"({problem}): {preview!r}",
            raw=completion.text,
            problem=problem,
            replies=tuple(replies),
            completions=(*earlier, completion),
        )
