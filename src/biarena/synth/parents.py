"""Pool, Groups and Picker: how a foreign key chooses its parents, in proportion to their weights, among those that
existed before the row (`follows`), satisfy a condition (`where`) or agree with another parent (`match`)."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from biarena.errors import FormatError
from biarena.synth.expression import evaluate
from biarena.synth.schema import DAY, Columns, column_type
from biarena.synth.spec import Column, Spec


@dataclass
class Pool:
    """Parents eligible for a foreign column, ordered by time, with cumulative weights for drawing."""

    rows: np.ndarray
    times: np.ndarray | None
    cumulative: np.ndarray

    @classmethod
    def of(cls, rows: np.ndarray, times: np.ndarray | None, weights: np.ndarray) -> "Pool":
        """A pool of parent rows (time-ordered when `times` is given)."""
        if times is not None:
            order = np.argsort(times[rows], kind="stable")
            rows = rows[order]
        return cls(rows, None if times is None else times[rows], np.cumsum(weights[rows]))

    def draw(self, rng: np.random.Generator, moments: np.ndarray | None, lag: int, n: int) -> np.ndarray:
        """`n` parent rows in proportion to weight, each existing `lag` seconds before its moment if possible."""
        if self.times is None or moments is None:
            limit = np.full(n, len(self.rows))
        else:
            limit = np.maximum(np.searchsorted(self.times, moments - lag, side="right"), 1)
        picked = np.searchsorted(self.cumulative, rng.random(n) * self.cumulative[limit - 1], side="right")
        return self.rows[np.minimum(picked, limit - 1)]


@dataclass
class Groups:
    """Eligible parents by the value of a `match` column: one pool per value (time-ordered, weighted) laid end to
    end, so a chunk's rows draw from their own values' pools at once, in time linear in the rows."""

    keys: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    rows: np.ndarray
    cumulative: np.ndarray
    stamps: np.ndarray | None
    """Per parent: its value's position times `span` plus its time after `earliest`; one search then finds a
    value's parents that existed before a moment."""
    earliest: int
    span: int

    @classmethod
    def of(cls, rows: np.ndarray, values: np.ndarray, times: np.ndarray | None, weights: np.ndarray) -> "Groups":
        """The pools of parent `rows` by their value, each time-ordered when `times` is given."""
        keys, codes = np.unique(values[rows], return_inverse=True)
        codes = codes.reshape(-1)
        order = np.argsort(codes, kind="stable") if times is None else np.lexsort((times[rows], codes))
        rows, codes = rows[order], codes[order]
        bounds = np.searchsorted(codes, np.arange(len(keys) + 1))
        stamps, earliest, span = None, 0, 1
        if times is not None:
            at = times[rows].astype(np.int64)
            earliest, span = int(at.min()), int(at.max() - at.min()) + 2
            stamps = codes.astype(np.int64) * span + (at - earliest)
        return cls(keys, bounds[:-1], bounds[1:], rows, np.cumsum(weights[rows]), stamps, earliest, span)

    def draw(
        self, rng: np.random.Generator, targets: np.ndarray, moments: np.ndarray | None, lag: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The positions of the targets that name a value with parents, and a parent row for each: drawn in
        proportion to weight among that value's parents existing `lag` seconds before the moment (else its first),
        value by value in key order, as one draw per value would."""
        positions = np.arange(len(targets))
        if targets.dtype == object:
            present = np.array([t is not None for t in targets.tolist()], dtype=bool)
            positions, targets = positions[present], targets[present]
            if self.keys.dtype != object:
                targets = targets.astype(self.keys.dtype)
        code = np.minimum(np.searchsorted(self.keys, targets), len(self.keys) - 1)
        found = np.asarray(self.keys[code] == targets, dtype=bool)
        positions, code = positions[found], code[found]
        order = np.argsort(code, kind="stable")
        positions, code = positions[order], code[order]
        start, limit = self.starts[code], self.ends[code]
        if self.stamps is not None and moments is not None:
            since = np.clip(moments[positions].astype(np.int64) - lag - self.earliest, -1, self.span - 2)
            limit = np.searchsorted(self.stamps, code.astype(np.int64) * self.span + since, side="right")
            limit = np.maximum(limit, start + 1)
        base = np.where(start > 0, self.cumulative[np.maximum(start - 1, 0)], 0.0)
        wanted = base + rng.random(len(positions)) * (self.cumulative[limit - 1] - base)
        picked = np.searchsorted(self.cumulative, wanted, side="right")
        return positions, self.rows[np.clip(picked, start, limit - 1)]


@dataclass
class Picker:
    """How a constrained foreign column chooses parents: by time (`follows`), condition (`where`), `match`."""

    column: Column
    times: np.ndarray | None
    everyone: Pool
    groups: Groups | None

    @classmethod
    def of(cls, spec: Spec, table: str, column: Column, parents: Columns, weights: np.ndarray | None) -> "Picker":
        """The picker of a foreign column of `table`, choosing among its parent table's kept columns `parents`."""
        parent, _ = (column.ref or ".").split(".")
        n = len(next(iter(parents.values())))
        times = None
        if column.follows:
            times = parents[column.follows].astype(np.int64)
            if column_type(spec, parent, column.follows) == "date":
                times = times * DAY
        eligible = np.ones(n, dtype=bool)
        if column.where:
            try:
                eligible = evaluate(column.where, parents, n).astype(bool)
            except FormatError as error:
                raise FormatError(f"spec '{spec.name}' column {table}: where: {error}") from None
            if not eligible.any():
                raise FormatError(f"spec '{spec.name}' column {table}: no parent satisfies {column.where}")
        weights = np.ones(n) if weights is None else weights
        rows = np.flatnonzero(eligible)
        groups = Groups.of(rows, parents[str(column.match["column"])], times, weights) if column.match else None
        return cls(column, times, Pool.of(rows, times, weights), groups)

    def pick(
        self,
        data: Columns,
        rng: np.random.Generator,
        n: int,
        subset: np.ndarray | None,
        stamp: str | None,
        through: Callable[[str, str, Columns], np.ndarray],
    ) -> tuple[np.ndarray, bool]:
        """Parent rows for `n` rows of a chunk (all, or the positions in `subset`), and whether any row was moved:
        rows older than every eligible parent are moved after it (in `data[stamp]`). `through(via, column, data)`
        reads the values a `match` compares with."""
        moments = data[stamp] if self.times is not None and stamp else None
        if moments is not None and subset is not None:
            moments = moments[subset]
        lag = int((self.column.low or 0.0) * 3600)
        chosen = self.everyone.draw(rng, moments, lag, n)
        if self.column.match and self.groups is not None:
            match = self.column.match
            target = through(str(match["via"]), str(match.get("of", match["column"])), data)
            if subset is not None:
                target = target[subset]
            rows = np.flatnonzero(rng.random(n) < float(match.get("share", 1.0)))
            at, parents = self.groups.draw(rng, target[rows], None if moments is None else moments[rows], lag)
            chosen[rows[at]] = parents
        moved = False
        if moments is not None and self.times is not None:
            earliest = self.times_of(chosen) + lag
            if (earliest > moments).any():
                if subset is None:
                    data[stamp] = np.maximum(moments, earliest)
                else:
                    data[stamp] = data[stamp].copy()
                    data[stamp][subset] = np.maximum(moments, earliest)
                moved = True
        return chosen, moved

    def times_of(self, rows: np.ndarray) -> np.ndarray:
        """The parents' times (seconds)."""
        return (self.times if self.times is not None else np.zeros(0, dtype=np.int64))[rows]
