"""Gates that hold a model server's `connections` limit across a campaign's workers: lock-file slots for the
processes of one machine, a Ray actor for the workers of a Ray cluster."""

import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: the limit holds within each worker only
    fcntl = None  # type: ignore[assignment]

_POLL = 0.01


class FileSlots:
    """`limit` lock files per endpoint in a folder: a call holds one of them (flock), so at most `limit` calls to a
    server are under way among all the processes sharing the folder; a killed process's slot is freed with it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @contextmanager
    def __call__(self, endpoint: str, limit: int) -> Iterator[None]:
        """Hold one of the endpoint's slots for the duration."""
        if fcntl is None:
            yield
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256(endpoint.encode()).hexdigest()[:16]
        while True:
            for slot in range(limit):
                fd = os.open(self.folder / f"{name}.{slot}.lock", os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    continue
                try:
                    yield
                finally:
                    os.close(fd)
                return
            time.sleep(_POLL)


def ray_limits_actor() -> Any:
    """The actor holding a semaphore per endpoint for a campaign's tasks (it ends with the driver)."""
    import asyncio

    import ray

    @ray.remote(num_cpus=0, max_restarts=-1)
    class ConnectionLimits:
        def __init__(self) -> None:
            self.semaphores: dict[str, asyncio.Semaphore] = {}

        async def acquire(self, endpoint: str, limit: int) -> None:
            semaphore = self.semaphores.setdefault(f"{endpoint}|{limit}", asyncio.Semaphore(limit))
            await semaphore.acquire()

        async def release(self, endpoint: str, limit: int) -> None:
            self.semaphores[f"{endpoint}|{limit}"].release()

    return ConnectionLimits.remote()


class RaySlots:
    """A turn from the cluster's limits actor for each call."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    @contextmanager
    def __call__(self, endpoint: str, limit: int) -> Iterator[None]:
        """Hold one of the endpoint's turns for the duration."""
        import ray

        ray.get(self.actor.acquire.remote(endpoint, limit))
        try:
            yield
        finally:
            ray.get(self.actor.release.remote(endpoint, limit))
