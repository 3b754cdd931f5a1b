"""load_outcomes and export_votes: an arena's stored votes, with the systems revealed."""

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

from biarena.arena.store import ArenaStore, Vote
from biarena.csv_cells import safe_row

EXPORT_FIELDS = (
    "vote_id", "annotator", "benchmark", "question_id", "system_a", "system_b", "winner", "rationale", "created_at"
)
"""Columns of a votes export: system_a was shown on the left, system_b on the right."""


def load_outcomes(db_path: str | Path) -> list[tuple[str, str, str]]:
    """Every vote of an arena database as `(system_a, system_b, winner)`, winner in a, b, tie, both_bad."""
    with ArenaStore(db_path, create=False) as store:
        return [(v.left_system, v.right_system, v.winner) for v in store.votes()]


def vote_record(vote: Vote) -> dict[str, object]:
    """One vote as an export row."""
    return {
        "vote_id": vote.id,
        "annotator": vote.annotator,
        "benchmark": vote.benchmark,
        "question_id": vote.question_id,
        "system_a": vote.left_system,
        "system_b": vote.right_system,
        "winner": vote.winner,
        "rationale": vote.rationale,
        "created_at": vote.created_at,
    }


def export_votes(votes: list[Vote], fmt: str) -> Iterator[str]:
    """The votes as JSONL (one object a line) or CSV (a header, then a row a vote; text a spreadsheet would run as a
    formula starts with an apostrophe), in chunks of text."""
    if fmt == "jsonl":
        for vote in votes:
            yield json.dumps(vote_record(vote), ensure_ascii=False) + "\n"
        return
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EXPORT_FIELDS)
    writer.writeheader()
    for vote in votes:
        writer.writerow(safe_row(vote_record(vote)))
    yield buffer.getvalue()
