"""The drawing kernel: a table's generation state (`TableState`, over the spec's `Calendar`), its chunks drawn each
from its own random stream (`draw_chunk`), numbered and ruled (`finish_chunk`), and the rows planted events name as
causes (`cause_rows`). The serial generator and the partition writer both draw through it.

Category shares are exact: the table's counts are fixed up front and split among its chunks without replacement
before any chunk is drawn (and so is the share of rows an optional key leaves empty). Each chunk has its own random
stream (seed, table, chunk), so it can be drawn on its own, in any order or process. Seasonal density is exact per
month. Rules are evaluated on each chunk before it is written.
"""

from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from typing import Any

import numpy as np

from biarena.errors import FormatError
from biarena.synth.calendar import active_days, allocate, allocate_days, density
from biarena.synth.expression import evaluate
from biarena.synth.parents import Picker
from biarena.synth.schema import DAY, EPOCH, Columns, column_type, seconds
from biarena.synth.spec import Column, Spec, Table, column_kind
from biarena.synth.writers import TableDef

SHARES_STREAM = 2**40
"""The random stream (beside the chunks' streams, numbered from 0) that splits a table's exact shares among its
chunks before any chunk is drawn, so that any chunk can be drawn on its own, in any order."""
CAUSES_STREAM = 2**40 + 1
"""The random stream that chooses the parents a planted event's cause row leaves to the generator."""
REKEYS = 20
"""Rounds of drawing again the key a time is read through, for rows no parent is alive at that time."""
FAKER_POOL = 2_000
"""Faker columns longer than this draw from pools (Faker is slow): person names combine a pool of first names with
a pool of last names (millions of combinations); other providers sample a pool of `FAKER_POOL * 4` values."""
FAKER_BLOCK = FAKER_POOL
"""Values Faker draws from one seed: a larger pool is drawn in blocks, each from a seed of its own (the first block's
is the pool's), so that processes can draw the blocks of one pool at once."""


def _coerce(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == "timestamp":
        return seconds(datetime.fromisoformat(str(value)))
    if kind == "date":
        return (date.fromisoformat(str(value)) - EPOCH.date()).days
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    return str(value)


def _typed(values: np.ndarray, kind: str) -> np.ndarray:
    """The array in its stored type (rules may have produced floats for an int column, and so on)."""
    if values.dtype == object and any(v is None for v in values.tolist()):
        return values
    if kind in ("int", "timestamp", "date"):
        return np.round(values.astype(float)).astype(np.int64) if values.dtype.kind == "f" else values.astype(np.int64)
    if kind == "float":
        return values.astype(float)
    return values.astype(object)


@dataclass(frozen=True)
class Calendar:
    """The spec's active days, computed once: dates, their midnights in seconds, and seasonal weights."""

    dates: list[date]
    seconds: np.ndarray
    weights: np.ndarray

    @classmethod
    def of(cls, spec: Spec) -> "Calendar":
        """The calendar of a spec."""
        dates = active_days(spec.start, spec.anchor)
        return cls(dates, np.array([seconds(d) for d in dates], dtype=np.int64), density(dates, spec.seasonality))


@dataclass
class TableState:
    """Per-table generation state shared by its chunks."""

    spec: Spec
    name: str
    index: int
    n: int
    seed: int
    kept: dict[str, Columns]
    days: Calendar
    types: dict[str, str] = field(default_factory=dict)
    remaining: dict[str, np.ndarray] = field(default_factory=dict)
    labels: dict[str, np.ndarray] = field(default_factory=dict)
    pools: dict[str, np.ndarray] = field(default_factory=dict)
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    pickers: dict[str, Picker] = field(default_factory=dict)
    indexes: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    day_counts: np.ndarray | None = None
    shares: dict[str, list[np.ndarray]] = field(default_factory=dict)
    """Per exact share (category column, optional key's empty rows): its counts in each chunk."""
    number: int = 0
    """The chunk being drawn."""
    prepared: bool = False
    moved: bool = False
    """Whether the current chunk has rows moved after their parents (and so must be put back in time order)."""

    def __post_init__(self) -> None:
        table = self.spec.tables[self.name]
        self.types = {c: column_type(self.spec, self.name, c) for c in table.columns}
        for name, column in table.columns.items():
            if column.kind == "category":
                values = column.values
                labels = list(values) if isinstance(values, dict) else list(values or [])
                if not labels:
                    raise FormatError(f"spec '{self.spec.name}' column {self.name}.{name}: a category needs values")
                shares = np.array(list(values.values()), dtype=float) if isinstance(values, dict) else None
                self.remaining[name] = allocate(self.n, shares if shares is not None else np.ones(len(labels)))
                dtype = {"int": np.int64, "float": float}.get(self.types[name], object)
                self.labels[name] = np.array(labels, dtype=dtype)
            if column.kind == "foreign" and column.empty is not None and not isinstance(column.empty, str):
                share = float(column.empty)
                self.remaining[f"{name}\0empty"] = allocate(self.n, np.array([share, 1 - share]))
        if self.stamp:
            self.day_counts = allocate_days(self.n, self.days.dates, self.days.weights)

    def prepare(self) -> None:
        """Build what drawing needs beyond the plan (Faker pools, parent weights and pickers), once: a process
        that only plans the chunks never pays for it."""
        if self.prepared:
            return
        self.prepared = True
        if not self.pools:
            self.pools = self.faker_pools()
        for name, column in self.spec.tables[self.name].columns.items():
            if column.kind == "foreign" and column.weight:
                parent = (column.ref or ".").split(".")[0]
                source = self.kept[parent][column.weight["column"]]
                weights = np.array([column.weight["values"].get(v, 1.0) for v in source.tolist()], dtype=float)
                self.weights[name] = weights / weights.sum()
            if column.kind == "foreign" and (column.follows or column.until or column.where or column.match):
                parent = (column.ref or ".").split(".")[0]
                self.pickers[name] = Picker.of(self.spec, self.name, column, self.kept[parent], self.weights.get(name))

    def faker_pools(self) -> dict[str, np.ndarray]:
        """The values the table's Faker columns draw from (the same for a seed and table in any process)."""
        blocks = pool_blocks(self.spec, self.name, self.index, self.n, self.seed)
        return assemble_pools(blocks, [faker_block(block) for block in blocks])

    @property
    def stamp(self) -> str | None:
        """The table's first timestamp column: it orders the rows and carries the seasons."""
        return self.spec.tables[self.name].stamp

    def rows_of(self, parent: str, key: str, values: np.ndarray) -> np.ndarray:
        """Row positions in the parent's kept columns of these key values."""
        if (parent, key) not in self.indexes:
            keys = self.kept[parent][key]
            order = np.argsort(keys, kind="stable")
            self.indexes[parent, key] = (order, keys[order])
        order, ordered = self.indexes[parent, key]
        if values.dtype == object and ordered.dtype != object:  # an optional key's values, none of them empty here
            values = values.astype(ordered.dtype)
        return order[np.minimum(np.searchsorted(ordered, values), len(ordered) - 1)]

    def through(self, via: str, column: str, data: Columns) -> np.ndarray:
        """The values of `column` (or a path `key.column`) in the parents this chunk's `via` column points to
        (None where an optional key on the way is empty)."""
        hops, last = self.spec.path(self.name, via, column)
        values = data[via]
        for i, (_, _, parent, key) in enumerate(hops):
            source = self.kept[parent][hops[i + 1][1] if i + 1 < len(hops) else last]
            present = _present(values)
            if present is None:
                values = source[self.rows_of(parent, key, values)]
                continue
            found = source[self.rows_of(parent, key, values[present])]
            values = np.full(len(values), None, dtype=object)
            values[present] = found.tolist()
        return values

    def empty_rows(self, name: str, column: Column, data: Columns, rng: np.random.Generator, n: int) -> np.ndarray:
        """Which of a chunk's `n` rows an optional key leaves empty: where its condition holds, or its exact share."""
        if isinstance(column.empty, str):
            try:
                return evaluate(column.empty, data, n).astype(bool)
            except FormatError as error:
                raise FormatError(f"spec '{self.spec.name}' column {self.name}.{name}: empty: {error}") from None
        counts = self.shares[f"{name}\0empty"][self.number]
        return rng.permutation(np.repeat(np.array([True, False]), counts))

    def plan(self, size: int) -> list[tuple[int, int, np.ndarray | None]]:
        """The chunks of `size` rows (see `chunks`), with each exact share split among them up front."""
        chunks = self.chunks(size)
        rng = np.random.default_rng([self.seed, self.index, SHARES_STREAM])
        for key, remaining in self.remaining.items():
            split = []
            for _, n, _ in chunks:
                last = n == int(remaining.sum())
                counts = remaining.copy() if last else rng.multivariate_hypergeometric(remaining, n)
                remaining = remaining - counts
                split.append(counts)
            self.shares[key] = split
        return chunks

    def chunks(self, size: int) -> list[tuple[int, int, np.ndarray | None]]:
        """(first row, row count, day counts) per chunk; timed tables are cut at day boundaries."""
        if self.day_counts is None:
            return [(start, min(size, self.n - start), None) for start in range(0, self.n, size)]
        out, start, first_day = [], 0, 0
        cumulative = np.cumsum(self.day_counts)
        while start < self.n:
            last_day = int(np.searchsorted(cumulative, start + size, side="left"))
            last_day = min(last_day, len(self.day_counts) - 1)
            counts = self.day_counts[first_day : last_day + 1]
            out.append((start, int(counts.sum()), np.pad(counts, (first_day, len(self.day_counts) - last_day - 1))))
            start += int(counts.sum())
            first_day = last_day + 1
        return out


@lru_cache(maxsize=8)
def _faker_of(locale: str) -> Any:
    """One Faker per locale and process (making one loads its providers: tens of milliseconds); each pool seeds it
    afresh, so what it drew before changes nothing."""
    from faker import Faker

    try:
        return Faker(locale)
    except AttributeError:
        raise FormatError(f"unknown Faker locale '{locale}'") from None


@dataclass(frozen=True)
class PoolBlock:
    """Values of one Faker pool drawn from one seed: `size` values of `provider` in `locale`."""

    key: str
    """The pool: a column's name, or the column's name and `\\0last` for its last names."""
    provider: str
    size: int
    seed: int
    locale: str


def pool_blocks(spec: Spec, name: str, index: int, n: int, seed: int) -> list[PoolBlock]:
    """The blocks of a table's Faker pools (`index` in `table_order`, `n` rows), in pool order: each pool takes its
    seed from the table's stream in column order, and its blocks past the first a seed derived from the pool's."""
    rng = np.random.default_rng([seed, index])
    blocks = []
    for column_name, column in spec.tables[name].columns.items():
        if column.kind != "faker":
            continue
        provider = column.provider or "name"
        if n <= FAKER_POOL:
            pools = [(column_name, provider, n)]
        elif provider == "name":
            pools = [(column_name, "first_name", FAKER_POOL), (f"{column_name}\0last", "last_name", FAKER_POOL)]
        else:
            pools = [(column_name, provider, FAKER_POOL * 4)]
        for key, drawn, size in pools:
            first = int(rng.integers(0, 2**31))
            for number, start in enumerate(range(0, size, FAKER_BLOCK)):
                block_seed = first if number == 0 else int(np.random.default_rng([first, number]).integers(0, 2**31))
                blocks.append(PoolBlock(key, drawn, min(FAKER_BLOCK, size - start), block_seed, spec.locale))
    return blocks


def faker_block(block: PoolBlock) -> np.ndarray:
    """The values of one pool block."""
    fake = _faker_of(block.locale)
    fake.seed_instance(block.seed)
    try:
        provider = getattr(fake, block.provider)
    except AttributeError:
        raise FormatError(f"unknown Faker provider '{block.provider}'") from None
    return np.array([str(provider()) for _ in range(block.size)], dtype=object)


def assemble_pools(blocks: list[PoolBlock], values: list[np.ndarray]) -> dict[str, np.ndarray]:
    """The pools of a table from its blocks' values (in the order of `blocks`)."""
    parts: dict[str, list[np.ndarray]] = {}
    for block, drawn in zip(blocks, values, strict=True):
        parts.setdefault(block.key, []).append(drawn)
    return {key: drawn[0] if len(drawn) == 1 else np.concatenate(drawn) for key, drawn in parts.items()}


def _numeric(column: Column, n: int, rng: np.random.Generator, data: Columns) -> np.ndarray:
    if column.kind == "normal":
        out = rng.normal(column.mean or 0.0, column.sd or 1.0, n)
    elif column.ranges:
        by = data[column.ranges["column"]].tolist()
        bounds = np.array([column.ranges["values"].get(v, [column.low or 0.0, column.high or 1.0]) for v in by])
        bounds = bounds.reshape(n, 2).astype(float)
        out = bounds[:, 0] + rng.random(n) * (bounds[:, 1] - bounds[:, 0])
    elif column.kind == "uniform":
        out = rng.uniform(column.low or 0.0, column.high if column.high is not None else 1.0, n)
    else:  # poisson
        out = rng.poisson(column.mean or 1.0, n).astype(float)
    if column.factor:
        source = data[column.factor["column"]]
        out = out * np.array([column.factor["values"].get(v, 1.0) for v in source.tolist()], dtype=float)
    if column.min is not None:
        out = np.maximum(out, column.min)
    if column.max is not None:
        out = np.minimum(out, column.max)
    if column.round is not None:
        out = np.round(out, column.round)
        if column.round == 0:
            out = out.astype(np.int64)
    return out


def _column(
    state: TableState, name: str, column: Column, start: int, n: int, day_counts: np.ndarray | None, rng, data: Columns
) -> np.ndarray:
    kind = column.kind
    if kind == "sequence":
        return np.arange(start + 1, start + n + 1, dtype=np.int64)
    if kind == "constant":
        return np.full(n, _coerce(column.value, state.types[name]), dtype=object if column.value is None else None)
    if kind == "category":
        counts = state.shares[name][state.number]
        return rng.permutation(np.repeat(state.labels[name], counts))
    if kind in ("normal", "uniform", "poisson"):
        return _numeric(column, n, rng, data)
    if kind == "foreign":
        parent, key = (column.ref or ".").split(".")
        keys = state.kept[parent][key]
        if column.empty is not None:
            return _optional(state, name, column, keys, rng, n, data)
        if name in state.pickers:
            chosen = _pick(state, name, data, rng, n)
            if column.at and "." in column.at:
                chosen = _rekeyed(state, name, str(column.at).split(".")[0], data, rng, chosen)
            return keys[chosen]
        if name in state.weights:
            return keys[rng.choice(len(keys), size=n, p=state.weights[name])]
        return keys[rng.integers(0, len(keys), size=n)]
    if kind == "timestamp":
        if day_counts is not None and name == state.stamp:
            base = np.repeat(state.days.seconds, day_counts)
            return np.sort(np.minimum(base + rng.integers(0, DAY, size=n), seconds(state.spec.anchor) - 1))
        weights = state.days.weights
        picked = rng.choice(len(weights), size=n, p=weights / weights.sum())
        moments = state.days.seconds[picked] + rng.integers(0, DAY, size=n)
        return np.minimum(moments, seconds(state.spec.anchor) - 1)
    if kind == "date" and column.ranges:
        by = data[column.ranges["column"]].tolist()
        bounds = np.array([[(d - EPOCH.date()).days for d in column.ranges["values"][v]] for v in by], dtype=np.int64)
        return bounds[:, 0] + rng.integers(0, bounds[:, 1] - bounds[:, 0] + 1).astype(np.int64)
    if kind == "date":
        first = column.start or state.spec.start
        last = column.end or state.spec.anchor.date()
        return (first - EPOCH.date()).days + rng.integers(0, (last - first).days + 1, size=n)
    if kind == "inherit":
        return state.through(column.via or "", column.of or "", data)
    if kind == "faker":
        pool = state.pools[name]
        if state.n <= FAKER_POOL:
            return pool[start : start + n]
        last = state.pools.get(f"{name}\0last")
        if last is not None:
            return pool[rng.integers(0, len(pool), size=n)] + " " + last[rng.integers(0, len(last), size=n)]
        return pool[rng.integers(0, len(pool), size=n)]
    raise FormatError(f"column '{name}': unknown kind {kind}")


def _pick(
    state: TableState, name: str, data: Columns, rng: np.random.Generator, n: int, subset: np.ndarray | None = None
) -> np.ndarray:
    """Parent rows chosen by the column's picker; a row moved after its parent puts the chunk out of time order."""
    chosen, moved = state.pickers[name].pick(data, rng, n, subset, state.stamp, state.through)
    state.moved = state.moved or moved
    return chosen


def _rekeyed(
    state: TableState, name: str, via: str, data: Columns, rng: np.random.Generator, chosen: np.ndarray
) -> np.ndarray:
    """A key chosen at a time read through another key (`at: promo_id.expires_on`): where no parent is alive then
    (no trip in the promotion's market booked before it expired), that other key is drawn again as it was drawn and
    the parent chosen anew, when that key is drawn on its own and nothing else of the row reads through it."""
    table = state.spec.tables[state.name]
    if not table.drawn(via) or any(_reads(column, via) for other, column in table.columns.items() if other != name):
        return chosen
    picker = state.pickers[name]
    for _ in range(REKEYS):
        stranded = np.flatnonzero(picker.stranded(data, chosen, state.through))
        if not len(stranded):
            break
        keys = data[via].copy()
        keys[stranded] = _column(state, via, table.columns[via], 0, len(stranded), None, rng, data)
        data[via] = keys
        chosen = chosen.copy()
        chosen[stranded], _ = picker.pick(data, rng, len(stranded), stranded, state.stamp, state.through)
    return chosen


def _reads(column: Column, key: str) -> bool:
    """Whether a column reads values through a foreign column of its row."""
    sources = [column.via, str(column.at or "").split(".")[0] if "." in str(column.at or "") else None]
    sources += [str(column.match["via"])] if column.match else []
    sources += [base.split(".")[0] for base in [*(column.not_before or []), *(column.not_after or [])] if "." in base]
    return key in sources


def _optional(
    state: TableState, name: str, column: Column, keys: np.ndarray, rng: np.random.Generator, n: int, data: Columns
) -> np.ndarray:
    """An optional key: None in the empty rows, a parent chosen as for any key in the others."""
    filled = np.flatnonzero(~state.empty_rows(name, column, data, rng, n))
    if name in state.pickers:
        chosen = _pick(state, name, data, rng, len(filled), filled)
    elif name in state.weights:
        chosen = rng.choice(len(keys), size=len(filled), p=state.weights[name])
    else:
        chosen = rng.integers(0, len(keys), size=len(filled))
    out = np.full(n, None, dtype=object)
    out[filled] = keys[chosen].tolist()
    return out


def _present(values: np.ndarray) -> np.ndarray | None:
    """Where an array of keys holds a value, or None when it has no empty entry."""
    if values.dtype != object:
        return None
    present = np.array([v is not None for v in values.tolist()], dtype=bool)
    return None if present.all() else present


def _after(
    state: TableState, name: str, column: Column, data: Columns, rng: np.random.Generator, limit: int
) -> np.ndarray:
    low, high = column.low or 0.0, column.high if column.high is not None else 24.0
    bases = [f"{column.via}.{column.of}" if column.via else column.of or "", *(column.not_before or [])]
    base, present = _moments(state, bases[0], data)
    for source in bases[1:]:
        # a bound through an optional key that is empty bounds nothing
        values, known = _moments(state, source, data)
        base = np.where(known, np.maximum(base, values), base)
    if column.mean is not None:
        offsets = np.minimum(low * 3600 + rng.exponential(column.mean * 3600, size=len(base)), high * 3600)
    else:
        offsets = rng.uniform(low * 3600, high * 3600, size=len(base))
    out = np.minimum(base + offsets.astype(np.int64), limit - 1)
    if column.not_after:
        out = _ceiled(state, column, data, base, offsets, out)
    if present.all():
        return out
    # through an optional key the time is empty where the key is
    values = np.full(len(out), None, dtype=object)
    values[present] = out[present].tolist()
    return values


def _ceiled(
    state: TableState, column: Column, data: Columns, base: np.ndarray, offsets: np.ndarray, out: np.ndarray
) -> np.ndarray:
    """An `after` column kept on or before its `not_after` times (a date all that day): a row whose lag would pass
    the earliest has its lag drawn within what that time leaves, in the same proportion of the span."""
    top = np.full(len(out), np.iinfo(np.int64).max, dtype=np.int64)
    for source in column.not_after or []:
        values, known = _moments(state, source, data)
        if column_kind(state.spec, state.name, source) == "date":
            values = values + DAY - 1
        top = np.where(known, np.minimum(top, values), top)
    low, high = (column.low or 0.0) * 3600, (column.high if column.high is not None else 24.0) * 3600
    share = np.clip((offsets - low) / max(high - low, 1.0), 0.0, 1.0)
    room = np.maximum(top - base - low, 0)
    squeezed = base + np.minimum(low, np.maximum(top - base, 0)) + (share * room).astype(np.int64)
    return np.where(out > top, np.minimum(squeezed, top), out)


def _moments(state: TableState, source: str, data: Columns) -> tuple[np.ndarray, np.ndarray]:
    """A time column of the row (or `key.column` through its keys) in seconds, and where it is known (an optional key
    on the way may be empty)."""
    if "." in source:
        via, of = source.split(".", 1)
        values = state.through(via, of, data)
    else:
        values = data[source]
    present = (
        np.ones(len(values), dtype=bool)
        if values.dtype != object
        else np.array([v is not None for v in values.tolist()], dtype=bool)
    )
    seconds_of = np.zeros(len(values), dtype=np.int64)
    seconds_of[present] = values[present].astype(np.int64)
    if column_kind(state.spec, state.name, source) == "date":
        seconds_of = seconds_of * DAY
    return seconds_of, present


def _deferred(table: Table, name: str, column: Column) -> int:
    """Generation pass of a column: 0 plain, 1 constrained foreign (needs the stamp and other keys), 2 columns
    read through keys or by category ranges, 3 keys chosen at a time of their own (`at`) with `after` columns (once
    planted events are applied), 4 columns read through those keys."""
    if column.kind == "after" or (column.kind == "foreign" and table.late(name)):
        return 3
    if column.kind == "inherit" and table.late(column.via or ""):
        return 4
    constrained = column.follows or column.until or column.where or column.match or column.empty is not None
    if column.kind == "foreign" and constrained:
        return 1
    return 2 if column.kind == "inherit" or column.ranges else 0


def _plant(spec: Spec, name: str, data: Columns, stamp: str | None, rng: np.random.Generator) -> Columns:
    for event, sliced, factor in spec.touched(name):
        if stamp is None:
            raise FormatError(f"planted event '{event.name}': table {name} needs a timestamp column")
        lo, hi = seconds(event.start), seconds(event.end) + DAY
        times = data[stamp]
        in_window = (times >= lo) & (times < hi)
        in_slice = data[event.column] == event.value if sliced else np.ones(len(times), dtype=bool)
        hit = np.flatnonzero(in_slice & in_window)
        if not len(hit) and event.kind != "shift":
            continue
        # a spike is sized from the expected slice (window rows x slice share), not the sampled hits
        expected = int(in_window.sum()) * float(in_slice.mean())
        if event.kind == "shift":
            others = np.flatnonzero(~in_slice & in_window)
            moved = min(len(others), max(0, round(expected * factor) - len(hit)))
            column = data[event.column].copy()
            column[rng.choice(others, size=moved, replace=False)] = event.value
            data[event.column] = column
        elif factor >= 1:
            extra = rng.choice(hit, size=round(expected * (factor - 1)), replace=True)
            if not len(extra):  # a factor of 1, or too near it for a whole row: nothing to copy
                continue
            data = {c: np.concatenate([v, v[extra]]) for c, v in data.items()}
            # later the same day, never earlier: a copy must not predate the parents its row was drawn after
            rest = DAY - times[extra] % DAY
            data[stamp][-len(extra) :] = times[extra] + (rng.random(len(extra)) * rest).astype(np.int64)
            order = np.argsort(data[stamp], kind="stable")
            data = {c: v[order] for c, v in data.items()}
        else:
            drop = rng.choice(hit, size=round(len(hit) * (1 - factor)), replace=False)
            keep = np.setdiff1d(np.arange(len(times)), drop)
            data = {c: v[keep] for c, v in data.items()}
    return data


def _apply_rules(spec: Spec, name: str, data: Columns, types: dict[str, str]) -> None:
    n = len(next(iter(data.values())))
    for rule in spec.rules:
        if rule.table != name:
            continue
        # numbers read through an optional key are None where it is empty: NaN compares and computes as SQL's NULL
        frame = {
            c: v.astype(float) if v.dtype == object and types.get(c) in ("int", "float") else v for c, v in data.items()
        }
        try:
            result = _value(rule.otherwise, frame, n)
            decided = np.zeros(n, dtype=bool)
            for case in rule.branches():
                hit = evaluate(case.when, frame, n).astype(bool) & ~decided
                value = _value(case.then, frame, n)
                if result.dtype != value.dtype:
                    result, value = result.astype(object), value.astype(object)
                result = np.where(hit, value, result)
                decided |= hit
        except FormatError as error:
            raise FormatError(f"spec '{spec.name}': rule '{rule.name}' cannot be applied: {error}") from None
        data[rule.column] = _typed(result, types[rule.column])


def _value(value: Any, data: Columns, n: int) -> np.ndarray:
    if isinstance(value, dict):
        out = evaluate(str(value["expr"]), data, n).astype(float)
        return np.round(out, value["round"]) if value.get("round") is not None else out
    return np.full(n, value, dtype=object if value is None or isinstance(value, str) else None)


def _cause_rows(spec: Spec, name: str, next_key: int, types: dict[str, str]) -> Columns | None:
    rows = [event.cause.get("row", {}) for event in spec.planted if event.cause.get("table") == name]
    if not rows:
        return None
    table = spec.tables[name]
    data: Columns = {}
    for column in table.columns:
        values = []
        for i, row in enumerate(rows):
            if column == table.primary_key and column not in row:
                values.append(next_key + i)
            else:
                values.append(_coerce(row.get(column), types[column]))
        data[column] = _typed(np.array(values, dtype=object), types[column])
    return data


def table_state(
    spec: Spec, index: int, name: str, scale: float, seed: int, kept: dict[str, Columns], calendar: Calendar
) -> TableState:
    """The generation state of the `index`-th table in `table_order` (its parents' kept columns in `kept`)."""
    return TableState(spec, name, index, table_rows(spec, name, scale), seed, kept, calendar)


def table_rows(spec: Spec, name: str, scale: float) -> int:
    """The rows a table has at `scale`."""
    table = spec.tables[name]
    return max(1, round(table.rows * (scale if table.scaled else 1.0)))


def table_def(state: TableState) -> TableDef:
    """The table as the writers see it."""
    table = state.spec.tables[state.name]
    references = {c: col.ref.replace(".", "(") + ")" for c, col in table.columns.items() if col.ref}
    return TableDef(state.name, state.types, table.primary_key, references)


def draw_chunk(
    state: TableState, number: int, start: int, size: int, day_counts: np.ndarray | None
) -> tuple[Columns, int]:
    """Chunk `number` of a table and its row count, every random column drawn (keys not yet numbered, rules not
    yet applied); it depends only on the seed, the table and the chunk, not on the chunks drawn before it."""
    spec, name = state.spec, state.name
    table = spec.tables[name]
    state.prepare()
    rng = np.random.default_rng([state.seed, state.index, number])
    state.number, state.moved = number, False
    data: Columns = {}
    for stage in (0, 1, 2):
        for column_name, column in table.columns.items():
            if column.kind == "sequence" or _deferred(table, column_name, column) != stage:
                continue
            try:
                data[column_name] = _column(state, column_name, column, start, size, day_counts, rng, data)
            except (KeyError, ValueError) as error:
                raise FormatError(f"spec '{spec.name}' column {name}.{column_name}: {error}") from None
    if state.moved and state.stamp:
        # rows moved after their parent keep the table in time order
        order = np.argsort(data[state.stamp], kind="stable")
        data = {c: v[order] for c, v in data.items()}
        state.moved = False
    data = _plant(spec, name, data, state.stamp, rng)
    rows = len(next(iter(data.values()))) if data else size
    _timed(state, data, rng, rows)
    for column_name, column in table.columns.items():
        if _deferred(table, column_name, column) == 4:
            data[column_name] = _column(state, column_name, column, start, rows, None, rng, data)
    return data, rows


def _timed(state: TableState, data: Columns, rng: np.random.Generator, rows: int) -> None:
    """The `after` columns and the keys chosen at a time of their own, each once what it reads is final: an `after`
    column waits for its bases and for the keys that may move them, a key for the time it is chosen at."""
    table = state.spec.tables[state.name]
    pending = [c for c, column in table.columns.items() if _deferred(table, c, column) == 3]
    movers: dict[str, set[str]] = {}
    for name in pending:
        if table.columns[name].kind == "foreign":
            movers.setdefault(str(table.columns[name].at), set()).add(name)
    limit = seconds(state.spec.anchor)
    while pending:
        for name in pending:
            column = table.columns[name]
            if column.kind == "after":
                own = [column.of or ""] if not column.via else []
                bounds = [*(column.not_before or []), *(column.not_after or [])]
                own += [b for b in bounds if "." not in b]
                # keys chosen at a time of their own are read once chosen
                keys = [column.via or "", *(b.split(".")[0] for b in bounds if "." in b)]
                needs = set(own).union(*(movers.get(b, set()) for b in own)) | {k for k in keys if k and table.late(k)}
            else:
                needs = {str(column.at).split(".")[0]} if column.at else set()
                needs |= {str(column.match["via"])} if column.match else set()
            if needs <= set(data):
                break
        else:
            raise FormatError(f"spec '{state.spec.name}' table {state.name}: {', '.join(pending)} wait on each other")
        pending.remove(name)
        try:
            if column.kind == "after":
                data[name] = _after(state, name, column, data, rng, limit)
            else:
                data[name] = _column(state, name, column, 0, rows, None, rng, data)
        except (KeyError, ValueError) as error:
            raise FormatError(f"spec '{state.spec.name}' column {state.name}.{name}: {error}") from None


def finish_chunk(state: TableState, data: Columns, rows: int, first_key: int) -> Columns:
    """A drawn chunk numbered from `first_key` (sequences) with the rules applied, in the table's column order."""
    table = state.spec.tables[state.name]
    for column_name, column in table.columns.items():
        if column.kind == "sequence":
            data[column_name] = np.arange(first_key, first_key + rows, dtype=np.int64)
    _apply_rules(state.spec, state.name, data, state.types)
    return {c: data[c] for c in table.columns}


def cause_rows(state: TableState, next_key: int) -> Columns | None:
    """The rows planted events name as their causes in this table (appended after its last chunk), or None. A cause
    row that names no parent for a key with a lifetime (`follows`, `until`) gets one alive at the row's time."""
    data = _cause_rows(state.spec, state.name, next_key, state.types)
    if data is None:
        return None
    rows = [event.cause.get("row", {}) for event in state.spec.planted if event.cause.get("table") == state.name]
    rng = np.random.default_rng([state.seed, state.index, CAUSES_STREAM])
    for name, column in state.spec.tables[state.name].columns.items():
        missing = np.flatnonzero([name not in row for row in rows])
        if column.kind != "foreign" or not (column.follows or column.until) or not len(missing):
            continue
        state.prepare()
        parent, key = (column.ref or ".").split(".")
        at = column.at or state.stamp or ""
        stated = data.get(at)
        chosen, _ = state.pickers[name].pick(data, rng, len(missing), missing, None, state.through)
        if stated is not None:
            data[at] = stated  # a cause's time is the spec's: only its parent is chosen
        keys = np.array(data[name], dtype=object)
        keys[missing] = state.kept[parent][key][chosen].tolist()
        data[name] = _typed(keys, state.types[name])
    return data
