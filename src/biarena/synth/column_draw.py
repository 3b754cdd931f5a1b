"""One column of a chunk drawn: numbers, categories, keys to a parent alive at the row's time, Faker values, and
times after (and bounded by) other times."""

import numpy as np

from biarena.errors import FormatError
from biarena.synth.faker_pools import FAKER_POOL
from biarena.synth.schema import DAY, EPOCH, Columns, seconds
from biarena.synth.spec import Column, Table, column_kind
from biarena.synth.table_state import TableState, coerce

REKEYS = 20
"""Rounds of drawing again the key a time is read through, for rows no parent is alive at that time."""


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


def draw_column(
    state: TableState, name: str, column: Column, start: int, n: int, day_counts: np.ndarray | None, rng, data: Columns
) -> np.ndarray:
    kind = column.kind
    if kind == "sequence":
        return np.arange(start + 1, start + n + 1, dtype=np.int64)
    if kind == "constant":
        return np.full(n, coerce(column.value, state.types[name]), dtype=object if column.value is None else None)
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
        keys[stranded] = draw_column(state, via, table.columns[via], 0, len(stranded), None, rng, data)
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


def after_column(
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


def deferred_stage(table: Table, name: str, column: Column) -> int:
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
