"""A table's generation state (`TableState`) over the spec's active days (`Calendar`), shared by its chunks."""

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import numpy as np

from biarena.errors import FormatError
from biarena.synth.calendar import active_days, allocate, allocate_days, density
from biarena.synth.expression import evaluate
from biarena.synth.faker_pools import assemble_pools, faker_block, pool_blocks
from biarena.synth.parents import Picker
from biarena.synth.schema import EPOCH, Columns, column_type, seconds
from biarena.synth.spec import Column, Spec

SHARES_STREAM = 2**40
"""The random stream (beside the chunks' streams, numbered from 0) that splits a table's exact shares among its
chunks before any chunk is drawn, so that any chunk can be drawn on its own, in any order."""


def coerce(value: Any, kind: str) -> Any:
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


def typed(values: np.ndarray, kind: str) -> np.ndarray:
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
            present = present_mask(values)
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


def present_mask(values: np.ndarray) -> np.ndarray | None:
    """Where an array of keys holds a value, or None when it has no empty entry."""
    if values.dtype != object:
        return None
    present = np.array([v is not None for v in values.tolist()], dtype=bool)
    return None if present.all() else present
