"""Models: one call path (cache, retries, concurrency, structured output, usage) over several providers."""

from pathlib import Path
from typing import Any

from biarena.errors import NotFoundError, did_you_mean
from biarena.llm.cache import ResponseCache
from biarena.llm.mock_provider import MockProvider
from biarena.llm.model import Model, Provider, extract_json
from biarena.llm.model_options import ModelOptions, resolve_model, split_spec
from biarena.llm.prices import load_prices, prices_for
from biarena.llm.providers import PROVIDERS
from biarena.llm.structured import STRUCTURED_LEVELS, check_level
from biarena.llm.types import (
    ChatRequest,
    Completion,
    InvalidRequestError,
    Message,
    ModelError,
    RetryableError,
    StructuredOutputError,
    TokenLogprob,
    UnreachableError,
)

DEFAULT_MODEL = "local"


def get_model(
    spec: str = DEFAULT_MODEL,
    *,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    concurrency: int = 4,
    retries: int | None = None,
    backoff: float = 1.0,
    prices: dict[str, float] | None = None,
    structured: str | None = None,
    options: ModelOptions | None = None,
    **extra: Any,
) -> Model:
    """Make a Model from a model string, or from `options` (a model as data: `resolve_model`), whose settings win
    over the keywords; the response cache lives in `cache_dir` (biarena's cache by default).

    `structured` forces one way of asking for JSON (`json_schema`, `json_object`, `prompt`); by default each
    endpoint starts at `json_schema` and steps down when its server rejects that.
    """
    check_level(structured)
    if options is None:
        prefix = spec.partition(":")[0]
        if prefix not in PROVIDERS:
            known = list(PROVIDERS)
            hint = did_you_mean(prefix, known)
            raise NotFoundError(f"unknown model provider '{prefix}' in '{spec}'{hint} (known: {', '.join(known)})")
        settings: dict[str, Any] = {**split_spec(spec), "structured": structured, "cache": use_cache}
        if retries is not None:
            settings["retries"] = retries
        if "timeout" in extra:
            settings["timeout"] = extra.pop("timeout")
        options = ModelOptions.model_validate(settings)
    if cache_dir is None:
        from biarena.benchmarks import cache_dir as default_cache

        cache_dir = default_cache()
    provider = PROVIDERS[options.provider or "local"].from_options(options, cache_dir, **extra)
    cache = ResponseCache(cache_dir / "llm-cache.sqlite") if options.cache and use_cache else None
    model = Model(
        provider,
        cache=cache,
        retries=options.retries,
        backoff=backoff,
        concurrency=options.connections or concurrency,
        prices=prices,
        structured=options.structured or structured,
        options=options,
    )
    if options.prices is not None and prices is None:
        table = load_prices(options.prices)
        model.prices = prices_for(table, spec, model.spec, source=str(options.prices))
    return model


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
    "ModelOptions",
    "Provider",
    "RetryableError",
    "StructuredOutputError",
    "TokenLogprob",
    "UnreachableError",
    "extract_json",
    "get_model",
    "resolve_model",
]
