"""`biarena export --rows N`: each answer's result rows and the gold's, from the run file (kept by `score`, else the
rows the answer recorded as it ran), capped at N, in JSONL, CSV and Parquet; off by default."""

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest

from biarena.errors import UsageError
from biarena.report.execute_export import execute_export
from biarena.report.export_settings import ExportSettings
from tests.run_helpers import cli, make_shop, write_predictions

ROW_COLUMNS = {"result_columns", "result_rows", "result_truncated", "result_error"}
GOLD_COLUMNS = {"gold_columns", "gold_rows", "gold_truncated", "gold_error"}


def ok(result):
    assert result.returncode == 0, result.stderr
    return result


def exported(*args: str | Path) -> dict[str, dict]:
    """The JSONL rows of an export to stdout, by question id."""
    lines = ok(cli("export", *args, "-o", "-")).stdout.splitlines()
    return {row["question_id"]: row for row in map(json.loads, lines)}


def gold_rows(db: Path, sql: str) -> list[list]:
    with sqlite3.connect(db) as conn:
        return [list(row) for row in conn.execute(sql).fetchall()]


@pytest.fixture
def mock_run(tmp_path: Path, sales_db: Path) -> tuple[Path, Path]:
    """A run of text2sql with the mock model (every answer is `SELECT 1`) over three questions."""
    bench = make_shop(tmp_path, sales_db, count=3)
    run = tmp_path / "mock.run"
    ok(cli("run", bench, "--agent", "text2sql", "--model", "mock", "-o", run))
    return bench, run


def test_rows_are_off_by_default_and_an_unscored_run_has_the_answers_rows_only(mock_run) -> None:
    _, run = mock_run
    plain = exported(run)
    assert not (ROW_COLUMNS | GOLD_COLUMNS) & set(plain["q0000"])
    rows = exported(run, "--rows", "5")
    assert len(rows) == 3
    for row in rows.values():
        assert row["sql"] == "SELECT 1"
        assert (row["result_columns"], row["result_rows"], row["result_truncated"]) == (["1"], [[1]], False)
        assert row["gold_rows"] is None and row["gold_columns"] is None  # nothing kept before scoring


def test_a_scored_run_has_the_gold_rows_capped(mock_run, sales_db: Path) -> None:
    _, run = mock_run
    ok(cli("score", run))
    rows = exported(run, "--rows", "2")
    for number, question_id in enumerate(("q0000", "q0001", "q0002")):
        sql = f"SELECT city_id, sum(amount) FROM sales WHERE qty > {number} GROUP BY city_id"
        every = gold_rows(sales_db, sql)
        row = rows[question_id]
        assert row["gold_columns"] == ["city_id", "sum(amount)"]
        assert row["gold_rows"] == every[:2] and row["gold_truncated"] is (len(every) > 2)
        assert row["gold_error"] is None
        assert row["result_rows"] == [[1]] and row["result_truncated"] is False
    assert len(exported(run, "--rows", "100")["q0000"]["gold_rows"]) == len(gold_rows(sales_db, sql)) > 2

    # CSV holds the lists as JSON text; Parquet too, with the truncation flags as booleans
    target = run.with_suffix(".csv")
    ok(cli("export", run, "--rows", "2", "-o", target))
    first = next(csv.DictReader(target.open(encoding="utf-8")))
    assert json.loads(first["gold_rows"]) == rows["q0000"]["gold_rows"]
    assert json.loads(first["result_rows"]) == [[1]] and first["gold_truncated"] == "True"
    pq = pytest.importorskip("pyarrow.parquet")
    parquet = run.with_suffix(".parquet")
    ok(cli("export", run, "--rows", "2", "-o", parquet))
    table = pq.read_table(parquet).to_pylist()
    assert json.loads(table[0]["gold_rows"]) == rows["q0000"]["gold_rows"] and table[0]["gold_truncated"] is True


def test_two_runs_side_by_side_and_failed_sql(tmp_path: Path, sales_db: Path) -> None:
    bench = make_shop(tmp_path, sales_db, count=3)
    gold, predicted = tmp_path / "gold.run", tmp_path / "pred.run"
    ok(cli("run", bench, "--agent", "gold", "-o", gold))
    predictions = write_predictions(
        tmp_path / "p.jsonl",
        [{"question_id": "q0000", "sql": "SELECT * FROM no_such_table"}, {"question_id": "q0001", "sql": "SELECT 2"}],
    )
    ok(cli("run", bench, "--agent", "predictions", "-O", f"predictions={predictions}", "--partial", "-o", predicted))
    lines = ok(cli("export", gold, predicted, "--rows", "3", "-o", "-")).stdout.splitlines()
    rows = {(row["system"], row["question_id"]): row for row in map(json.loads, lines)}
    sql = "SELECT city_id, sum(amount) FROM sales WHERE qty > 0 GROUP BY city_id"
    # the gold system's answer is its gold query: its rows are the gold's, as this run's engine returned them
    assert rows[("gold", "q0000")]["result_rows"] == gold_rows(sales_db, sql)[:3]
    failed = rows[("predictions", "q0000")]
    assert failed["result_rows"] is None and "no_such_table" in failed["result_error"]
    assert rows[("predictions", "q0001")]["result_rows"] == [[2]]
    missing = rows[("predictions", "q0002")]  # no prediction: no SQL, no rows
    assert missing["result_rows"] is None and missing["result_error"] is None


def test_rows_must_be_one_or_more(mock_run) -> None:
    _, run = mock_run
    refused = cli("export", run, "--rows", "0")
    assert refused.returncode == 2 and "Invalid value for '--rows'" in refused.stderr
    assert "Traceback" not in refused.stderr
    with pytest.raises(UsageError, match="--rows 0: give the most rows"):
        execute_export(ExportSettings(runs=[run], rows=0), io.BytesIO())
