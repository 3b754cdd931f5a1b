"""Events: what a workflow tells whoever called it while it works, instead of printing.

A workflow takes an `on_event` callback and calls it with a `Message` (a line for the user), a model `Notice`
(`biarena.llm.notices`) or an event of its own (a run's `RunStarted`, `RunProgress`, ...). The command line renders
them (a progress bar on a terminal, lines in a log); the Python API prints the messages.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

EventHandler = Callable[[Any], None]
"""The callback a workflow reports to: called with each event, in order, from the workflow's thread."""


@dataclass(frozen=True)
class Message:
    """A line the user should read (what the workflow does, what it did, a warning)."""

    text: str


def ignore(event: Any) -> None:
    """The handler that drops every event (a workflow called without one)."""


@dataclass(frozen=True)
class Stage:
    """A long step's progress: `done` of `total` items, the item at hand and what is happening to it."""

    done: int
    total: int
    item: str
    stage: str
