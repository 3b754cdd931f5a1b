"""Vote and read_votes: one stored pairwise vote, with the systems revealed and the runs they came from."""

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class Vote:
    """One stored vote, with the systems revealed."""

    id: int
    annotator: str
    benchmark: str
    question_id: str
    left_system: str
    right_system: str
    choice: str
    """What the annotator chose: left, right, tie or both_bad."""
    rationale: str
    created_at: str
    left_run: str | None = None
    """The run id (RunSpec.run_id) of the system shown on the left; None for votes stored before runs had ids."""
    right_run: str | None = None
    """The run id of the system shown on the right."""

    @property
    def winner(self) -> str:
        """The outcome as `(system_a=left, system_b=right, winner)` reads it: a, b, tie or both_bad."""
        return {"left": "a", "right": "b"}.get(self.choice, self.choice)


def read_votes(conn: sqlite3.Connection) -> list[Vote]:
    """Every vote of an arena database, oldest first, with the annotator's name (run ids where stored)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(votes)")}
    runs = "v.left_run, v.right_run" if {"left_run", "right_run"} <= columns else "NULL, NULL"
    rows = conn.execute(
        "SELECT v.id, u.name, v.benchmark, v.question_id, v.left_system, v.right_system, v.choice, v.rationale, "
        f"v.created_at, {runs} FROM votes v JOIN users u ON u.id = v.user_id ORDER BY v.id"
    ).fetchall()
    return [Vote(*row) for row in rows]
