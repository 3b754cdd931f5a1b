"""fetch_capped: rows from a DB-API cursor within a row cap, a byte cap and a per-value cap.

It imports nothing heavy: the DuckDB engine process loads it without the rest of the package.
"""

import math
from typing import Any

from biarena.db.errors import SqlTooLarge
from biarena.db.limits import format_size


def _other_bytes(value: Any, max_cell: float) -> int:
    if isinstance(value, str | bytes | bytearray | memoryview):
        return len(value)
    if isinstance(value, list | tuple | set | frozenset):
        return 8 + sum(_other_bytes(v, max_cell) for v in value)
    if isinstance(value, dict):
        return 8 + sum(_other_bytes(k, max_cell) + _other_bytes(v, max_cell) for k, v in value.items())
    return 8


def _row_bytes(row: tuple, columns: list[str], max_cell: float) -> int:
    size = 0
    for index, value in enumerate(row):
        kind = type(value)
        if kind is int or kind is float or value is None:
            size += 8
            continue
        n = len(value) if kind is str or kind is bytes else _other_bytes(value, max_cell)
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
) -> tuple[list[tuple], str | None]:
    """Fetch at most `max_rows` rows and `max_bytes` of values from a DB-API cursor.

    Returns the rows and which cap cut them ('rows', 'bytes' or None); a value over `max_cell` raises SqlTooLarge.
    Rows come in batches sized so that one batch stays a small part of the byte cap.
    """
    if max_rows < 0:
        return [], None
    byte_cap = max_bytes if max_bytes is not None else math.inf
    cell_cap = max_cell if max_cell is not None else math.inf
    names = columns or []
    rows: list[tuple] = []
    used = 0
    batch = 16
    while len(rows) <= max_rows:
        fetched = cursor.fetchmany(min(batch, max_rows + 1 - len(rows)))
        if not fetched:
            break
        for raw in fetched:
            row = tuple(raw)
            size = _row_bytes(row, names, cell_cap)
            if used + size > byte_cap:
                return rows[:max_rows], "bytes" if len(rows) <= max_rows else "rows"
            used += size
            rows.append(row)
        average = max(1, used // max(1, len(rows)))
        batch = int(max(1, min(2048, (byte_cap - used) / average / 8))) if byte_cap != math.inf else 2048
    if len(rows) > max_rows:
        return rows[:max_rows], "rows"
    return rows, None
