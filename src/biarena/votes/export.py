"""export_votes: an arena's stored votes as JSONL or CSV, with the systems and their runs revealed; and reading a
JSONL export back."""

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

from biarena.csv_cells import safe_row
from biarena.errors import FormatError, NotFoundError
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


def read_exported_votes(path: Path) -> list[Vote]:
    """Votes from a JSONL export (`export_votes`, or `biarena judge pairwise -o`); a bad line is a one-line error."""
    if not path.is_file():
        raise NotFoundError(f"{path}: no such votes file")
    votes = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            choice = {"a": "left", "b": "right"}.get(data["winner"], data["winner"])
            votes.append(
                Vote(
                    id=int(data.get("vote_id") or number),
                    annotator=str(data.get("annotator", "")),
                    benchmark=str(data.get("benchmark", "")),
                    question_id=str(data["question_id"]),
                    left_system=str(data["system_a"]),
                    right_system=str(data["system_b"]),
                    choice=choice,
                    rationale=str(data.get("rationale", "")),
                    created_at=str(data.get("created_at", "")),
                    left_run=data.get("run_a") or None,
                    right_run=data.get("run_b") or None,
                )
            )
        except (ValueError, KeyError, TypeError) as error:
            raise FormatError(f"{path}, line {number}: not a vote record ({error})") from None
    return votes
