"""QueryResult: the rows a statement returned, and a bounded preview of them for records and prompts."""

from dataclasses import dataclass
from typing import Any

PREVIEW_CELL_CHARS = 1000
"""Longest text a preview keeps of one value."""
PREVIEW_BYTES = 64_000
"""Most text a preview holds in all (whole rows, values cut shorter when one row alone is over)."""


def preview_value(value: Any, max_chars: int = PREVIEW_CELL_CHARS) -> Any:
    """`value` as JSON can hold it, text cut to `max_chars` with a closing '…' when longer."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value)
        text = raw[: (max_chars + 1) // 2].hex()
        return text + "…" if len(raw) * 2 > max_chars else text
    text = value if isinstance(value, str) else str(value)
    return text[:max_chars] + "…" if len(text) > max_chars else text


@dataclass(frozen=True)
class QueryResult:
    """Column names and rows of one statement, capped at the row and byte limits."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool = False
    elapsed: float = 0.0
    executed_sql: str = ""
    truncated_by: str | None = None
    """Which limit cut the rows: 'rows' or 'bytes' (None when nothing was cut)."""

    @property
    def row_count(self) -> int:
        """Rows held (at most the row cap)."""
        return len(self.rows)

    def preview(
        self, max_rows: int = 20, *, max_chars: int = PREVIEW_CELL_CHARS, max_bytes: int = PREVIEW_BYTES
    ) -> list[list[Any]]:
        """The first rows as JSON values, each value cut to `max_chars` and all of them to about `max_bytes`."""
        out: list[list[Any]] = []
        used = 0
        for row in self.rows[:max_rows]:
            values = [preview_value(v, max_chars) for v in row]
            size = _size(values)
            if not out and size > max_bytes:
                values = [preview_value(v, max(16, max_bytes // max(1, len(row)))) for v in row]
                size = _size(values)
            if out and used + size > max_bytes:
                break
            out.append(values)
            used += size
        return out


def _size(values: list[Any]) -> int:
    return sum(len(v) if isinstance(v, str) else 8 for v in values)
