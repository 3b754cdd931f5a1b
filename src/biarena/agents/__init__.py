"""Systems under test: built-in agents and adapters for external systems."""

from collections.abc import Callable, Iterator
from typing import Any

from biarena.agents.predictions import load_predictions
from biarena.agents.system import AgentEnv, System, run_step
from biarena.registry import Registry

_MODEL = {"needs_model": True}

SYSTEMS: Registry[Callable[..., System]] = Registry(
    "agent",
    {
        "gold": "biarena.agents.gold:GoldSystem",
        "predictions": "biarena.agents.predictions:PredictionsSystem",
        "text2sql": ("biarena.agents.text2sql:Text2SQL", _MODEL),
        "sequential": ("biarena.agents.sequential:Sequential", _MODEL),
        "iterative": ("biarena.agents.iterative:Iterative", _MODEL),
        "no_interaction": ("biarena.agents.no_interaction:NoInteraction", _MODEL),
        "bibench_baseline": ("biarena.agents.bibench_baseline:BIBenchBaseline", _MODEL),
        "http": "biarena.agents.http_system:HttpSystem",
        "command": "biarena.agents.command_system:CommandSystem",
        "python": "biarena.agents.external:PythonSystem",
    },
    group="biarena.agents",
)
"""Systems by name, each imported on first use (plugins add theirs through the `biarena.agents` entry points); a
factory's `Options` model declares what it takes (as an options object or keywords), and an agent whose entry (or
class) says `needs_model` takes the model first (`model=`)."""


class _ModelAgents:
    """The agents that need a model (`--model`): `name in MODEL_AGENTS`."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in SYSTEMS and bool(SYSTEMS.meta(name, "needs_model", False))

    def __iter__(self) -> Iterator[str]:
        return (name for name in SYSTEMS if name in self)


MODEL_AGENTS = _ModelAgents()
"""Agents that need a model (`--model`)."""


def system_factory(name: str) -> Callable[..., System]:
    """The factory of the system `name` (NotFoundError, with a suggestion, for an unknown name)."""
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
