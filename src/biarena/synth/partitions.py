"""write_partitions: a vertical as day-range Parquet partitions, drawn in parallel by worker processes or Ray tasks.

Layout: `DIR/<table>/part-NNNN.parquet`, so DuckDB and Spark read a table with a glob
(`read_parquet('DIR/orders/*.parquet')`), in partition order when the files are read in name order. A timed table's
partition `p` of `N` holds the chunks (about `chunk` rows, whole days) whose first day falls in the `p`-th of `N`
equal day ranges; a chunk is never split, so a partition may be empty (no file) when a table has fewer chunks than
partitions, and the days a file holds are in its footer (`biarena.first_day`, `biarena.last_day`). A table without
a timestamp (a dimension) is written once, split only by chunks (`min(N, chunks)` files).

Every chunk is drawn from its own random stream (seed, table, chunk), so a partition's bytes do not depend on the
workers or the engine, and the partitions read in order hold the serial output's rows. Tables are drawn level by
level (a table's parents on earlier levels), the tables of a level at once, in two passes: draw the parts' random
columns (row counts become known), then number the keys from the rows before, apply the rules and write the files.
The Faker pools every table draws from (once for all its parts) depend on no other table: their blocks are all
handed to the workers first, and a level waits only for its own tables' pools. Each pass holds one chunk at a time
per worker; the columns children read (keys, weights, times) are kept for whole tables, as the serial generator does.
"""

import contextlib
import importlib
import multiprocessing
import os
import pickle
import shutil
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from biarena.errors import UsageError, did_you_mean
from biarena.leave_with_parent import leave_with_parent
from biarena.synth.kernel import (
    Calendar,
    TableState,
    assemble_pools,
    cause_rows,
    draw_chunk,
    faker_block,
    finish_chunk,
    pool_blocks,
    table_def,
    table_rows,
    table_state,
)
from biarena.synth.schema import Columns, retained_columns, table_order
from biarena.synth.spec import Spec
from biarena.synth.writers import ParquetPart

ENGINES = ("local", "ray")


@dataclass(frozen=True)
class Part:
    """One file of one table: which chunks it holds, and the days they were drawn for."""

    table: str
    index: int
    number: int
    partitions: int
    chunks: tuple[int, ...]
    first_day: date | None
    last_day: date | None


@dataclass(frozen=True)
class _Job:
    """What a worker needs to draw or write a part (the parents' kept columns are in a file beside the output)."""

    spec: Spec
    scale: float
    seed: int
    chunk: int
    out: str
    kept: str
    retained: tuple[str, ...]
    part: Part


_STATE: dict[tuple[str, int], tuple[TableState, list]] = {}
"""The tables of the level a worker is drawing: building one (Faker pools, parent indexes) is done once per table
and worker, not once per part."""
_KEPT: dict[str, dict[str, Columns]] = {}


def _state(job: _Job) -> tuple[TableState, list]:
    key = (job.kept, job.part.index)
    if key not in _STATE:
        if job.kept not in _KEPT:  # a new level: the tables of the one before are done
            _STATE.clear()
            _KEPT.clear()
            with open(job.kept, "rb") as handle:
                _KEPT[job.kept] = pickle.load(handle)
        kept = _KEPT[job.kept]
        state = table_state(job.spec, job.part.index, job.part.table, job.scale, job.seed, kept, Calendar.of(job.spec))
        pools = _pools_file(job.out, job.part.index)
        if pools.exists():
            with pools.open("rb") as handle:
                state.pools = pickle.load(handle)
        _STATE[key] = (state, state.plan(job.chunk))
    return _STATE[key]


def _pools_file(out: str | Path, index: int) -> Path:
    """Where the Faker pools of the `index`-th table wait for the processes that draw its parts."""
    return Path(out) / ".work" / f"pools-{index}.pickle"


def _drawn(job: _Job) -> Path:
    return Path(job.out) / ".work" / f"{job.part.index}-{job.part.number}.pickle"


def draw_part(job: _Job) -> int:
    """Pass 1: draw the part's chunks into a scratch file; return its row count."""
    state, plan = _state(job)
    rows = 0
    with _drawn(job).open("wb") as handle:
        for number in job.part.chunks:
            start, size, day_counts = plan[number]
            data, count = draw_chunk(state, number, start, size, day_counts)
            pickle.dump((data, count), handle, protocol=pickle.HIGHEST_PROTOCOL)
            rows += count
    return rows


def write_part(job: _Job, first_key: int, causes: bool) -> tuple[Columns, int]:
    """Pass 2: number the part's keys from `first_key`, apply the rules, write its file (with the planted causes when
    `causes`); return the columns children read and the rows written."""
    state, _ = _state(job)
    part = job.part
    meta = {
        "biarena.table": part.table,
        "biarena.partition": str(part.number),
        "biarena.partitions": str(part.partitions),
    }
    if part.first_day and part.last_day:
        meta |= {"biarena.first_day": part.first_day.isoformat(), "biarena.last_day": part.last_day.isoformat()}
    folder = Path(job.out) / part.table
    folder.mkdir(exist_ok=True)
    writer = ParquetPart(folder / f"part-{part.number:04d}.parquet", table_def(state), meta)
    kept: dict[str, list[np.ndarray]] = {c: [] for c in job.retained}
    key = first_key
    try:
        with _drawn(job).open("rb") as handle:
            for _ in part.chunks:
                data, count = pickle.load(handle)
                data = finish_chunk(state, data, count, key)
                writer.append(data)
                key += count
                for column in kept:
                    kept[column].append(data[column])
        extra = cause_rows(state, key) if causes else None
        if extra is not None:
            writer.append(extra)
            key += len(next(iter(extra.values())))
            for column in kept:
                kept[column].append(extra[column])
    finally:
        writer.close()
    _drawn(job).unlink()
    return {c: np.concatenate(v) for c, v in kept.items()}, key - first_key


def parts_of(state: TableState, plan: list, partitions: int) -> list[Part]:
    """The table's parts: by day range for a timed table, by chunks for a dimension table (empty parts left out)."""
    if state.stamp is None:
        count = min(partitions, len(plan))
        return [
            Part(
                state.name,
                state.index,
                g,
                count,
                tuple(range(g * len(plan) // count, (g + 1) * len(plan) // count)),
                None,
                None,
            )
            for g in range(count)
        ]
    dates = state.days.dates
    spans = []
    for _, _, day_counts in plan:
        drawn = np.flatnonzero(day_counts)
        spans.append((int(drawn[0]), int(drawn[-1])) if len(drawn) else (0, 0))
    out = []
    for p in range(partitions):
        low, high = p * len(dates) // partitions, (p + 1) * len(dates) // partitions
        chunks = tuple(i for i, (first, _) in enumerate(spans) if low <= first < high)
        if chunks:
            first, last = spans[chunks[0]][0], max(spans[i][1] for i in chunks)
            out.append(Part(state.name, state.index, p, partitions, chunks, dates[first], dates[last]))
    return out


def _ancestors(spec: Spec, name: str) -> set[str]:
    """The tables a table's keys reach, directly or through their parents."""
    out: set[str] = set()
    todo = [name]
    while todo:
        table = spec.tables[todo.pop()]
        for column in table.columns.values():
            if column.kind == "foreign" and column.ref:
                parent = column.ref.split(".")[0]
                if parent not in out:
                    out.add(parent)
                    todo.append(parent)
    return out


def levels(spec: Spec) -> list[list[tuple[int, str]]]:
    """The tables (index in `table_order`, name) by generation level: a table's parents are all on earlier levels,
    so the tables of a level can be drawn at once."""
    order = table_order(spec)
    level: dict[str, int] = {}
    for name in order:
        parents = {c.ref.split(".")[0] for c in spec.tables[name].columns.values() if c.kind == "foreign" and c.ref}
        level[name] = 1 + max((level[p] for p in parents - {name}), default=-1)
    out: list[list[tuple[int, str]]] = [[] for _ in range(max(level.values()) + 1)]
    for index, name in enumerate(order):
        out[level[name]].append((index, name))
    return out


class _Call:
    """One call handed to `_LocalEngine`: run here or by a worker process (`future`), its result once done."""

    __slots__ = ("call", "done", "function", "future", "rank", "result", "taken")

    def __init__(self, function: Callable, call: tuple, rank: int) -> None:
        self.function, self.call, self.rank = function, call, rank
        self.future: Any = None
        self.taken = self.done = False
        self.result: Any = None


_WORKER_MODULES = ("faker", "pyarrow.parquet", "pandas")
"""What the workers import beside the generator (pyarrow imports pandas, when it is installed, on its first array)."""


class _LocalEngine:
    """Calls run in this process and, with more than one worker, in `workers - 1` worker processes beside it.

    Calls wait in one queue in the order given. A thread of this process hands the workers calls from its front, one
    more than they run at once, as they finish them; this process, while it waits for the results it needs, runs the
    last of those no worker has taken, or when workers have them all, the queue's last call. So it draws too rather
    than wait, and calls queued ahead (the Faker pools of later levels) keep the workers busy while this process
    finishes a level. Nothing is handed to the pool from its own callbacks (they run in the pool's thread).

    On Linux, when no other thread runs in this process, the workers are forked from it once it has imported what
    they need (a fork copies nothing until written, and leaves no lock held by another thread); otherwise they
    fork from a fork server, started in a thread of its own while this process draws (importing the generator,
    Faker, pyarrow and pandas there costs each worker about a second of CPU before its first call)."""

    def __init__(self, workers: int) -> None:
        self.pool: Any = None
        self.workers = workers - 1
        self.queue: deque[_Call] = deque()
        self.running = 0
        self.changed = threading.Condition()
        """Notified when calls are queued or done, the workers are up (or failed to start), or the engine closes."""
        self.ready = self.closed = False
        self.failed: BaseException | None = None
        if not self.workers:
            return
        if sys.platform.startswith("linux") and threading.active_count() == 1:
            for name in _WORKER_MODULES:
                with contextlib.suppress(ImportError):
                    importlib.import_module(name)
            self._start(multiprocessing.get_context("fork"))
        else:
            threading.Thread(target=self._start, args=(None,), name="partition-workers", daemon=True).start()

    def _start(self, context: Any) -> None:
        from concurrent.futures import ProcessPoolExecutor

        from biarena.synth.writer_process import worker_context

        try:
            if context is None:
                context = worker_context(__name__, also=_WORKER_MODULES)
            # with `fork`, the pool forks every worker here, before it starts threads of its own
            pool = ProcessPoolExecutor(self.workers, mp_context=context, initializer=leave_with_parent)
            pool.submit(int).result()  # the workers are up
            self.pool = pool
        except BaseException as error:  # raised where the results are waited for
            self.failed = error
        with self.changed:
            self.ready = True
            self.changed.notify_all()
        if self.pool is not None:
            threading.Thread(target=self._hand_out, name="partition-feeder", daemon=True).start()

    def _hand_out(self) -> None:
        """Hand the workers calls from the queue's front, one more than they run at once (a thread of its own)."""
        while True:
            with self.changed:
                while not self.closed and not (self.queue and self.running < self.workers + 1):
                    self.changed.wait()
                if self.closed:
                    return
                item = self.queue.popleft()
                item.taken = True
                self.running += 1
            try:
                future = self.pool.submit(item.function, *item.call)
            except BaseException as error:  # the pool broke or closed: raised where the results are waited for
                with self.changed:
                    self.failed = self.failed or error
                    self.changed.notify_all()
                return
            item.future = future
            future.add_done_callback(lambda _, item=item: self._finished(item))

    def _finished(self, item: _Call) -> None:
        with self.changed:
            self.running -= 1
            item.done = True
            self.changed.notify_all()

    @property
    def draws_elsewhere(self) -> bool:
        """True when calls also run in other processes (which read what they need from files, not this memory)."""
        return self.workers > 0

    def submit(self, function: Callable, calls: Sequence[tuple], sizes: Sequence[int] | None = None) -> list[_Call]:
        """Queue `function(*call)` for every call; what `results` takes. With the calls' `sizes`, the largest are
        queued at both ends, so the workers (from the front) and this process (from the back) each start with large
        calls and meet on small ones: neither waits long for the other at the end."""
        order = list(range(len(calls)))
        if sizes is not None:
            largest = sorted(order, key=lambda i: -sizes[i])
            order = largest[0::2] + largest[1::2][::-1]
        rank = {i: r for r, i in enumerate(order)}
        started = [_Call(function, call, rank[i]) for i, call in enumerate(calls)]
        with self.changed:
            self.queue.extend(started[i] for i in order)
            self.changed.notify_all()
        return started

    def results(self, started: Sequence[_Call]) -> list:
        """The results of calls `submit` queued, in their order."""
        while True:
            with self.changed:
                if self.failed is not None:
                    raise self.failed
                if all(item.done for item in started):
                    break
                local = max((item for item in started if not item.taken), key=lambda item: item.rank, default=None)
                if local is not None:
                    self.queue.remove(local)
                elif self.queue:
                    local = self.queue.pop()
                else:
                    self.changed.wait()
                    continue
                local.taken = True
            local.result, local.done = local.function(*local.call), True
        return [item.future.result() if item.future is not None else item.result for item in started]

    def map(self, function: Callable, calls: Sequence[tuple], sizes: Sequence[int] | None = None) -> list:
        """`function(*call)` for every call, results in call order (see `submit` for `sizes`)."""
        return self.results(self.submit(function, calls, sizes))

    def close(self) -> None:
        """Stop the workers."""
        with self.changed:
            self.queue.clear()
            self.closed = True
            self.changed.notify_all()
            while self.workers and not self.ready:
                self.changed.wait()
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


class _RayEngine:
    """Parts run as Ray tasks, on a local Ray instance or the cluster at `address`."""

    def __init__(self, workers: int, address: str | None) -> None:
        from biarena.ray_session import ray_session, require_ray

        self.ray = require_ray()
        self.session = ExitStack()
        # Ray's own object store size: parts may send more back than a campaign's results
        self.session.enter_context(ray_session(workers, address, object_store=None))
        self.remote: dict[Callable, Any] = {}

    draws_elsewhere = True
    """Ray tasks run in processes of their own."""

    def submit(self, function: Callable, calls: Sequence[tuple], sizes: Sequence[int] | None = None) -> list:
        """Start `function(*call)` as a Ray task for every call (Ray schedules them; `sizes` is not needed)."""
        remote = self.remote.setdefault(function, self.ray.remote(function))
        return [remote.remote(*call) for call in calls]

    def results(self, started: Sequence) -> list:
        """The results of tasks `submit` started, in their order."""
        return self.ray.get(list(started))

    def map(self, function: Callable, calls: Sequence[tuple], sizes: Sequence[int] | None = None) -> list:
        """`function(*call)` as Ray tasks, results in call order."""
        return self.results(self.submit(function, calls, sizes))

    def close(self) -> None:
        """Leave Ray as it was found."""
        self.session.close()


def default_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def write_partitions(
    spec: Spec,
    out: Path,
    *,
    scale: float,
    seed: int,
    chunk: int,
    partitions: int,
    workers: int,
    engine: str = "local",
    address: str | None = None,
) -> dict[str, int]:
    """Write every table of the vertical as Parquet parts under `out` (which exists); return rows per table."""
    if partitions < 1 or workers < 1:
        raise UsageError("--partitions and --workers must be at least 1")
    if engine not in ENGINES:
        hint = did_you_mean(engine, list(ENGINES))
        raise UsageError(f"unknown engine '{engine}'{hint} (known: {', '.join(ENGINES)})")
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise UsageError("--format parquet needs pyarrow: pip install 'biarena[parquet]'") from None
    runner = _RayEngine(workers, address) if engine == "ray" else _LocalEngine(workers)
    work = out / ".work"
    work.mkdir()
    retained = retained_columns(spec)
    kept: dict[str, Columns] = {}
    counts: dict[str, int] = {}
    calendar = Calendar.of(spec)
    try:
        # every table's Faker pool blocks, in level order, before any part: they depend on no other table
        blocks: dict[int, list] = {}
        for level in levels(spec):
            for index, name in level:
                blocks[index] = pool_blocks(spec, name, index, table_rows(spec, name, scale), seed)
        pending = {
            index: runner.submit(faker_block, [(block,) for block in table], [block.size for block in table])
            for index, table in blocks.items()
        }
        for number, level in enumerate(levels(spec)):
            needed = sorted(set().union(*(_ancestors(spec, name) for _, name in level)))
            parents = {t: kept[t] for t in needed}
            kept_file = work / f"kept-{number}.pickle"
            with kept_file.open("wb") as handle:
                pickle.dump(parents, handle, protocol=pickle.HIGHEST_PROTOCOL)
            # with one worker this process draws the parts, with the states built here to plan them
            _STATE.clear()
            _KEPT.clear()
            _KEPT[str(kept_file)] = parents
            jobs: dict[str, list[_Job]] = {}
            for index, name in level:
                state = table_state(spec, index, name, scale, seed, parents, calendar)
                plan = state.plan(chunk)
                _STATE[str(kept_file), index] = (state, plan)
                jobs[name] = [
                    _Job(spec, scale, seed, chunk, str(out), str(kept_file), tuple(sorted(retained[name])), part)
                    for part in parts_of(state, plan, partitions)
                ]
            for index, _ in level:
                if blocks[index]:
                    pools = assemble_pools(blocks[index], runner.results(pending.pop(index)))
                    _STATE[str(kept_file), index][0].pools = pools
                    if runner.draws_elsewhere:  # other processes read them from the file
                        with _pools_file(out, index).open("wb") as handle:
                            pickle.dump(pools, handle, protocol=pickle.HIGHEST_PROTOCOL)
            parts = [job for table in jobs.values() for job in table]
            plans = {index: _STATE[str(kept_file), index][1] for index, _ in level}
            sizes = [sum(plans[job.part.index][c][1] for c in job.part.chunks) for job in parts]
            rows = iter(runner.map(draw_part, [(job,) for job in parts], sizes))
            calls = []
            for table in jobs.values():
                first = 1
                for i, job in enumerate(table):
                    calls.append((job, first, i == len(table) - 1))
                    first += next(rows)
            written = iter(runner.map(write_part, calls, sizes))
            for name, table in jobs.items():
                done = [next(written) for _ in table]
                kept[name] = {c: np.concatenate([w[0][c] for w in done]) for c in retained[name]}
                counts[name] = sum(w[1] for w in done)
            kept_file.unlink()
    finally:
        runner.close()
        _STATE.clear()
        _KEPT.clear()
        shutil.rmtree(work, ignore_errors=True)
    return counts
