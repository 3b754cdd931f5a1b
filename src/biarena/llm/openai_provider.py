"""OpenAIProvider: OpenAI and every OpenAI-compatible server (vLLM, Ollama, llama.cpp server, gateways)."""

import os
import re
from typing import Any

from biarena.errors import UsageError
from biarena.llm.types import ChatRequest, Completion, InvalidRequestError, ModelError, RetryableError

OPENAI_URL = "https://api.openai.com/v1"

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


def status_error(status: int, message: str, *, sent_response_format: bool) -> ModelError:
    """The error for a server's non-2xx reply: retried with backoff, or refused at once when the request is invalid."""
    text = f"HTTP {status}: {message}"
    invalid = 400 <= status < 500 and status not in _RETRY_STATUSES
    invalid = invalid or (status >= 500 and bool(_VALIDATION.search(message)))
    if invalid:
        return InvalidRequestError(text, about_response_format=sent_response_format and bool(_FORMAT.search(message)))
    if status >= 500 or status in _RETRY_STATUSES:
        return RetryableError(text)
    return ModelError(text)


def response_format(level: str | None, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The `response_format` field for a structured-output level (None sends none)."""
    if level in (None, "json_schema"):
        return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema, "strict": False}}
    if level == "json_object":
        return {"type": "json_object"}
    return None


class OpenAIProvider:
    """Chat completions through the `openai` SDK; `base_url` points it at any compatible server."""

    name = "openai"

    def __init__(self, model: str, base_url: str | None = None, timeout: float = 120.0) -> None:
        try:
            import openai
        except ImportError:
            raise UsageError("the openai provider needs: pip install 'biarena[openai]'") from None
        self.model = model
        self.endpoint = f"{(base_url or OPENAI_URL).rstrip('/')} {model}"
        """The server and model: what a server accepts for structured output is remembered per endpoint."""
        key = os.environ.get("OPENAI_API_KEY") or os.environ.get("BIARENA_API_KEY")
        if not key:
            if base_url is None:
                raise UsageError("the openai provider needs an API key: set OPENAI_API_KEY")
            key = "not-needed"  # local OpenAI-compatible servers usually take any key
        self._openai = openai
        # retries are ours (tenacity, counted and logged the same way for every provider)
        self._client = openai.OpenAI(api_key=key, base_url=base_url, max_retries=0, timeout=timeout)

    def complete(self, request: ChatRequest) -> Completion:
        """Send one chat completion request."""
        openai = self._openai
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": request.message_dicts(),
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.stop:
            kwargs["stop"] = list(request.stop)
        schema = request.schema_dict()
        fmt = response_format(request.structured, schema) if schema is not None else None
        if fmt is not None:
            kwargs["response_format"] = fmt
        try:
            response = self._client.chat.completions.create(**kwargs)
        except (openai.APITimeoutError, openai.APIConnectionError) as error:
            raise RetryableError(f"{type(error).__name__}: {error}") from None
        except openai.APIStatusError as error:
            raise status_error(error.status_code, _message(error), sent_response_format=fmt is not None) from None
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content or "") if choice else ""
        usage = response.usage
        return Completion(
            text=text,
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            finish_reason=getattr(choice, "finish_reason", None),
        )


def _message(error: Any, limit: int = 600) -> str:
    """The server's own words: the error body's message when it has one, the SDK's summary otherwise."""
    body = getattr(error, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        text = body["message"]
    elif isinstance(body, str) and body.strip():
        text = body
    else:
        text = str(getattr(error, "message", error))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " ..."
