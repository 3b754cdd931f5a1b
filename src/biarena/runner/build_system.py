"""build_system: an agent made from its name, its options and (for the agents that need one) a model."""

from pathlib import Path
from typing import Any

from biarena.agents import MODEL_AGENTS, System, system_factory
from biarena.errors import UsageError
from biarena.llm import DEFAULT_MODEL, ModelOptions, get_model
from biarena.llm.prices import load_prices, prices_for
from biarena.options import Options


def build_system(
    name: str,
    *,
    model: str | None = None,
    no_cache: bool = False,
    concurrency: int = 1,
    prices: Path | None = None,
    structured: str | None = None,
    options: Options | None = None,
    model_options: ModelOptions | None = None,
    **values: Any,
) -> System:
    """Make the named system with its options (an options object or keywords), with a model for the agents that
    need one: `model_options` (a model as data) or the model string `model` (priced from the `prices` table file).

    Every caller (a run, a campaign's cell, the demo) makes its system here."""
    factory = system_factory(name)
    given: dict[str, Any] = {}
    if name in MODEL_AGENTS:
        if model_options is not None:
            built = get_model(model_options.spec(), options=model_options, concurrency=max(1, concurrency))
        else:
            built = get_model(
                model or DEFAULT_MODEL, use_cache=not no_cache, concurrency=max(1, concurrency), structured=structured
            )
        if prices is not None:
            built.prices = prices_for(load_prices(prices), model or DEFAULT_MODEL, built.spec, source=str(prices))
        given["model"] = built
    elif model is not None or prices is not None:
        raise UsageError(f"agent '{name}' does not use a model ({'--model' if model is not None else '--prices'})")
    elif structured is not None:
        raise UsageError(f"agent '{name}' does not use a model (--structured)")
    elif model_options is not None:
        raise UsageError(f"agent '{name}' does not use a model (-M)")
    return factory(**given, options=options, **values)
