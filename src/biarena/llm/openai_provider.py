"""OpenAIProvider: OpenAI and every OpenAI-compatible server (vLLM, Ollama, llama.cpp server, gateways)."""

import os
import re
import time
from contextlib import nullcontext
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from biarena.errors import UsageError
from biarena.llm.model_options import ModelOptions, OpenAIModel
from biarena.llm.notices import Notice, notify
from biarena.llm.openai_stream import read_logprobs, streamed_completion
from biarena.llm.redact import redact_headers, redact_reply, redact_text, redact_url, remember_secret
from biarena.llm.types import (
    ChatRequest,
    Completion,
    InvalidRequestError,
    ModelError,
    RetryableError,
    UnreachableError,
)
from biarena.llm.writing_notices import Tally, writing_notices

OPENAI_URL = "https://api.openai.com/v1"
KEY_VARIABLES = ("OPENAI_API_KEY", "BIARENA_API_KEY")
"""Where the key is read from when a model names no `api_key_env`."""
PROBE_SECONDS = 10.0
"""The longest wait for a sign of life from a server (its model list) after a call timed out."""

# Fields of a /v1/models entry that change from one request to the next (vLLM and llama.cpp's server stamp
# `created` with the time of the request; permissions carry fresh ids): not part of what the model is.
_VOLATILE = ("object", "permission", "permissions")

# Statuses worth asking again after a pause (as the openai SDK's own retry rule has it).
_RETRY_STATUSES = {408, 409, 429}

# How servers word a request that failed validation when they answer it with a 5xx instead of a 4xx: pydantic
# (llama-cpp-python's server answers 500 "1 validation error: {'type': 'literal_error', 'loc': ('body', ...)"),
# FastAPI, and OpenAI-style error types.
_VALIDATION = re.compile(
    r"validation error|'loc': \(|\"loc\": \[|literal_error|input should be|field required|extra inputs are not "
    r"permitted|invalid_request_error|unprocessable|unrecognized request argument|not supported|unsupported",
    re.IGNORECASE,
)

# Words that put a rejection on the structured-output request rather than on the rest of it.
_FORMAT = re.compile(r"response_format|json_schema|json_object|schema|structured|guided|grammar", re.IGNORECASE)


# A refusal of `stream_options` (servers that stream but know no usage option), and of streaming itself.
_STREAM_OPTIONS = re.compile(r"stream_options|include_usage", re.IGNORECASE)
_STREAM = re.compile(r"\bstream", re.IGNORECASE)
# A refusal of log-probabilities (servers that give none).
_LOGPROBS = re.compile(r"logprob", re.IGNORECASE)


def _fallback(way: str, message: str) -> str | None:
    """How to carry a request again after the server refused it with `message` (None: not for how it was carried)."""
    if way == "usage" and _STREAM_OPTIONS.search(message):
        return "stream"
    if way != "plain" and _STREAM.search(message):
        return "plain"
    return None


def _counted(completion: Completion) -> bool:
    """Whether a reply carries the server's token counts."""
    return bool(completion.prompt_tokens or completion.completion_tokens)


def retry_after(headers: Any, now: float | None = None) -> float | None:
    """The seconds a reply's `Retry-After` (seconds or an HTTP date) or `retry-after-ms` header asks to wait."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    try:
        if millis is not None:
            return max(0.0, float(millis) / 1000)
    except ValueError:
        pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def status_error(status: int, message: str, *, sent_response_format: bool, wait: float | None = None) -> ModelError:
    """The error for a server's non-2xx reply: retried with backoff (or after the wait the server asked for), or
    refused at once when the request is invalid."""
    text = f"HTTP {status}: {message}"
    invalid = 400 <= status < 500 and status not in _RETRY_STATUSES
    invalid = invalid or (status >= 500 and bool(_VALIDATION.search(message)))
    if invalid:
        return InvalidRequestError(text, about_response_format=sent_response_format and bool(_FORMAT.search(message)))
    if status >= 500 or status in _RETRY_STATUSES:
        return RetryableError(text, retry_after=wait if status in (429, 503) else None)
    return ModelError(text)


def response_format(level: str | None, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The `response_format` field for a structured-output level (None sends none)."""
    if level in (None, "json_schema"):
        return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema, "strict": False}}
    if level == "json_object":
        return {"type": "json_object"}
    return None


class OpenAIProvider:
    """Chat completions through the `openai` SDK; `base_url` points it at any compatible server.

    The key is read from its environment variable at each call, so it is held by no object that is written anywhere.
    """

    name = "openai"
    Options = OpenAIModel

    @classmethod
    def from_options(cls, options: ModelOptions, cache_dir: Path, **_: Any) -> "OpenAIProvider":
        """The provider of `options` (openai:MODEL[@BASE_URL] and the server's settings)."""
        if not options.name:
            raise UsageError("name the model: openai:MODEL or openai:MODEL@BASE_URL")
        return cls(
            options.name,
            options.base_url,
            timeout=options.timeout,
            api_key_env=options.api_key_env,
            key_headers=options.key_headers,
            extra_headers=options.extra_headers,
            extra_body=options.extra_body,
            extra_query=options.extra_query,
        )

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        timeout: float = 120.0,
        *,
        api_key_env: str | None = None,
        key_headers: dict[str, str] | None = None,
        extra_headers: dict[str, str] | None = None,
        extra_body: dict[str, Any] | None = None,
        extra_query: dict[str, str] | None = None,
    ) -> None:
        try:
            import openai
        except ImportError:
            raise UsageError("the openai provider needs: pip install 'biarena[openai]'") from None
        self.model = model
        self.base_url = base_url.rstrip("/") if base_url else None
        """The server named in the model string (None: OpenAI's)."""
        self.endpoint = f"{redact_url((base_url or OPENAI_URL).rstrip('/'))} {model}"
        """The server and model: what a server accepts for structured output is remembered per endpoint."""
        self.api_key_env = api_key_env
        self.key_headers = dict(key_headers or {})
        """Headers that carry a key: header name -> the environment variable holding it."""
        self.timeout = timeout
        self.extra_headers = dict(extra_headers or {})
        self.extra_body = dict(extra_body or {})
        self.extra_query = dict(extra_query or {})
        if self._key() is None:
            if api_key_env:
                raise UsageError(f"model openai:{model}: the variable {api_key_env} (api_key_env) is not set")
            if base_url is None and "Authorization" not in self.key_headers:
                raise UsageError("the openai provider needs an API key: set OPENAI_API_KEY (or -M api_key_env=NAME)")
        for header, variable in self.key_headers.items():
            if not os.environ.get(variable):
                raise UsageError(f"model openai:{model}: the variable {variable} (key_headers {header}) is not set")
            remember_secret(os.environ[variable])
        self._openai = openai
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        # Requests go through the client's `post`: the body is JSON already (ours), and `create` would walk it against
        # the SDK's typed parameters first (a millisecond and more a call, spent holding the GIL at high concurrency).
        self._completion_type = ChatCompletion
        self._stream_type = openai.Stream[ChatCompletionChunk]
        self._way = "usage"
        """How replies are carried: `usage` (streamed with token counts), `stream` (the server refused
        stream_options), `plain` (it refused streaming, or counts tokens only in plain replies)."""
        self._logprobs = True
        """Whether log-probabilities are asked for when a request wants them (False once the server refused them)."""
        self._counts_known = False
        """Whether a plain reply was asked once to see if the server counts tokens where its streamed ones had none."""
        # retries are ours (counted and logged the same way for every provider); the key is sent with each call
        self._client = openai.OpenAI(api_key="not-needed", base_url=base_url, max_retries=0, timeout=timeout)

    def _key(self) -> str | None:
        """The API key, read now from its variable (local OpenAI-compatible servers usually need none)."""
        names = (self.api_key_env,) if self.api_key_env else KEY_VARIABLES
        key = next((os.environ[name] for name in names if os.environ.get(name)), None)
        remember_secret(key)
        return key

    def _headers(self) -> dict[str, str]:
        """The headers of a request: the user's, the bearer key and the headers that carry keys, read now."""
        key = self._key()
        if key is None and self.api_key_env:
            raise ModelError(f"openai:{self.model}: the environment variable {self.api_key_env} is not set")
        headers = {**self.extra_headers, **({"Authorization": f"Bearer {key}"} if key else {})}
        for header, variable in self.key_headers.items():
            value = os.environ.get(variable)
            if not value:
                raise ModelError(f"openai:{self.model}: the environment variable {variable} ({header}) is not set")
            remember_secret(value)
            headers[header] = value
        return headers

    def _options(self) -> dict[str, Any]:
        """A request's options as the SDK's `create` makes them: the headers, the user's query parameters and extra
        body fields (merged into the body by the SDK), and the bearer key as the only credential the SDK may add."""
        options: dict[str, Any] = {"headers": self._headers(), "security": {"bearer_auth": True}}
        if self.extra_query:
            options["params"] = dict(self.extra_query)
        if self.extra_body:
            options["extra_json"] = self.extra_body
        return options

    def _unreachable(self, error: Exception, waited: float, hint: bool = True) -> UnreachableError:
        """The error for a call the server did not answer: refused, cut, or no reply within `waited` seconds."""
        timed_out = isinstance(error, self._openai.APITimeoutError)
        longer = " (-M timeout=SECONDS waits longer)" if hint else ""
        said = f"no reply within {waited:g} s{longer}" if timed_out else _cause(error)
        return UnreachableError(redact_text(f"{type(error).__name__}: {said}"), timed_out=timed_out)

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        """The request body's own fields (extra_body is added by the SDK)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": request.message_dicts(),
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.seed is not None:
            body["seed"] = request.seed
        if request.top_p is not None:
            body["top_p"] = request.top_p
        if request.stop:
            body["stop"] = list(request.stop)
        schema = request.schema_dict()
        fmt = response_format(request.structured, schema) if schema is not None else None
        if fmt is not None:
            body["response_format"] = fmt
        if request.logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = request.logprobs
        return body

    def request_payload(self, request: ChatRequest) -> dict[str, Any]:
        """What a request sends, keys left out: the URL, the body with extra_body merged in (as the SDK merges it),
        and the headers and query parameters the model's options add."""
        return {
            "url": f"{redact_url(self.base_url or OPENAI_URL)}/chat/completions",
            "body": {**self._body(request), **self.extra_body},
            "headers": redact_headers(self.extra_headers),
            "query": dict(self.extra_query),
        }

    def complete(self, request: ChatRequest) -> Completion:
        """Send one chat completion request, streamed (tokens written are told as `writing` notices) unless the
        server turned streaming down; the reply is the same either way, and so is the cache key (`request_payload`
        leaves out how the reply is carried).

        A server whose streamed reply counts no tokens is asked the same once more without streaming: when that
        reply counts them, replies are no longer streamed; either way the plain reply is the one returned."""
        body = self._body(request)
        if not self._logprobs:
            body = _without_logprobs(body)
        while True:
            way = self._way
            try:
                completion = self._ask(body, way)
            except InvalidRequestError as error:
                if "logprobs" in body and _LOGPROBS.search(str(error)):
                    # the reply is worth having without them: the caller reads a reply without log-probabilities
                    self._logprobs = False
                    body = _without_logprobs(body)
                    notify(Notice("note", f"{self.endpoint}: the server gives no log-probabilities; asked without"))
                    continue
                fallback = _fallback(way, str(error))
                if fallback is None:
                    raise
                self._way = fallback
                continue
            if way == "plain" or self._counts_known or _counted(completion):
                return completion
            plain = self._ask(body, "plain")
            self._counts_known = True
            if _counted(plain):
                self._way = "plain"
                text = (
                    f"{self.endpoint}: the server counts no tokens in streamed replies; replies are no longer "
                    "streamed (no progress is shown while one is written)"
                )
                notify(Notice("note", text))
            return plain

    def _ask(self, body: dict[str, Any], way: str) -> Completion:
        """One request, carried the `way` given: `usage` (streamed, with token counts at the end), `stream`
        (streamed) or `plain`."""
        openai = self._openai
        carried: dict[str, Any] = {}
        if way != "plain":
            carried["stream"] = True
        if way == "usage":
            carried["stream_options"] = {"include_usage": True}
        tally = Tally()
        told = writing_notices(tally, f"openai:{self.model}", "waiting for the first token") if carried else None
        try:
            with told or nullcontext():
                response = self._client.post(
                    "/chat/completions",
                    body={**body, **carried},
                    cast_to=self._completion_type,
                    options=self._options(),
                    stream=bool(carried),
                    stream_cls=self._stream_type,
                )
                if carried:
                    return streamed_completion(response, tally)
        except (openai.APITimeoutError, openai.APIConnectionError) as error:
            raise self._unreachable(error, self.timeout) from None
        except openai.APIStatusError as error:
            wait = retry_after(getattr(error.response, "headers", None))
            message = _clip(redact_reply(_message(error), error=True))
            sent_format = "response_format" in body
            raise status_error(error.status_code, message, sent_response_format=sent_format, wait=wait) from None
        except openai.APIError as error:  # an error event in the middle of a streamed reply
            said = _clip(redact_reply(_message(error), error=True))
            raise RetryableError(f"the server stopped its reply: {said}") from None
        except ValueError as error:  # a reply cut short or not JSON: the server answered, but not with a completion
            said = _clip(redact_reply(" ".join(str(error).split()), error=True), 200)
            raise RetryableError(f"the reply is not a chat completion: {said}") from None
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content or "") if choice else ""
        usage = response.usage
        return Completion(
            text=text,
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            finish_reason=getattr(choice, "finish_reason", None),
            logprobs=read_logprobs(getattr(choice, "logprobs", None)) if choice else (),
        )

    def answers(self) -> bool:
        """Whether the server answers HTTP at all within a few seconds (any reply, even an error, counts)."""
        openai = self._openai
        try:
            self._list_models()
        except (openai.APITimeoutError, openai.APIConnectionError):
            return False
        except Exception:  # an error reply, or a reply that is no model list: the server is there
            return True
        return True

    def _list_models(self) -> Any:
        """The server's model list, asked with a short timeout."""
        client = self._client.with_options(timeout=min(PROBE_SECONDS, self.timeout))
        return client.models.list(extra_headers=self._headers(), extra_query=self.extra_query or None)

    def identity(self) -> dict[str, Any] | None:
        """What the server says the model is (its /v1/models entry), None when it lists no such model or has no
        list; UnreachableError when it does not answer."""
        openai = self._openai
        try:
            listing = self._list_models()
            entries = [entry.model_dump() for entry in listing.data]
        except (openai.APITimeoutError, openai.APIConnectionError) as error:
            raise self._unreachable(error, min(PROBE_SECONDS, self.timeout), hint=False) from None
        except Exception:  # no model list here (404, not JSON): the server says nothing about the model
            return None
        entry = next((e for e in entries if isinstance(e, dict) and e.get("id") == self.model), None)
        if entry is None:
            return None
        return stable_entry(entry)


def _without_logprobs(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key not in ("logprobs", "top_logprobs")}


def stable_entry(entry: dict[str, Any], now: float | None = None) -> dict[str, Any]:
    """A /v1/models entry without what changes between two requests to the same server and model."""
    kept = {key: value for key, value in entry.items() if key not in _VOLATILE and value is not None}
    created = kept.get("created")
    # a `created` within minutes of now is the time of the request (vLLM, llama.cpp), not of the model
    if isinstance(created, int | float) and abs((time.time() if now is None else now) - created) < 300:
        kept.pop("created")
    return kept


def _cause(error: Exception) -> str:
    """An SDK connection error with what lay under it (refused, timed out, cut short)."""
    cause = error.__cause__ or error.__context__
    text = str(error)
    if cause is not None and str(cause) and str(cause) not in text:
        # redacted before it is cut, so no part of a key is left at the cut
        text += f" ({type(cause).__name__}: {_clip(redact_text(' '.join(str(cause).split())), 200, '')})"
    return text


def _clip(text: str, limit: int = 600, more: str = " ...") -> str:
    """`text` cut to `limit` characters (`more` marks the cut)."""
    return text if len(text) <= limit else text[:limit] + more


def _message(error: Any) -> str:
    """The server's own words: the error body's message when it has one, the SDK's summary otherwise (whole, to be
    redacted before it is cut)."""
    body = getattr(error, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        text = body["message"]
    elif isinstance(body, str) and body.strip():
        text = body
    else:
        text = str(getattr(error, "message", error))
    return " ".join(text.split())
