"""Systems under test: built-in agents and adapters for external systems."""

from collections.abc import Callable
from typing import Any

from biarena.agents.gold import GoldSystem
from biarena.agents.predictions import PredictionsSystem, load_predictions
from biarena.agents.system import AgentEnv, System, run_step
from biarena.errors import NotFoundError, UsageError, did_you_mean

SYSTEMS: dict[str, Callable[..., System]] = {
    "gold": GoldSystem,
    "predictions": PredictionsSystem,
}
"""Systems by name; factories take the system's options as keyword arguments."""


def make_system(name: str, **options: Any) -> System:
    """Build the system `name` with its options (NotFoundError for an unknown name)."""
    if name not in SYSTEMS:
        raise NotFoundError(
            f"unknown system '{name}'{did_you_mean(name, sorted(SYSTEMS))} (known: {', '.join(sorted(SYSTEMS))})"
        )
    try:
        return SYSTEMS[name](**options)
    except TypeError:
        given = ", ".join(f"--{k.replace('_', '-')}" for k in options)
        raise UsageError(f"system '{name}' does not take {given}") from None


__all__ = ["SYSTEMS", "AgentEnv", "System", "load_predictions", "make_system", "run_step"]
