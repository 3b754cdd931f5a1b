"""write_partitions: a vertical as day-range Parquet partitions, drawn in parallel by worker processes or Ray tasks.

Layout: `DIR/<table>/part-NNNN.parquet`, so DuckDB and Spark read a table with a glob
(`read_parquet('DIR/orders/*.parquet')`), in partition order when the files are read in name order. A timed table's
partition `p` of `N` holds the chunks (about `chunk` rows, whole days) whose first day falls in the `p`-th of `N`
equal day ranges; a chunk is never split, so a partition may be empty (no file) when a table has fewer chunks than
partitions, and the days a file holds are in its footer (`biarena.first_day`, `biarena.last_day`). A table without
a timestamp (a dimension) is written once, split only by chunks (`min(N, chunks)` files).

Every chunk is drawn from its own random stream (seed, table, chunk), so a partition's bytes do not depend on the
workers or the engine, and the partitions read in order hold the serial output's rows. Each part is drawn and written in
two calls (`task_graph` runs them as soon as what they wait for is done, longest chain first): draw the part's random
columns (its row count becomes known), then number its keys from the rows of the parts before, apply the rules and write
the file. A table's parts are drawn once its Faker pools (drawn in blocks, waiting for no other table) and its parents
are done; part `p` is written once parts `0..p` are drawn; a table is done once its parts are written: a table waits for
its own parents only, never for a whole level. Each call holds one chunk at a time; the columns children read (keys,
weights, times) are kept for whole tables, as the serial generator does (in files beside the output, when other
processes draw).
"""

import os
import pickle
import shutil
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from biarena.errors import UsageError, did_you_mean
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
from biarena.synth.task_graph import ENGINES, Node
from biarena.synth.writers import ParquetPart


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
    """What a process needs to draw or write a part (the parents' kept columns in this process, or in files beside
    the output when `shared`)."""

    spec: Spec
    scale: float
    seed: int
    chunk: int
    out: str
    retained: tuple[str, ...]
    part: Part
    ancestors: frozenset[str]
    shared: bool


class _Kept(dict):
    """The columns children read, by table: in a process that did not keep a table itself, read from its parts'
    files (under `work`) on first use."""

    def __init__(self, work: Path, order: list[str]) -> None:
        super().__init__()
        self.work, self.index = work, {name: i for i, name in enumerate(order)}

    def __missing__(self, name: str) -> Columns:
        parts = []
        for file in sorted(self.work.glob(f"kept-{self.index[name]}-*.pickle")):
            with file.open("rb") as handle:
                parts.append(pickle.load(handle))
        if not parts:
            raise KeyError(name)
        self[name] = {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}
        return self[name]


_STATES_KEPT = 4
"""Tables a process keeps the drawing state of (the least recently used beyond them are dropped, and the parents'
columns no kept table reads)."""
_STATE: "OrderedDict[int, tuple[TableState, list, frozenset[str]]]" = OrderedDict()
"""The tables a process is drawing: building one (Faker pools, parent indexes) is done once per table and process,
not once per part."""
_RUN: dict[str, Any] = {"out": None, "kept": None}


def _caches(job: _Job) -> _Kept:
    """This process's kept columns for the job's run (the caches of another run are dropped)."""
    if _RUN["out"] != job.out:
        _STATE.clear()
        _RUN["out"], _RUN["kept"] = job.out, _Kept(Path(job.out) / ".work", table_order(job.spec))
    return _RUN["kept"]


def _state(job: _Job) -> tuple[TableState, list]:
    kept = _caches(job)
    index = job.part.index
    if index in _STATE:
        _STATE.move_to_end(index)
    else:
        state = table_state(job.spec, index, job.part.table, job.scale, job.seed, kept, Calendar.of(job.spec))
        pools = _pools_file(job.out, index)
        if pools.exists():
            with pools.open("rb") as handle:
                state.pools = pickle.load(handle)
        _STATE[index] = (state, state.plan(job.chunk), job.ancestors)
        while len(_STATE) > _STATES_KEPT:
            _STATE.popitem(last=False)
            read = set().union(*(ancestors for _, _, ancestors in _STATE.values()))
            for name in set(kept) - read:
                del kept[name]
    state, plan, _ = _STATE[index]
    return state, plan


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


def write_part(job: _Job, first_key: int, causes: bool) -> tuple[Columns | None, int]:
    """Pass 2: number the part's keys from `first_key`, apply the rules, write its file (with the planted causes when
    `causes`); return the columns children read (None when `shared`: they are in a file beside the output, for the
    processes that draw the children) and the rows written."""
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
    columns = {c: np.concatenate(v) for c, v in kept.items()}
    if not job.shared:
        return columns, key - first_key
    with (Path(job.out) / ".work" / f"kept-{part.index}-{part.number:04d}.pickle").open("wb") as handle:
        pickle.dump(columns, handle, protocol=pickle.HIGHEST_PROTOCOL)
    return None, key - first_key


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


def _parents(spec: Spec, name: str) -> set[str]:
    """The tables a table's keys refer to."""
    return {c.ref.split(".")[0] for c in spec.tables[name].columns.values() if c.kind == "foreign" and c.ref}


def _ancestors(spec: Spec, name: str) -> set[str]:
    """The tables a table's keys reach, directly or through their parents."""
    out: set[str] = set()
    todo = [name]
    while todo:
        for parent in _parents(spec, todo.pop()) - out:
            out.add(parent)
            todo.append(parent)
    return out


_WORKER_MODULES = ("faker", "pyarrow.parquet")
"""What the workers import beside this module."""

POOL_VALUE_COST = 150
"""What drawing one Faker pool value costs, in rows drawn and written: how the calls are ranked."""


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
    runner = ENGINES[engine].open(workers, address, (__name__, *_WORKER_MODULES))
    work = out / ".work"
    work.mkdir()
    order = table_order(spec)
    _STATE.clear()
    _RUN["out"], _RUN["kept"] = str(out), _Kept(work, order)
    run = _Run(spec, out, scale, seed, chunk, partitions, runner.draws_elsewhere)
    try:
        for index, name in enumerate(order):
            run.add(index, name)
        runner.run(run.nodes)
    finally:
        runner.close()
        _STATE.clear()
        _RUN["out"] = _RUN["kept"] = None
        shutil.rmtree(work, ignore_errors=True)
    return run.counts


class _Run:
    """The calls that write a vertical's parts: a table's Faker pool blocks; its parts drawn once its pools and its
    parents are done; part `p` written once parts `0..p` are drawn (its first key follows their rows)."""

    def __init__(
        self, spec: Spec, out: Path, scale: float, seed: int, chunk: int, partitions: int, shared: bool
    ) -> None:
        self.spec, self.out, self.scale, self.seed, self.chunk = spec, out, scale, seed, chunk
        self.partitions, self.shared = partitions, shared
        self.retained = retained_columns(spec)
        self.calendar = Calendar.of(spec)
        self.kept: _Kept = _RUN["kept"]
        self.tables: dict[str, Node] = {}
        """Each table's last node: done once its parts are written and what children read is kept."""
        self.nodes: list[Node] = []
        self.counts: dict[str, int] = {}

    def add(self, index: int, name: str) -> None:
        """The nodes of the `index`-th table in `table_order` (its parents' added before)."""
        state = table_state(self.spec, index, name, self.scale, self.seed, self.kept, self.calendar)
        plan = state.plan(self.chunk)
        ancestors = frozenset(_ancestors(self.spec, name))
        _STATE[index] = (state, plan, ancestors)
        blocks = pool_blocks(self.spec, name, index, table_rows(self.spec, name, self.scale), self.seed)
        drawn = [Node(faker_block, (block,), cost=block.size * POOL_VALUE_COST) for block in blocks]
        pools = Node(None, after=drawn, done=lambda _: self._pools(state, blocks, drawn))
        before = [pools, *(self.tables[p] for p in sorted(_parents(self.spec, name) - {name}))]
        retained = tuple(sorted(self.retained[name]))
        draws: list[Node] = []
        writes: list[Node] = []
        parts = parts_of(state, plan, self.partitions)
        for i, part in enumerate(parts):
            job = _Job(
                self.spec, self.scale, self.seed, self.chunk, str(self.out), retained, part, ancestors, self.shared
            )
            rows = sum(plan[c][1] for c in part.chunks)
            draws.append(Node(draw_part, (job,), after=before, cost=rows))
            # the last part carries the planted causes
            arguments = self._written(job, draws[:i], i == len(parts) - 1)
            writes.append(Node(write_part, arguments, after=draws[: i + 1], cost=rows))
        table = Node(None, after=writes, done=lambda _: self._table(index, name, writes))
        self.tables[name] = table
        self.nodes += [*drawn, pools, *draws, *writes, table]

    @staticmethod
    def _written(job: _Job, before: list[Node], causes: bool) -> Callable[[], tuple]:
        """The arguments of a part's write, made once the parts `before` it are drawn: its first key follows their
        rows."""

        def arguments() -> tuple:
            return job, 1 + sum(node.result for node in before), causes

        return arguments

    def _pools(self, state: TableState, blocks: list, drawn: list[Node]) -> None:
        """A table's pool blocks are drawn: its pools, for this process and (in a file) for the others."""
        if not blocks:
            return
        state.pools = assemble_pools(blocks, [node.result for node in drawn])
        for node in drawn:
            node.result = None
        if self.shared:
            with _pools_file(self.out, state.index).open("wb") as handle:
                pickle.dump(state.pools, handle, protocol=pickle.HIGHEST_PROTOCOL)

    def _table(self, index: int, name: str, writes: list[Node]) -> None:
        """A table's parts are written: count its rows, keep what children read, drop its drawing state here."""
        self.counts[name] = sum(node.result[1] for node in writes)
        if not self.shared:
            self.kept[name] = {c: np.concatenate([n.result[0][c] for n in writes]) for c in self.retained[name]}
        for node in writes:
            node.result = None
        _STATE.pop(index, None)
