"""export_votes: an arena's stored votes as JSONL or CSV, with the systems and their runs revealed."""

import csv
import io
import json
from collections.abc import Iterator

from biarena.csv_cells import safe_row
from biarena.votes.vote import Vote

EXPORT_FIELDS = (
    "vote_id", "annotator", "benchmark", "question_id", "system_a", "system_b", "winner", "rationale", "created_at",
    "run_a", "run_b",
)
"""Columns of a votes export: system_a was shown on the left, system_b on the right; run_a and run_b are their runs'
ids (empty for votes stored before runs had ids)."""


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
        "run_a": vote.left_run or "",
        "run_b": vote.right_run or "",
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
