"""CSV exports never hand a spreadsheet a formula: model answers and annotators' rationales are untrusted text."""

import csv
import io

from biarena.csv_cells import spreadsheet_safe
from biarena.votes.export import export_votes
from biarena.votes.vote import Vote


def test_text_that_a_spreadsheet_would_run_is_quoted() -> None:
    assert spreadsheet_safe('=HYPERLINK("http://x","click")') == '\'=HYPERLINK("http://x","click")'
    assert spreadsheet_safe("+1") == "'+1" and spreadsheet_safe("@SUM(A1)") == "'@SUM(A1)"
    assert spreadsheet_safe("-2+3") == "'-2+3"
    assert spreadsheet_safe("A is better") == "A is better"
    assert spreadsheet_safe(-2.5) == -2.5 and spreadsheet_safe(None) is None


def test_a_vote_rationale_is_exported_as_text() -> None:
    vote = Vote(
        id=1,
        annotator="ann",
        benchmark="b",
        question_id="q1",
        left_system="x",
        right_system="y",
        choice="left",
        rationale="=cmd|' /C calc'!A0",
        created_at="2026-01-01T00:00:00Z",
    )
    row = next(csv.DictReader(io.StringIO("".join(export_votes([vote], "csv")))))
    assert row["rationale"] == "'=cmd|' /C calc'!A0" and row["winner"] == "a" and row["system_a"] == "x"
