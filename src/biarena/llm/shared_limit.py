"""shared_turn: a server's `connections` limit held across processes (a campaign's workers), when a process
installs a gate for it; within one process the model's own semaphore already holds it."""

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

Gate = Callable[[str, int], AbstractContextManager]
"""Given an endpoint and its limit, a context manager held for the whole of one call to it."""

_gate: Gate | None = None


def share_limits(gate: Gate | None) -> None:
    """Hold every model call with a `connections` limit through `gate` (None: within the process only)."""
    global _gate
    _gate = gate


def shared_turn(endpoint: str, limit: int | None) -> AbstractContextManager:
    """A turn to call `endpoint` among all the processes sharing the gate (nothing when no gate or no limit)."""
    if _gate is None or limit is None:
        return nullcontext()
    return _gate(endpoint, limit)
