"""Model: the one path every LLM call takes (cache, retries, concurrency limit, JSON checking, usage)."""

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from biarena.llm.cache import ResponseCache, cache_key
from biarena.llm.health import EndpointHealth
from biarena.llm.model_options import ModelOptions
from biarena.llm.notices import Notice, notify
from biarena.llm.redact import redact, redact_reply, redact_url
from biarena.llm.shared_limit import shared_turn
from biarena.llm.structured import LEVELS, at_level, check_level, json_values, parse_reply, repair_request
from biarena.llm.try_seed import seed_for_try
from biarena.llm.types import (
    ChatRequest,
    Completion,
    InvalidRequestError,
    Message,
    ModelError,
    RetryableError,
    StructuredOutputError,
    ToolCall,
    UnreachableError,
)
from biarena.records import Usage


class Provider(Protocol):
    """A backend that completes chats: local llama.cpp, an OpenAI-compatible server, or a script.

    A provider that sets `takes_tools = True` is given requests with tools (OpenAI's `tools`, a tool loop's messages)
    and may reply with tool calls; any other refuses them.

    A provider may name its `endpoint` (the server and model it talks to), under which the structured-output level
    the server accepts is remembered; without one, `name:model` is used. It may also have a `base_url` (its server),
    `identity()` (what the model is: the server's word for it, or the weights' hash), `answers()` (whether its
    server answers at all, asked after a call got no reply) and `request_payload(request)` (what it sends for a
    request, keys left out: the cache key is made of it; without one, the request's own fields).
    """

    name: str
    model: str

    def complete(self, request: ChatRequest) -> Completion:
        """Complete one request at `request.structured`; raise RetryableError for failures worth retrying and
        InvalidRequestError when the server says the request itself is invalid."""
        ...


_SEMAPHORES: dict[str, threading.BoundedSemaphore] = {}
_SEMAPHORES_LOCK = threading.Lock()


def _semaphore(endpoint: str, limit: int) -> threading.BoundedSemaphore:
    with _SEMAPHORES_LOCK:
        key = f"{endpoint}:{limit}"
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
        options: ModelOptions | None = None,
    ) -> None:
        self.provider = provider
        self.structured = check_level(structured)
        """The one structured-output level to use; None steps down from `json_schema` as the endpoint requires."""
        self.cache = cache
        self.retries = retries
        self.backoff = backoff
        self.concurrency = concurrency
        self.prices = prices or {}
        self.options = options or ModelOptions()
        """Sampling every call uses, and how long to wait and when to give up on the server."""
        self.usage = UsageMeter()
        self.health = EndpointHealth(self.options.max_outage)
        self._identity: tuple[dict[str, Any] | None] | None = None
        self._identity_lock = threading.Lock()

    @property
    def spec(self) -> str:
        """The model string this model was made from (with its server's URL when one was named)."""
        base_url = getattr(self.provider, "base_url", None)
        return f"{self.provider.name}:{self.provider.model}" + (f"@{redact_url(base_url)}" if base_url else "")

    @property
    def identity(self) -> dict[str, Any] | None:
        """What the model is, asked once: the server's /v1/models entry, or the GGUF's SHA-256; None when unknown.

        A server that does not answer is taken to serve what it served last time (as the cache remembers); a model
        that changed under the same name is told in a one-line note, and its replies are no longer read from the
        cache (the identity is part of the cache key). It is redacted: a gateway may quote the key it was sent."""
        with self._identity_lock:
            if self._identity is None:
                self._identity = (self._ask_identity(),)
            return self._identity[0]

    def _ask_identity(self) -> dict[str, Any] | None:
        ask = getattr(self.provider, "identity", None)
        if ask is None:
            return None
        remembered = redact(self.cache.identity(self.spec)) if self.cache is not None else None
        try:
            found = redact(redact_reply(ask()))
        except UnreachableError as error:
            self.health.suspect(" ".join(str(error).split())[:200])
            return remembered
        if found is not None and self.cache is not None:
            if remembered is not None and remembered != found:
                notify(
                    Notice(
                        "note",
                        f"note: {self.spec} is not the model it was ({_short(remembered)}; now {_short(found)}): "
                        "replies cached for it before are not used",
                    )
                )
            if remembered != found:
                self.cache.remember_identity(self.spec, found)
        return found

    def record(self) -> dict[str, Any]:
        """The model as a run records it: its string and, when known, what it is."""
        identity = self.identity
        return {"model": self.spec, **({"model_identity": identity} if identity is not None else {})}

    def cost(self, completion: Completion) -> float:
        """What a completion costs at this model's prices (per million tokens); 0 without prices."""
        prompt = self.prices.get("prompt", 0.0) * completion.prompt_tokens
        output = self.prices.get("completion", 0.0) * completion.completion_tokens
        return (prompt + output) / 1_000_000

    def _server_answers(self) -> bool:
        answers = getattr(self.provider, "answers", None)
        return True if answers is None else bool(answers())

    def _call(self, request: ChatRequest) -> Completion:
        """One call with retries: backoff, or the wait the server asks for; a server that does not answer is given
        up on at once when it did not answer the last call either, or when a call timed out and it does not even
        list its models."""
        health = self.health
        with _semaphore(self.endpoint, self.concurrency), shared_turn(self.endpoint, self.options.connections):
            if health.down:
                raise UnreachableError(
                    f"given up on the server after {health.limit} calls in a row got no reply ({health.last_error})",
                    again=True,
                )
            if health.failing and not self._server_answers():
                still = " still" if health.in_a_row else ""
                raise UnreachableError(f"the server{still} does not answer ({health.last_error})", again=True)
            attempt = 0
            while True:
                try:
                    completion = self.provider.complete(request)
                except UnreachableError as error:
                    if attempt >= self.retries or (error.timed_out and not self._server_answers()):
                        raise
                    wait, why = self._backoff(attempt), str(error)
                except RetryableError as error:
                    health.replied(answered=False)
                    if attempt >= self.retries:
                        raise
                    asked = error.retry_after
                    wait = min(asked, self.options.max_wait) if asked is not None else self._backoff(attempt)
                    why = f"{error} (Retry-After {asked:g} s)" if asked is not None else str(error)
                except ModelError:
                    health.replied(answered=False)
                    raise
                else:
                    health.replied()
                    return completion
                attempt += 1
                self._wait(wait, why, attempt)

    def _backoff(self, attempt: int) -> float:
        return min(self.backoff * 2**attempt, 30 * self.backoff)

    def _wait(self, seconds: float, why: str, attempt: int) -> None:
        if seconds >= 1:
            text = f"{self.spec}: {' '.join(why.split())[:120]}; attempt {attempt + 1} in {seconds:.0f} s"
            notify(Notice("wait", text, seconds))
        time.sleep(seconds)

    @property
    def endpoint(self) -> str:
        """The server and model that structured-output levels are remembered for."""
        return getattr(self.provider, "endpoint", None) or f"{self.provider.name}:{self.provider.model}"

    def complete(self, request: ChatRequest, *, use_cache: bool = True) -> Completion:
        """Complete a request through the cache, retries and the concurrency limit."""
        if request.tools is not None and not getattr(self.provider, "takes_tools", False):
            raise InvalidRequestError(f"{self.spec}: this model's provider takes no tools (local and mock do)")
        seed = seed_for_try(request.seed)
        if seed != request.seed:
            request = replace(request, seed=seed)
        # The key leaves out the structured level: a reply is validated against the schema whichever level produced
        # it, so a re-run never asks again just because this process has not yet learnt what the server accepts.
        completion = None
        key = ""
        if self.cache is not None:
            key = self.cache_key(request)
            completion = self.cache.get(key) if use_cache else None
        fresh = completion is None
        if completion is None:
            completion = self._structured_call(request) if request.schema is not None else self._retrying(request)
        _mask_reply(completion)  # a cached one too: it may have been cached before replies were masked
        if fresh and self.cache is not None and key:
            self.cache.put(key, completion)
        self.usage.add(completion, self.cost(completion))
        return completion

    def cache_key(self, request: ChatRequest) -> str:
        """The cache key of a request: what the provider sends for it (at the first structured-output level) and
        what the model is."""
        sent = replace(request, structured=None)
        payload = getattr(self.provider, "request_payload", None)
        return cache_key(
            self.provider.name, self.provider.model, payload(sent) if payload else sent.fields(), self.identity
        )

    def _retrying(self, request: ChatRequest) -> Completion:
        try:
            return self._call(request)
        except UnreachableError as error:
            self.health.gave_up(None if error.again else " ".join(str(error).split())[:200])
            message = f"{self.spec}: {error}" if error.again else f"{self.spec}: the server does not answer: {error}"
            raise UnreachableError(message, timed_out=error.timed_out) from None
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

    def sampled(self, request: ChatRequest) -> ChatRequest:
        """The request with the sampling the model's options set: their temperature and top_p replace the asked
        ones, and their max_tokens caps what is asked."""
        chosen = self.options
        if chosen.temperature is not None:
            request = replace(request, temperature=chosen.temperature)
        if chosen.max_tokens is not None:
            request = replace(request, max_tokens=min(request.max_tokens, chosen.max_tokens))
        if chosen.top_p is not None:
            request = replace(request, top_p=chosen.top_p)
        return request

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
        logprobs: int | None = None,
    ) -> Completion:
        """Chat; with `schema`, the reply is parsed and validated, and asked again (with what was wrong) if invalid.

        A reply that is still invalid raises StructuredOutputError carrying the raw replies. `seed` tells samples at
        a temperature apart (and keeps each one reproducible and cached). `logprobs` asks for that many likeliest
        tokens in each place of the reply (`Completion.logprobs`, where the endpoint gives them).
        """
        asked = ChatRequest.make(
            messages,
            temperature=temperature,
            max_tokens=max_tokens,
            schema=schema,
            stop=stop,
            seed=seed,
            logprobs=logprobs,
        )
        request = self.sampled(asked)
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


def _mask_reply(completion: Completion) -> None:
    """Mask the keys a server quoted back in a reply (streamed ones whole, so a key split across pieces is found)."""
    completion.text = redact_reply(completion.text)
    if completion.tool_calls:  # what the model asks to run is said back to the caller, and run
        completion.tool_calls = tuple(
            ToolCall(call.id, redact_reply(call.name), redact_reply(call.arguments)) for call in completion.tool_calls
        )
    if completion.finish_reason is not None:
        completion.finish_reason = redact_reply(completion.finish_reason)


def _short(identity: dict[str, Any]) -> str:
    """An identity in a few words for a note."""
    text = ", ".join(f"{key} {value}" for key, value in sorted(identity.items()) if key != "id") or str(identity)
    return text if len(text) <= 100 else text[:99] + "…"
