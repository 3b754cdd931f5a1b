"""Vote and read_votes: one stored pairwise vote, with the systems revealed and the runs they came from."""

import sqlite3

from biarena.db.sql_text import Sql, compose
from biarena.records.vote import Vote

__all__ = ["Vote", "read_votes"]


def read_votes(conn: sqlite3.Connection) -> list[Vote]:
    """Every vote of an arena database, oldest first, with the annotator's name (run ids where stored)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(votes)")}
    runs = Sql("v.left_run, v.right_run" if {"left_run", "right_run"} <= columns else "NULL, NULL")
    rows = conn.execute(
        compose(
            "SELECT v.id, u.name, v.benchmark, v.question_id, v.left_system, v.right_system, v.choice, v.rationale, "
            "v.created_at, {runs} FROM votes v JOIN users u ON u.id = v.user_id ORDER BY v.id",
            runs=runs,
        )
    ).fetchall()
    return [Vote(*row) for row in rows]
