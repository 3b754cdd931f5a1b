"""50 annotators voting 20 times each at once through the real server: no vote lost or doubled, no 5xx."""

import asyncio
import sqlite3
from pathlib import Path

import pytest

from tests.arena_helpers import drive_annotators, invite, make_arena_runs, served_arena

ANNOTATORS = 50
VOTES = 20

pytestmark = pytest.mark.slow


def test_fifty_annotators_twenty_votes_each(tmp_path: Path, sales_db: Path) -> None:
    fixture = make_arena_runs(tmp_path, sales_db, 10)  # 3 pairs x 10 questions: 30 comparisons per annotator
    db = tmp_path / "arena.sqlite"
    tokens = [invite(db, f"annotator {i}") for i in range(ANNOTATORS)]
    with served_arena(fixture.runs, db) as base:
        result = asyncio.run(drive_annotators(base, tokens, VOTES))
    assert not [s for s in result.statuses if s >= 500]
    assert set(result.statuses) <= {200, 303}
    assert all(result.voted.get(token) == VOTES for token in tokens)
    with sqlite3.connect(db) as conn:
        per_user = dict(conn.execute("SELECT user_id, count(*) FROM votes GROUP BY user_id").fetchall())
        distinct = conn.execute(
            "SELECT count(*) FROM (SELECT DISTINCT user_id, question_id, system_lo, system_hi FROM votes)"
        ).fetchone()[0]
        linked = conn.execute("SELECT count(*) FROM comparisons WHERE vote_id IS NOT NULL").fetchone()[0]
    assert sorted(per_user.values()) == [VOTES] * ANNOTATORS
    assert distinct == ANNOTATORS * VOTES == linked
