"""fetch_capped: rows from a DB-API cursor within a row cap, a byte cap, a per-value cap and a deadline.

It imports nothing heavy: the engine processes load it without the rest of the package.
"""

import math
import time
from typing import Any

from biarena.db.errors import SqlTimeout, SqlTooLarge
from biarena.db.limits import format_size

CELL_OVERHEAD = 16
"""Bytes every value counts beside its own (its text or blob length, or 8 for anything else, NULL included): what
holding it in a row costs. Without it a result of empty strings or NULLs counts nothing against the byte cap, and
100,000 rows of 2,000 empty columns fill gigabytes with references."""

BATCH_CELLS = 65_536
"""Most values one fetch asks for: a wide result comes a few rows at a time, so the byte cap and the deadline are
checked between small fetches (on a server, small round trips of its cursor)."""

_MAX_BATCH = 2048


def _other_bytes(value: Any) -> int:
    if isinstance(value, str | bytes | bytearray | memoryview):
        return len(value)
    if isinstance(value, list | tuple | set | frozenset):
        return 8 + sum(CELL_OVERHEAD + _other_bytes(v) for v in value)
    if isinstance(value, dict):
        return 8 + sum(2 * CELL_OVERHEAD + _other_bytes(k) + _other_bytes(v) for k, v in value.items())
    return 8


def _row_bytes(row: tuple, columns: list[str], max_cell: float) -> int:
    size = CELL_OVERHEAD * len(row)
    for index, value in enumerate(row):
        kind = type(value)
        if kind is int or kind is float or value is None:
            size += 8
            continue
        n = len(value) if kind is str or kind is bytes else _other_bytes(value)
        if n > max_cell:
            name = columns[index] if index < len(columns) else f"#{index + 1}"
            raise SqlTooLarge(
                f"a value in column '{name}' is {format_size(n)}, over the {format_size(int(max_cell))} per-value limit"
            )
        size += n
    return size


def fetch_capped(
    cursor: Any,
    max_rows: int,
    *,
    max_bytes: int | None = None,
    max_cell: int | None = None,
    columns: list[str] | None = None,
    deadline: float | None = None,
    short_batch_ends: bool = False,
) -> tuple[list[tuple], str | None]:
    """Fetch at most `max_rows` rows and `max_bytes` of values from a DB-API cursor.

    Returns the rows and which cap cut them ('rows', 'bytes' or None); a value over `max_cell` raises SqlTooLarge,
    and a fetch that would start past `deadline` (a time.monotonic() reading) raises SqlTimeout. Values count as
    CELL_OVERHEAD says. Rows come in batches sized so that one batch stays a small part of the byte cap.
    `short_batch_ends` says that the cursor's fetchmany returns fewer rows than asked only when the result has no more
    (DuckDB's does), so a short batch ends the fetch without another call (DuckDB's costs as much as a small fetch).
    """
    if max_rows < 0:
        return [], None
    byte_cap = max_bytes if max_bytes is not None else math.inf
    cell_cap = max_cell if max_cell is not None else math.inf
    names = columns or []
    widest = max(1, len(names))
    rows: list[tuple] = []
    used = 0
    batch = 16
    while len(rows) <= max_rows:
        if deadline is not None and time.monotonic() > deadline:
            raise SqlTimeout("statement interrupted while its rows were fetched")
        asked = max(1, min(batch, BATCH_CELLS // widest, max_rows + 1 - len(rows)))
        fetched = cursor.fetchmany(asked)
        if not fetched:
            break
        for raw in fetched:
            row = tuple(raw)
            size = _row_bytes(row, names, cell_cap)
            if used + size > byte_cap:
                return rows[:max_rows], "bytes" if len(rows) <= max_rows else "rows"
            used += size
            rows.append(row)
        if short_batch_ends and len(fetched) < asked:
            break
        average = max(1, used // max(1, len(rows)))
        batch = int(max(1, min(_MAX_BATCH, (byte_cap - used) / average / 8))) if byte_cap != math.inf else _MAX_BATCH
    if len(rows) > max_rows:
        return rows[:max_rows], "rows"
    return rows, None
