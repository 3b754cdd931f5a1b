"""A predictions file that does not match its benchmark (unknown questions, questions without a prediction, a BIRD
prediction for another database) is refused in one itemized line, exit 2, unless --partial accepts it."""

import json
from pathlib import Path

from tests.cli_in_process import cli
from tests.published_layouts import bird_layout


def imported_bird(tmp_path: Path) -> Path:
    bench = tmp_path / "bench"
    made = cli("import", "bird", bird_layout(tmp_path / "bird"), "-o", bench)
    assert made.returncode == 0, made.stderr
    return bench


def test_a_mismatched_bird_file_is_one_itemized_error_and_partial_accepts_it(tmp_path: Path) -> None:
    bench = imported_bird(tmp_path)
    predictions = {
        "0": "SELECT COUNT(*) FROM orders\t----- bird -----\tshop",
        "1": "SELECT name FROM member\t----- bird -----\tclub",  # question 1 is on shop
        "2": "SELECT 1\t----- bird -----\tshop",
        **{str(p): "SELECT 1\t----- bird -----\tshop" for p in range(4, 12)},  # 4 questions only
    }
    path = tmp_path / "predict_dev.json"
    path.write_text(json.dumps(predictions))
    args = ["run", bench, "--agent", "predictions", "-O", f"predictions={path}", "-O", "format=bird"]
    refused = cli(*args, "-o", tmp_path / "run.sqlite")
    assert refused.returncode == 2
    lines = [line for line in refused.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, refused.stderr
    line = lines[0]
    assert line.startswith("error: predictions predict_dev.json do not match: ")
    assert "8 of the 11 predictions name no question of 'bird-dev' (position 4, position 5" in line
    assert "... (3 more)" in line
    assert "1 question has no prediction (3)" in line
    assert "1 prediction is for another database than its question's (1)" in line
    assert line.endswith("run with --partial to score the questions they cover")
    assert not (tmp_path / "run.sqlite").exists()

    accepted = cli(*args, "--partial", "-o", tmp_path / "run.sqlite")
    assert accepted.returncode == 0, accepted.stderr
    assert "warning (--partial): predictions predict_dev.json do not match: 8 of the 11" in accepted.stderr


def test_a_jsonl_file_naming_no_question_says_none_does(tmp_path: Path) -> None:
    bench = imported_bird(tmp_path)
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"question_id": "x1", "sql": "SELECT 1"}) + "\n")
    refused = cli("run", bench, "--agent", "predictions", "-O", f"predictions={path}", "-o", tmp_path / "r.sqlite")
    assert refused.returncode == 2
    assert "none of the 1 predictions names a question of 'bird-dev' (x1)" in refused.stderr
    assert "4 questions have no prediction (0, 1, 2, 3)" in refused.stderr


def test_a_complete_file_runs_without_a_word(tmp_path: Path) -> None:
    bench = imported_bird(tmp_path)
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"question_id": str(i), "sql": "SELECT 1"}) + "\n" for i in range(4)))
    done = cli("run", bench, "--agent", "predictions", "-O", f"predictions={path}", "-o", tmp_path / "r.sqlite")
    assert done.returncode == 0, done.stderr
    assert "do not match" not in done.stderr


