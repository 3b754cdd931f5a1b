"""The drawing kernel: a table's generation state (`TableState`, over the spec's `Calendar`), its chunks drawn each
from its own random stream (`draw_chunk`), numbered and ruled (`finish_chunk`), and the rows planted events name as
causes (`cause_rows`). The serial generator and the partition writer both draw through it.

Category shares are exact: the table's counts are fixed up front and split among its chunks without replacement
before any chunk is drawn (and so is the share of rows an optional key leaves empty). Each chunk has its own random
stream (seed, table, chunk), so it can be drawn on its own, in any order or process. Seasonal density is exact per
month. Rules are evaluated on each chunk before it is written.
"""

from typing import Any

import numpy as np

from biarena.errors import FormatError
from biarena.synth.column_draw import after_column, deferred_stage, draw_column
from biarena.synth.expression import evaluate
from biarena.synth.faker_pools import FAKER_BLOCK, FAKER_POOL, PoolBlock, assemble_pools, faker_block, pool_blocks
from biarena.synth.schema import DAY, Columns, seconds
from biarena.synth.spec import Spec
from biarena.synth.table_state import Calendar, TableState, coerce, typed
from biarena.synth.writers import TableDef

__all__ = [
    "FAKER_BLOCK",
    "FAKER_POOL",
    "Calendar",
    "PoolBlock",
    "TableState",
    "assemble_pools",
    "cause_rows",
    "draw_chunk",
    "faker_block",
    "finish_chunk",
    "pool_blocks",
    "table_def",
    "table_rows",
    "table_state",
]

CAUSES_STREAM = 2**40 + 1
"""The random stream that chooses the parents a planted event's cause row leaves to the generator."""


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
        data[rule.column] = typed(result, types[rule.column])


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
                values.append(coerce(row.get(column), types[column]))
        data[column] = typed(np.array(values, dtype=object), types[column])
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
            if column.kind == "sequence" or deferred_stage(table, column_name, column) != stage:
                continue
            try:
                data[column_name] = draw_column(state, column_name, column, start, size, day_counts, rng, data)
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
        if deferred_stage(table, column_name, column) == 4:
            data[column_name] = draw_column(state, column_name, column, start, rows, None, rng, data)
    return data, rows


def _timed(state: TableState, data: Columns, rng: np.random.Generator, rows: int) -> None:
    """The `after` columns and the keys chosen at a time of their own, each once what it reads is final: an `after`
    column waits for its bases and for the keys that may move them, a key for the time it is chosen at."""
    table = state.spec.tables[state.name]
    pending = [c for c, column in table.columns.items() if deferred_stage(table, c, column) == 3]
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
                data[name] = after_column(state, name, column, data, rng, limit)
            else:
                data[name] = draw_column(state, name, column, 0, rows, None, rng, data)
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
        data[name] = typed(keys, state.types[name])
    return data
