"""QueryResult: the rows a statement returned."""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class QueryResult:
    """Column names and rows of one statement, capped at the row limit."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool = False
    elapsed: float = 0.0
    executed_sql: str = ""

    @property
    def row_count(self) -> int:
        """Rows held (at most the row cap)."""
        return len(self.rows)
