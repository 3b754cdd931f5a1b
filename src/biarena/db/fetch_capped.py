"""fetch_capped: rows from a DB-API cursor within a row cap, a byte cap, a per-value cap and a deadline.

It imports nothing heavy: the engine processes load it without the rest of the package.
"""

import math
import time
from typing import Any

from biarena.db.errors import SqlTimeout, SqlTooLarge
from biarena.db.held_size import CELL_OVERHEAD, held_size
from biarena.db.limits import format_size

__all__ = ["BATCH_CELLS", "CELL_OVERHEAD", "ResultFull", "fetch_capped"]

BATCH_CELLS = 65_536
"""Most values one fetch asks for: a wide result comes a few rows at a time, so the byte cap and the deadline are
checked between small fetches (on a server, small round trips of its cursor)."""

_MAX_BATCH = 2048


class ResultFull(Exception):
    """Raised by a cursor's rows when the next row would pass the byte cap by the engine's own measure (a server that
    sizes each row before sending it): the rows so far are the result, cut by bytes."""


def too_large(column: str, size: int | None, limit: float) -> SqlTooLarge:
    """The error for a value of `size` bytes in `column` (None: sized only as far as past the limit), over `limit`."""
    what = f"is {format_size(size)}, over" if size is not None else "holds more than"
    return SqlTooLarge(f"a value in column '{column}' {what} the {format_size(int(limit))} per-value limit")


def _row_bytes(row: tuple, columns: list[str], max_cell: float) -> int:
    size = CELL_OVERHEAD * len(row)
    for index, value in enumerate(row):
        kind = type(value)
        if kind is float or value is None or (kind is int and value.bit_length() < 64):
            size += 8
            continue
        exact = kind is str or kind is bytes
        n = len(value) if exact else held_size(value, max_cell)
        if n > max_cell:
            raise too_large(columns[index] if index < len(columns) else f"#{index + 1}", n if exact else None, max_cell)
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
    held_size says, each CELL_OVERHEAD more. Rows come in batches sized so that one batch stays a small part of the
    byte cap. A batch may be an iterator that yields its rows as they arrive (closed, when it has `close`, once the
    caps stop the fetch), and may raise ResultFull: the result is then cut by bytes.
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
        got = 0
        try:
            for raw in fetched:
                got += 1
                row = tuple(raw)
                size = _row_bytes(row, names, cell_cap)
                if used + size > byte_cap:
                    return rows[:max_rows], "bytes" if len(rows) <= max_rows else "rows"
                used += size
                rows.append(row)
        except ResultFull:
            return rows[:max_rows], "bytes" if len(rows) <= max_rows else "rows"
        finally:
            close = getattr(fetched, "close", None)
            if close is not None:
                close()
        if not got or (short_batch_ends and got < asked):
            break
        average = max(1, used // max(1, len(rows)))
        batch = int(max(1, min(_MAX_BATCH, (byte_cap - used) / average / 8))) if byte_cap != math.inf else _MAX_BATCH
    if len(rows) > max_rows:
        return rows[:max_rows], "rows"
    return rows, None
