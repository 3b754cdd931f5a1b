"""Failing gold is visible everywhere, not only in `audit`: a BIRD-layout import over stand-in databases where most
gold fails is counted by `import` and `score`, and `show` and the report say what execution accuracy is over, with
a 'scored' figure that counts only the questions whose gold ran."""

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.cli_in_process import cli
from tests.published_layouts import BIRD_QUESTIONS, bird_layout


def ok(*args: str | Path) -> str:
    result = cli(*args)
    assert result.returncode == 0, result.stderr
    return result.stdout + result.stderr


@pytest.fixture
def stand_in_bird(tmp_path: Path) -> Path:
    """BIRD's layout of 8 questions, 6 of them on a stand-in 'club' database where their gold fails."""
    questions = [{**q, "question_id": q["question_id"] + 10 * copy} for copy in (0, 1) for q in BIRD_QUESTIONS]
    for q in questions:
        if q["db_id"] == "shop" and q["question_id"] % 10 != 0:
            q["db_id"] = "club"  # a shop question asked of the club: its gold names tables the club has not
    root = bird_layout(tmp_path / "bird", questions)
    stand_in = root / "dev_databases" / "club" / "club.sqlite"
    stand_in.unlink()
    with closing(sqlite3.connect(stand_in)) as conn:
        conn.execute("CREATE TABLE stand_in (id INTEGER PRIMARY KEY)")
        conn.commit()
    return root


def test_failing_gold_is_counted_by_import_score_show_and_report(stand_in_bird: Path, tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    imported = ok("import", "bird", stand_in_bird, "-o", bench)
    assert "gold: 2 of 8 questions' gold runs (6 gold fail; e.g. " in imported
    assert f"execution accuracy counts only the 2: see them with biarena audit {bench}" in imported

    run = tmp_path / "gold.run"
    cli("run", bench, "--agent", "gold", "-o", run)
    scored = ok("score", run)
    assert "gold: execution_accuracy counts 2 of 8 questions (6 gold fail; e.g. 1, 2, 3, 11, 12)" in scored
    assert f"see them with biarena audit {bench}" in scored

    shown = ok("show", run)
    assert f"EA over 2 of 8 questions (6 gold fail: `biarena audit {bench}`)" in shown
    overall = shown[shown.index("overall") :]
    all_row = next(line for line in overall.splitlines() if line.startswith("│ all "))
    assert all_row.split("│")[2].strip() == "8/8" and all_row.split("│")[-2].strip() == "2"  # scored: gold ran
    as_json = json.loads(cli("show", run, "--format", "json").stdout)["runs"][0]
    assert as_json["gold"] == {
        "score": "execution_accuracy",
        "scored": 2,
        "questions": 8,
        "gold_fail": 6,
        "undetermined": 0,
        "without_gold": 0,
    }
    assert cli("show", run, "--format", "csv").stdout.splitlines()[-1].endswith(",2")

    for name in ("report.md", "report.html"):
        ok("report", run, "-o", tmp_path / name)
        assert "EA over 2 of 8 questions (6 gold fail: `biarena audit" in (tmp_path / name).read_text("utf-8")


def test_healthy_gold_says_so_and_show_adds_nothing(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    imported = ok("import", "bird", bird_layout(tmp_path / "bird"), "-o", bench)
    assert "gold: every question's gold runs (4 with gold)" in imported
    run = tmp_path / "gold.run"
    ok("run", bench, "--agent", "gold", "-o", run)
    assert "gold:" not in ok("score", run)
    assert "EA over" not in ok("show", run)
    assert "gold:" not in ok("import", "bird", bird_layout(tmp_path / "b2"), "-o", tmp_path / "b", "--no-gold-check")
