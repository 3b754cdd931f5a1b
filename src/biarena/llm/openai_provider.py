"""OpenAIProvider: OpenAI and every OpenAI-compatible server (vLLM, Ollama, llama.cpp server, gateways)."""

import os
from typing import Any

from biarena.errors import UsageError
from biarena.llm.types import ChatRequest, Completion, ModelError, RetryableError


class OpenAIProvider:
    """Chat completions through the `openai` SDK; `base_url` points it at any compatible server."""

    name = "openai"

    def __init__(self, model: str, base_url: str | None = None, timeout: float = 120.0) -> None:
        try:
            import openai
        except ImportError:
            raise UsageError("the openai provider needs: pip install 'biarena[openai]'") from None
        self.model = model
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
        if schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": schema, "strict": False},
            }
        try:
            response = self._client.chat.completions.create(**kwargs)
        except (
            openai.RateLimitError,
            openai.APITimeoutError,
            openai.APIConnectionError,
            openai.InternalServerError,
        ) as e:
            raise RetryableError(f"{type(e).__name__}: {e}") from None
        except openai.APIStatusError as error:
            if error.status_code >= 500 or error.status_code == 429:
                raise RetryableError(f"HTTP {error.status_code}: {error.message}") from None
            raise ModelError(f"HTTP {error.status_code}: {error.message}") from None
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content or "") if choice else ""
        usage = response.usage
        return Completion(
            text=text,
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        )
