"""Engines that run a campaign's cell tasks and stream their results back to the one writer: a local process pool,
or the tasks of a Ray cluster."""

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from biarena.campaign.limits import FileSlots, RaySlots, ray_limits_actor
from biarena.campaign.run_cell import CellResult, CellTask, run_cell
from biarena.errors import BiarenaError
from biarena.leave_with_parent import leave_with_parent
from biarena.ray_session import ray_session, require_ray

ATTEMPTS = 3
"""Times a task is started before a campaign gives up on it: a worker killed under it starts it again."""


class WorkerLost(BiarenaError):
    """A task's worker died every time it was started."""


def run_local(tasks: list[CellTask], workers: int, limits: Path) -> Iterator[CellResult]:
    """Run tasks in a pool of `workers` processes, yielding each result as it comes; a task whose worker was killed
    is started again (in a new pool), up to ATTEMPTS times."""
    attempts = {task.cell.key: 0 for task in tasks}
    queue = list(tasks)
    gate = FileSlots(limits)
    context = _worker_context()
    while queue:
        broken = False
        pool = ProcessPoolExecutor(max_workers=max(1, workers), mp_context=context, initializer=leave_with_parent)
        try:
            running: dict[Future, CellTask] = {}
            for task in queue:
                attempts[task.cell.key] += 1
                running[pool.submit(_execute_here, dict(os.environ), task, gate)] = task
            queue = []
            while running:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    task = running.pop(future)
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        broken = True
                        queue.append(task)
                        continue
                    yield result
        finally:
            # stopped early (an error, an interrupt): the tasks not started are dropped, not run to the end
            pool.shutdown(wait=True, cancel_futures=True)
        if broken:
            for task in queue:
                if attempts[task.cell.key] >= ATTEMPTS:
                    raise WorkerLost(f"a worker died each of the {ATTEMPTS} times it ran {task.cell.run}")


PRELOAD = [
    "biarena.campaign.run_cell",
    "biarena.agents",
    "biarena.benchmarks",
    "biarena.db",
    "biarena.metrics.context",
    "biarena.runner.run",
    "biarena.scoring.loop",
    "biarena.scoring.setup",
]
"""What a worker imports before its first task; the forkserver imports it once and each worker is forked from it."""


def _worker_context() -> multiprocessing.context.BaseContext:
    """Workers forked from a server process that imported biarena once (each starts in milliseconds, and no thread
    of this process is copied into them); spawned where there is no forkserver."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def _execute_here(environ: dict[str, str], task: CellTask, gate: FileSlots) -> CellResult:
    """Run a task in a pool worker with the driver's environment as it is now (the forkserver's dates from its
    start: a key set since, such as the model server's, would be missed)."""
    os.environ.clear()
    os.environ.update(environ)
    return run_cell(task, gate)


def run_ray(tasks: list[CellTask]) -> Iterator[CellResult]:
    """Run tasks as Ray tasks on the cluster this process is joined to (`ray_session`), yielding each result as it
    comes; Ray starts again a task whose worker died."""
    ray = require_ray()
    actor = None
    try:
        actor = ray_limits_actor()  # held here until the last result is in: the tasks' handles do not keep it
        gate = RaySlots(actor)
        remote = ray.remote(num_cpus=1, max_retries=ATTEMPTS - 1)(run_cell)
        pending = {remote.remote(task, gate): task for task in tasks}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                pending.pop(ref)
                try:
                    result = ray.get(ref)
                except ray.exceptions.WorkerCrashedError:
                    raise WorkerLost("a Ray worker died each time it ran a task") from None
                except ray.exceptions.RayTaskError as error:
                    if isinstance(error.cause, BiarenaError):  # a user's mistake, seen on a worker: its one line
                        raise error.cause from None
                    raise
                yield result
    finally:
        if actor is not None:
            ray.kill(actor)


class LocalCells:
    """A pool of worker processes on this machine (`--workers` of them)."""

    cluster = False
    """Whether it runs on a cluster a `--address` names."""

    @staticmethod
    def prepare() -> None:
        """Check before any work that the engine can run here (a local pool always can)."""

    @staticmethod
    def session(workers: int, address: str | None) -> AbstractContextManager[int]:
        """Hold what the engine needs while the campaign runs; yields the cells it runs at once."""
        return nullcontext(workers)

    @staticmethod
    def run(tasks: list[CellTask], workers: int, out: Path) -> Iterator[CellResult]:
        """Run the tasks, yielding each result as it comes."""
        return run_local(tasks, workers, out / ".limits")


class RayCells:
    """The tasks of a Ray cluster (`--address`), or of a Ray instance started here with `--workers` CPUs (needs
    biarena[ray])."""

    cluster = True
    """Whether it runs on a cluster a `--address` names."""

    @staticmethod
    def prepare() -> None:
        """Check before any work that Ray is installed (one line saying how to install it when not)."""
        require_ray()

    @staticmethod
    def session(workers: int, address: str | None) -> AbstractContextManager[int]:
        """This process joined to the cluster while the campaign runs; yields the cluster's CPUs."""
        return ray_session(workers, address)

    @staticmethod
    def run(tasks: list[CellTask], workers: int, out: Path) -> Iterator[CellResult]:
        """Run the tasks on the cluster this process is joined to, yielding each result as it comes."""
        return run_ray(tasks)
