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
from biarena.errors import NotFoundError, did_you_mean

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
"""Systems by name; a factory's `Options` model declares what it takes (as an options object or keywords), and the
agents in MODEL_AGENTS take the model first."""

MODEL_AGENTS = frozenset({"text2sql", "sequential", "iterative", "no_interaction", "bibench_baseline"})
"""Agents that need a model (`--model`)."""


def system_factory(name: str) -> Callable[..., System]:
    """The factory of the system `name` (NotFoundError, with a suggestion, for an unknown name)."""
    if name not in SYSTEMS:
        raise NotFoundError(
            f"unknown agent '{name}'{did_you_mean(name, sorted(SYSTEMS))} (known: {', '.join(sorted(SYSTEMS))})"
        )
    return SYSTEMS[name]


def make_system(name: str, **options: Any) -> System:
    """Build the system `name` from keyword options (and `model=` for a model agent); UsageError names a bad one."""
    return system_factory(name)(**options)


__all__ = [
    "MODEL_AGENTS",
    "SYSTEMS",
    "AgentEnv",
    "System",
    "load_predictions",
    "make_system",
    "run_step",
    "system_factory",
]
