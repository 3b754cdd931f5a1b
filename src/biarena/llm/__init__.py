"""Models: one call path (cache, retries, concurrency, structured output, usage) over several providers."""

from pathlib import Path
from typing import Any

from biarena.errors import NotFoundError, UsageError
from biarena.llm.cache import ResponseCache
from biarena.llm.mock_provider import MockProvider
from biarena.llm.model import Model, Provider, extract_json
from biarena.llm.structured import STRUCTURED_LEVELS, check_level
from biarena.llm.types import (
    ChatRequest,
    Completion,
    InvalidRequestError,
    Message,
    ModelError,
    RetryableError,
    StructuredOutputError,
)

DEFAULT_MODEL = "local"


def _local(rest: str, **options: Any) -> Provider:
    from biarena.llm.local_provider import LocalProvider

    return LocalProvider(Path(rest) if rest else None, cache=options.get("cache_dir"))


def _openai(rest: str, **options: Any) -> Provider:
    from biarena.llm.openai_provider import OpenAIProvider

    if not rest:
        raise UsageError("name the model: openai:MODEL or openai:MODEL@BASE_URL")
    model, _, base_url = rest.partition("@")
    return OpenAIProvider(model, base_url or None, timeout=options.get("timeout", 120.0))


def _mock(rest: str, **options: Any) -> Provider:
    return MockProvider(options.get("replies"), model=rest or "scripted")


PROVIDERS = {"local": _local, "openai": _openai, "mock": _mock}
"""Providers by the prefix of a model string: `local`, `local:/path.gguf`, `openai:MODEL[@URL]`, `mock`."""


def get_model(
    spec: str = DEFAULT_MODEL,
    *,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    concurrency: int = 4,
    retries: int = 4,
    backoff: float = 1.0,
    prices: dict[str, float] | None = None,
    structured: str | None = None,
    **options: Any,
) -> Model:
    """Make a Model from a model string; the response cache lives in `cache_dir` (biarena's cache by default).

    `structured` forces one way of asking for JSON (`json_schema`, `json_object`, `prompt`); by default each
    endpoint starts at `json_schema` and steps down when its server rejects that.
    """
    check_level(structured)
    prefix, _, rest = spec.partition(":")
    if prefix not in PROVIDERS:
        raise NotFoundError(f"unknown model provider '{prefix}' in '{spec}' (known: {', '.join(PROVIDERS)})")
    if cache_dir is None:
        from biarena.benchmarks import cache_dir as default_cache

        cache_dir = default_cache()
    provider = PROVIDERS[prefix](rest, cache_dir=cache_dir, **options)
    cache = ResponseCache(cache_dir / "llm-cache.sqlite") if use_cache else None
    return Model(
        provider,
        cache=cache,
        retries=retries,
        backoff=backoff,
        concurrency=concurrency,
        prices=prices,
        structured=structured,
    )


__all__ = [
    "DEFAULT_MODEL",
    "PROVIDERS",
    "STRUCTURED_LEVELS",
    "ChatRequest",
    "Completion",
    "InvalidRequestError",
    "Message",
    "MockProvider",
    "Model",
    "ModelError",
    "RetryableError",
    "StructuredOutputError",
    "extract_json",
    "get_model",
]
