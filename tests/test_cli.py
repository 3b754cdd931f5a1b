"""The command line: the whole import -> run -> score -> show -> export path, and clean user errors."""

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biarena.cli import app
from biarena.errors import NotFoundError
from tests.conftest import sha256


def biarena(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the real command line in a fresh process (`timeout`: a bound against a hang, not a speed check)."""
    return subprocess.run(
        [sys.executable, "-m", "biarena", *map(str, args)], capture_output=True, text=True, timeout=timeout
    )


def assert_user_error(result: subprocess.CompletedProcess, fragment: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and fragment in lines[0], lines[0]
    assert "Traceback" not in result.stderr


@pytest.fixture
def bis_bench(bis_sample: Path, tmp_path: Path) -> Path:
    out = tmp_path / "bis"
    result = biarena("import", "bis", bis_sample, "-o", out)
    assert result.returncode == 0, result.stderr
    return out


def test_import_run_score_show_export(bis_bench: Path, tmp_path: Path) -> None:
    run = tmp_path / "gold.run"
    assert biarena("run", bis_bench, "--system", "gold", "-o", run).returncode == 0
    assert biarena("score", run).returncode == 0
    shown = biarena("show", run)
    assert shown.returncode == 0
    assert "bis:filtering" in shown.stdout and "bis:time_period" in shown.stdout
    assert "zh" in shown.stdout and "en" in shown.stdout and "1.000" in shown.stdout

    jsonl = tmp_path / "out.jsonl"
    assert biarena("export", run, "--format", "jsonl", "-o", jsonl).returncode == 0
    lines = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 10
    assert set(lines[0]) == {
        "run",
        "system",
        "model",
        "benchmark",
        "question_id",
        "try",
        "tries_agree",
        "question",
        "labels",
        "language",
        "outcome",
        "error",
        "status",
        "sql",
        "answer",
        "reference",
        "statements",
        "failed_statements",
        "database_seconds",
        "tool_calls",
        "execution",
        "ser",
        "valid_sql",
        "execution_accuracy",
        "semantic_similarity",
        "result_precision",
        "result_recall",
        "result_f1",
    }
    assert lines[0]["run"] == "gold" and lines[0]["system"] == "gold" and lines[0]["outcome"] == "ran"

    csv_path = tmp_path / "out.csv"
    assert biarena("export", run, "--format", "csv", "-o", csv_path).returncode == 0
    with csv_path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 10 and rows[0]["result_f1"] == "1.0"

    pq = pytest.importorskip("pyarrow.parquet")
    parquet = tmp_path / "out.parquet"
    assert biarena("export", run, "--format", "parquet", "-o", parquet).returncode == 0
    table = pq.read_table(parquet)
    assert table.num_rows == 10 and "execution_accuracy" in table.column_names
    # one shape: the same columns, in the same order, whatever the format
    assert list(lines[0]) == list(rows[0]) == table.column_names
    assert [r["execution_accuracy"] for r in lines] == table.column("execution_accuracy").to_pylist()

    nested = biarena("export", run, "--nested")
    assert nested.returncode == 0
    assert set(json.loads(nested.stdout.splitlines()[0])["scores"]) == set(lines[0]) - set(list(lines[0])[:20])
    refused = biarena("export", run, "--nested", "-o", tmp_path / "nested.csv")
    assert refused.returncode == 2 and "--nested applies to JSONL" in refused.stderr


def test_corrupt_json_is_one_line_exit_2(bis_sample: Path, tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    shutil.copytree(bis_sample, folder)
    (folder / "questions_dataset_2.json").chmod(0o644)
    (folder / "questions_dataset_2.json").write_text('[{"db_id": "dataset_2",', encoding="utf-8")
    assert_user_error(biarena("import", "bis", folder, "-o", tmp_path / "out"), "invalid JSON")
    assert not (tmp_path / "out").exists()


def test_missing_database_is_one_line_exit_2(bis_bench: Path, tmp_path: Path) -> None:
    (bis_bench / "databases" / "dataset_2.sqlite3").unlink()
    result = biarena("run", bis_bench, "--system", "gold", "-o", tmp_path / "r.run")
    assert_user_error(result, "database 'dataset_2' file not found")
    assert not (tmp_path / "r.run").exists()


def test_unknown_builtin_is_one_line_exit_2(tmp_path: Path) -> None:
    assert_user_error(biarena("run", "bis-synht", "--system", "gold", "-o", tmp_path / "r.run"), "bis-synht")


def test_other_user_errors(bis_bench: Path, tmp_path: Path) -> None:
    run = tmp_path / "r.run"
    assert_user_error(biarena("run", bis_bench, "--system", "goldd", "-o", run), "did you mean 'gold'")
    assert_user_error(biarena("run", bis_bench, "--system", "predictions", "-o", run), "needs -O predictions=")
    assert_user_error(
        biarena("run", bis_bench, "--system", "predictions", "--predictions", tmp_path / "none.jsonl", "-o", run),
        "predictions file not found",
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question_id": "dataset_2/0000", "sql": "SELECT 1"}\n{"question_id": 5}\n', encoding="utf-8")
    assert_user_error(
        biarena("run", bis_bench, "--system", "predictions", "--predictions", bad, "-o", run), "line 2: field"
    )
    assert_user_error(biarena("show", tmp_path / "missing.run"), "run not found")
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all, just some notes\n" * 50, encoding="utf-8")
    before = sha256(text)
    assert_user_error(biarena("show", text), "not a biarena run file")
    assert sha256(text) == before
    assert_user_error(biarena("score", run, "--metrics", "execution,bleu"), "unknown metric 'bleu'")


def test_resuming_other_work_keeps_the_run(bis_bench: Path, tmp_path: Path) -> None:
    run = tmp_path / "r.run"
    assert biarena("run", bis_bench, "--system", "gold", "-o", run).returncode == 0
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"question_id": "dataset_2/0000", "sql": "SELECT 1"}\n', encoding="utf-8")
    result = biarena("run", bis_bench, "--system", "predictions", "--predictions", predictions, "--partial", "-o", run)
    assert_user_error(result, "holds a different run")
    shown = biarena("show", run)
    assert "10 of 10 answered" in shown.stdout


def test_in_process_the_real_exception_is_visible(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "no-such-bench", "--system", "gold", "-o", str(tmp_path / "r.run")])
    assert isinstance(result.exception, NotFoundError)
