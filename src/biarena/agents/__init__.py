"""Systems under test: built-in agents and adapters for external systems."""

from collections.abc import Callable
from typing import Any

from biarena.agents.bibench_baseline import BIBenchBaseline
from biarena.agents.external import CommandSystem, HttpSystem, PythonSystem
from biarena.agents.gold import GoldSystem
from biarena.agents.iterative import Iterative
from biarena.agents.no_interaction import NoInteraction
from biarena.agents.predictions import PredictionsSystem, load_predictions
from biarena.agents.sequential import Sequential
from biarena.agents.system import AgentEnv, System, run_step
from biarena.agents.text2sql import Text2SQL
from biarena.errors import NotFoundError, UsageError, did_you_mean

SYSTEMS: dict[str, Callable[..., System]] = {
    "gold": GoldSystem,
    "predictions": PredictionsSystem,
    "text2sql": Text2SQL,
    "sequential": Sequential,
    "iterative": Iterative,
    "no_interaction": NoInteraction,
    "bibench_baseline": BIBenchBaseline,
    "http": HttpSystem,
    "command": CommandSystem,
    "python": PythonSystem,
}
"""Systems by name; factories take the system's options as keyword arguments."""

MODEL_AGENTS = frozenset({"text2sql", "sequential", "iterative", "no_interaction", "bibench_baseline"})
"""Agents that need a model (`--model`)."""


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


__all__ = ["MODEL_AGENTS", "SYSTEMS", "AgentEnv", "System", "load_predictions", "make_system", "run_step"]
