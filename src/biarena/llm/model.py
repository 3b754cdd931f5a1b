"""Model: the one path every LLM call takes (cache, retries, concurrency limit, JSON checking, usage)."""

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import jsonschema
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from biarena.llm.cache import ResponseCache, cache_key
from biarena.llm.types import ChatRequest, Completion, Message, ModelError, RetryableError
from biarena.records import Usage


class Provider(Protocol):
    """A backend that completes chats: local llama.cpp, an OpenAI-compatible server, or a script."""

    name: str
    model: str

    def complete(self, request: ChatRequest) -> Completion:
        """Complete one request; raise RetryableError for failures worth retrying."""
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
    """The first JSON value in a reply (bare, or inside a ```json block)."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    candidates = [fenced.group(1)] if fenced else []
    candidates.append(text)
    for candidate in candidates:
        candidate = candidate.strip()
        for start in range(len(candidate)):
            if candidate[start] in "{[":
                try:
                    value, _ = json.JSONDecoder().raw_decode(candidate[start:])
                    return value
                except json.JSONDecodeError:
                    continue
    raise ValueError("no JSON value in the reply")


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
    ) -> None:
        self.provider = provider
        self.cache = cache
        self.retries = retries
        self.backoff = backoff
        self.concurrency = concurrency
        self.prices = prices or {}
        self.usage = UsageMeter()
        self._call_budget: Callable[[], bool] | None = None

    @property
    def spec(self) -> str:
        """The model string this model was made from."""
        return f"{self.provider.name}:{self.provider.model}"

    def _cost(self, completion: Completion) -> float:
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

    def complete(self, request: ChatRequest, *, use_cache: bool = True) -> Completion:
        """Complete a request through the cache, retries and the concurrency limit."""
        key = cache_key(self.provider.name, self.provider.model, request)
        completion = self.cache.get(key) if (self.cache and use_cache) else None
        if completion is None:
            try:
                completion = self._call(request)
            except RetryableError as error:
                raise ModelError(f"{self.spec}: gave up after {self.retries + 1} attempts: {error}") from None
            if self.cache is not None:
                self.cache.put(key, completion)
        self.usage.add(completion, self._cost(completion))
        return completion

    def chat(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        stop: tuple[str, ...] = (),
        json_attempts: int = 2,
    ) -> Completion:
        """Chat; with `schema`, the reply is parsed and validated (asked again once if it is not valid)."""
        request = ChatRequest.make(messages, temperature=temperature, max_tokens=max_tokens, schema=schema, stop=stop)
        completion = self.complete(request)
        if schema is None:
            return completion
        problem = ""
        for attempt in range(json_attempts):
            try:
                value = extract_json(completion.text)
                jsonschema.validate(value, schema)
                completion.parsed = value
                return completion
            except (ValueError, jsonschema.ValidationError) as error:
                problem = str(error).splitlines()[0]
                if attempt + 1 < json_attempts:
                    # the same request again would hit the cache: ask once more at a higher temperature
                    retry = ChatRequest.make(
                        messages,
                        temperature=max(temperature, 0.7),
                        max_tokens=max_tokens,
                        schema=schema,
                        seed=attempt + 1,
                        stop=stop,
                    )
                    completion = self.complete(retry)
        raise ModelError(
            f"{self.spec}: the reply is not valid JSON for the schema ({problem}): {completion.text[:200]}"
        )
