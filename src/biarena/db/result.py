"""QueryResult: the rows a statement returned."""

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class QueryResult:
    """Column names and rows of one statement, capped at the row limit."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool = False
    elapsed: float = 0.0
    executed_sql: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def row_count(self) -> int:
        """Rows held (at most the row cap)."""
        return len(self.rows)

    def column_values(self) -> list[list[Any]]:
        """Return the result column by column."""
        if not self.rows:
            return [[] for _ in self.columns]
        return [list(col) for col in zip(*self.rows, strict=True)]
