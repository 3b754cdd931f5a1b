"""Outcome: what happened to one question in a run, in words a person reads at a glance."""

from dataclasses import dataclass
from typing import Literal

from biarena.records.answer import Answer

OutcomeKind = Literal["ran", "sql_failed", "no_answer", "unanswered"]


@dataclass(frozen=True)
class Outcome:
    """The outcome of one question: its kind, a short label and the error behind it, if any."""

    kind: OutcomeKind
    """`ran`: answered and its SQL ran (or answered in prose without SQL); `sql_failed`: answered but its final
    SQL failed; `no_answer`: the system produced no answer; `unanswered`: the run has no answer for it yet."""
    error: str | None = None
    """The error behind a failed outcome."""

    @property
    def label(self) -> str:
        """A short label: `ran`, `SQL failed`, `no answer`, `not run`."""
        return {"ran": "ran", "sql_failed": "SQL failed", "no_answer": "no answer", "unanswered": "not run"}[self.kind]

    @property
    def ok(self) -> bool:
        """True when the question was answered and its SQL, if any, ran."""
        return self.kind == "ran"


def outcome_of(answer: Answer | None) -> Outcome:
    """The outcome of an answer (None: the question was never answered)."""
    if answer is None:
        return Outcome("unanswered")
    if answer.status == "error":
        return Outcome("no_answer", answer.error or "the system gave no answer")
    if answer.final_sql is not None:
        final = next((s for s in reversed(answer.steps) if s.sql == answer.final_sql), None)
        if final is not None and final.error is not None:
            return Outcome("sql_failed", final.error)
    return Outcome("ran")
