"""Pool, Groups and Picker: how a foreign key chooses its parents, in proportion to their weights, among those alive at
the row's time (existing since `follows`, still valid until `until`), satisfying a condition (`where`) or agreeing with
another parent (`match`)."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from biarena.errors import FormatError
from biarena.synth.expression import evaluate
from biarena.synth.schema import DAY, Columns, column_type
from biarena.synth.spec import Column, Spec, column_kind

REDRAWS = 20
"""Rounds of drawing again, among the parents that existed by then, for rows whose parent had already expired; the
few rows still without a valid parent are drawn one by one among the valid ones."""


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
    """How a constrained foreign column chooses parents: by time (`follows`, `until`), condition (`where`), `match`."""

    column: Column
    times: np.ndarray | None
    everyone: Pool
    groups: Groups | None
    ends: np.ndarray | None = None
    """Per parent: the last second it is valid (`until`), or None."""
    at: str | None = None
    """The row's time column the parent must be alive at (`at`, else the table's timestamp)."""
    dated: bool = False
    """Whether that column holds dates (days) rather than seconds."""
    lagged: bool = False
    """Whether that column is an `after` column, whose lag moving it would break."""

    @classmethod
    def of(cls, spec: Spec, table: str, column: Column, parents: Columns, weights: np.ndarray | None) -> "Picker":
        """The picker of a foreign column of `table`, choosing among its parent table's kept columns `parents`."""
        parent, _ = (column.ref or ".").split(".")
        n = len(next(iter(parents.values())))
        times = None if not column.follows else _seconds(spec, parent, column.follows, parents, start=True)
        ends = None if not column.until else _seconds(spec, parent, column.until, parents, start=False)
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
        at = column.at or spec.tables[table].stamp
        dated = at is not None and column_kind(spec, table, at) == "date"
        lagged = at is not None and "." not in at and spec.tables[table].columns[at].kind == "after"
        return cls(column, times, Pool.of(rows, times, weights), groups, ends, at, dated, lagged)

    def pick(
        self,
        data: Columns,
        rng: np.random.Generator,
        n: int,
        subset: np.ndarray | None,
        stamp: str | None,
        through: Callable[[str, str, Columns], np.ndarray],
    ) -> tuple[np.ndarray, bool]:
        """Parent rows for `n` rows of a chunk (all, or the positions in `subset`), and whether the table's timestamp
        was moved: a row no eligible parent is alive at moves into the lifetime of the nearest (in `data[at]`).
        `through(via, column, data)` reads the values a `match` compares with."""
        at, through_key = self.at, self.at is not None and "." in self.at
        if at is not None and (at.split(".")[0] if through_key else at) not in data:
            at = None
        bounded = self.times is not None or self.ends is not None
        moments = None
        if bounded and at is not None:
            values = through(*at.split(".", 1), data) if through_key else data[at]
            moments = values.astype(np.int64) * (DAY if self.dated else 1)
            if subset is not None:
                moments = moments[subset]
        lag = int((self.column.low or 0.0) * 3600)
        chosen = self.everyone.draw(rng, None if self.times is None else moments, lag, n)
        if self.column.match and self.groups is not None:
            match = self.column.match
            target = through(str(match["via"]), str(match.get("of", match["column"])), data)
            if subset is not None:
                target = target[subset]
            rows = np.flatnonzero(rng.random(n) < float(match.get("share", 1.0)))
            at_rows = None if moments is None or self.times is None else moments[rows]
            found, parents = self.groups.draw(rng, target[rows], at_rows, lag)
            chosen[rows[found]] = parents
            if self.lagged and at_rows is not None and self.times is not None:
                # no parent of the row's value was alive yet, and its time keeps its lag: it matches none
                stuck = rows[found][self.times[parents] + lag > at_rows[found]]
                if len(stuck):
                    chosen[stuck] = self.everyone.draw(rng, moments[stuck], lag, len(stuck))
        if moments is None or at is None:
            return chosen, False
        if self.ends is not None:
            chosen = self._valid_until(rng, chosen, moments, lag)
        fixed = moments
        if self.times is not None:
            fixed = np.maximum(fixed, self.times[chosen] + lag)
        if self.ends is not None:
            fixed = np.minimum(fixed, self.ends[chosen])
        changed = fixed != moments
        if through_key or not changed.any():  # a time read through a key is the other parent's: it stays
            return chosen, False
        if self.dated:
            # a date moved after its parent's start is the next whole day; one moved before an end, that end's day
            later = fixed > moments
            fixed = np.where(later, -(-fixed // DAY), fixed // DAY)
        column = data[at].copy()
        if subset is None:
            column[changed] = fixed[changed]
        else:
            column[subset[changed]] = fixed[changed]
        data[at] = column
        return chosen, at == stamp

    def _valid_until(self, rng: np.random.Generator, chosen: np.ndarray, moments: np.ndarray, lag: int) -> np.ndarray:
        """The chosen parents with those expired by their row's moment drawn again among the parents alive then (in
        proportion to weight); a row no parent is alive at keeps the one valid the longest."""
        ends = self.ends if self.ends is not None else np.zeros(0, dtype=np.int64)
        early = None if self.times is None else moments
        for _ in range(REDRAWS):
            bad = np.flatnonzero(ends[chosen] < moments)
            if not len(bad):
                return chosen
            chosen[bad] = self.everyone.draw(rng, None if early is None else early[bad], lag, len(bad))
        pool = self.everyone
        for row in np.flatnonzero(ends[chosen] < moments):
            limit = len(pool.rows)
            if pool.times is not None:
                limit = max(int(np.searchsorted(pool.times, moments[row] - lag, side="right")), 1)
            candidates = pool.rows[:limit]
            alive = candidates[ends[candidates] >= moments[row]]
            if not len(alive):
                chosen[row] = candidates[np.argmax(ends[candidates])]
                continue
            weight = np.diff(np.concatenate([[0.0], pool.cumulative[:limit]]))[ends[candidates] >= moments[row]]
            picked = np.searchsorted(np.cumsum(weight), rng.random() * weight.sum(), side="right")
            chosen[row] = alive[min(int(picked), len(alive) - 1)]
        return chosen

    def stranded(
        self, data: Columns, chosen: np.ndarray, through: Callable[[str, str, Columns], np.ndarray]
    ) -> np.ndarray:
        """Which rows' chosen parents are not alive at the row's time (only a time read through a key is left so)."""
        if self.at is None or (self.times is None and self.ends is None):
            return np.zeros(len(chosen), dtype=bool)
        values = through(*self.at.split(".", 1), data) if "." in self.at else data[self.at]
        moments = values.astype(np.int64) * (DAY if self.dated else 1)
        lag = int((self.column.low or 0.0) * 3600)
        out = np.zeros(len(chosen), dtype=bool)
        if self.times is not None:
            out |= self.times[chosen] + lag > moments
        if self.ends is not None:
            out |= self.ends[chosen] < moments
        return out

    def times_of(self, rows: np.ndarray) -> np.ndarray:
        """The parents' times (seconds)."""
        return (self.times if self.times is not None else np.zeros(0, dtype=np.int64))[rows]


def _seconds(spec: Spec, parent: str, name: str, parents: Columns, *, start: bool) -> np.ndarray:
    """A parent time column in seconds: a start date is its midnight, an end date the last second of its day."""
    values = parents[name].astype(np.int64)
    if column_type(spec, parent, name) != "date":
        return values
    return values * DAY if start else values * DAY + DAY - 1
