"""KeptRows: each answer's result rows, and its gold's, for an export (`biarena export --rows N`).

Rows come from what the run file holds, nothing is run again: the results `score` kept (whole, within the sandbox's
limits) for the answer's final SQL and the question's first gold query; an answer not scored yet has the first rows
its step recorded when it ran (a preview, at most `biarena.agents.system.PREVIEW_ROWS`). A gold not kept (a run not
scored) has no rows; gold tables given with the question (Spider 2.0's CSVs) are its rows.
"""

import contextlib
from dataclasses import dataclass
from typing import Any

from biarena.db import QueryResult, SqlProblem
from biarena.db.result import preview_value
from biarena.records import Answer, Question
from biarena.report.run_data import RunData
from biarena.runner import RunStore
from biarena.scoring.gold_results import gold_tables
from biarena.scoring.kept_results import decode_outcome

ROW_FIELDS = [
    "result_columns",
    "result_rows",
    "result_truncated",
    "result_error",
    "gold_columns",
    "gold_rows",
    "gold_truncated",
    "gold_error",
]
"""Columns `--rows` adds after the reference answer: the answer's result, then the gold's."""


@dataclass(frozen=True)
class Rows:
    """One result as an export holds it: its columns and first rows, or why there are none."""

    columns: list[str] | None = None
    rows: list[list[Any]] | None = None
    truncated: bool | None = None
    """More rows than the export holds: cut by the cap given, or by the sandbox's limits when the SQL ran."""
    error: str | None = None
    """Why the statement returned no rows (it failed), when it did."""

    def fields(self, prefix: str) -> dict[str, Any]:
        """The export's columns for this result, named `{prefix}_columns`, `{prefix}_rows`, ..."""
        return {
            f"{prefix}_columns": self.columns,
            f"{prefix}_rows": self.rows,
            f"{prefix}_truncated": self.truncated,
            f"{prefix}_error": self.error,
        }


NO_ROWS = Rows()
"""A result the run file does not hold (no final SQL, a gold not kept)."""


def _cell(value: Any) -> Any:
    """A result's value as JSON holds it (dates, decimals and bytes as text; NaN and infinities as their names)."""
    if isinstance(value, float) and (value != value or abs(value) == float("inf")):
        return repr(value)
    return preview_value(value)


def _of_outcome(outcome: QueryResult | SqlProblem, cap: int) -> Rows:
    if isinstance(outcome, SqlProblem):
        return Rows(error=str(outcome))
    rows = [[_cell(v) for v in row] for row in outcome.rows[:cap]]
    return Rows(list(outcome.columns), rows, outcome.truncated or len(outcome.rows) > cap)


class KeptRows:
    """The statement results a run file keeps, read once, as an export's rows capped at `cap` per result."""

    def __init__(self, run: RunData, cap: int) -> None:
        self.cap = cap
        self._bodies: dict[tuple[str, str, str], str] = {}
        with RunStore(run.path) as store:
            for database, role, sql, body in store.kept_results():
                # kept names are `database@location`: a run scored where its databases were read from
                self._bodies.setdefault((database.split("@", 1)[0], role, sql), body)

    def _kept(self, database: str, role: str, sql: str) -> Rows | None:
        body = self._bodies.get((database, role, sql))
        if body is None:
            return None
        with contextlib.suppress(ValueError, KeyError, TypeError, IndexError, RecursionError):
            return _of_outcome(decode_outcome(body), self.cap)
        return None  # a kept result of another shape than this biarena writes: as if not kept

    def answer(self, question: Question, answer: Answer | None) -> Rows:
        """The rows of the answer's final SQL: kept by scoring, else the preview its step recorded."""
        if answer is None or not answer.final_sql:
            return NO_ROWS
        kept = self._kept(question.database, "answer", answer.final_sql)
        if kept is not None:
            return kept
        step = next((s for s in reversed(answer.steps) if s.sql == answer.final_sql), None)
        if step is None:
            return NO_ROWS
        if step.error is not None:
            return Rows(error=step.error)
        held = step.preview[: self.cap]
        more = step.truncated or len(step.preview) > self.cap or (step.row_count or 0) > len(held)
        return Rows(list(step.columns), [list(row) for row in held], more)

    def gold(self, question: Question) -> Rows:
        """The rows of the question's gold: its gold tables, else its first gold query's result kept by scoring."""
        if question.gold_results:
            return _of_outcome(gold_tables(question)[0][1], self.cap)
        if not question.gold_sql:
            return NO_ROWS
        return self._kept(question.database, "gold", question.gold_sql[0]) or NO_ROWS
