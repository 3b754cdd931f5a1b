"""valid_sql: how many of an answer's statements ran and returned rows (the metrics' and the judges' one count)."""

from biarena.db import QueryResult
from biarena.records import Answer
from biarena.scoring.scoring_context import Outcome


def valid_sql(answer: Answer, final: Outcome | None = None) -> int:
    """Statements of the answer that ran and returned rows; an answer without steps counts its final SQL's
    outcome, when given (one place for `valid_sql` and `interaction.valid_sql`)."""
    if answer.steps:
        return sum(1 for s in answer.steps if s.ok and (s.row_count or 0) > 0)
    return int(isinstance(final, QueryResult) and final.row_count > 0)
