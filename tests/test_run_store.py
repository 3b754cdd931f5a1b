"""The run file: nothing is written to a file until it is known to be a run, one writer at a time, a resume on a
different benchmark is refused, and whatever an answer holds is stored."""

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biarena.errors import FormatError
from biarena.records import Answer, Question, RunSpec, Step, SystemSpec
from biarena.runner import RunInUse, RunStore, file_sha256
from tests.conftest import sha256
from tests.run_helpers import BIARENA, answers_of, cli, make_shop, one_line_error


def _siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name))


def test_an_sqlite_file_that_is_not_a_run_is_refused_without_a_byte_changed(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db)
    database = shop / "databases" / "sales.sqlite"
    before = sha256(database)
    one_line_error(cli("run", shop, "--system", "gold", "-o", database), "not a biarena run file")
    for command in ("show", "score", "export"):
        assert cli(command, database).returncode == 2
    assert sha256(database) == before
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    # later reads of the benchmark leave nothing beside its database either
    assert cli("run", shop, "--system", "gold", "-o", tmp_path / "g.run").returncode == 0
    assert cli("score", tmp_path / "g.run").returncode == 0
    assert _siblings(database) == ["sales.sqlite"]


def test_an_output_path_that_cannot_be_a_file_is_one_line(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db)
    one_line_error(cli("run", shop, "--system", "gold", "-o", "/etc/passwd/x"), "/etc/passwd is a file")
    plain = tmp_path / "plain.txt"
    plain.write_text("x", encoding="utf-8")
    one_line_error(cli("run", shop, "--system", "gold", "-o", plain / "deeper" / "r.run"), "is a file, not a directory")
    one_line_error(cli("run", shop, "--system", "gold", "-o", tmp_path), "is a directory")
    empty = tmp_path / "empty.run"
    empty.touch()
    one_line_error(cli("run", shop, "--system", "gold", "-o", empty), "an empty file")
    assert empty.stat().st_size == 0


def test_a_new_run_file_appears_whole(tmp_path: Path, sales_db: Path) -> None:
    run = tmp_path / "new.run"
    with RunStore(run, create=True) as store:
        assert store.spec() is None
        assert _siblings(run)[0] == "new.run"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    with sqlite3.connect(run) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'magic'").fetchone() == ("biarena-run",)


def test_a_second_writer_is_refused_at_once(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db)
    run = tmp_path / "locked.run"
    assert cli("run", shop, "--system", "gold", "--limit", "2", "-o", run).returncode == 0
    with RunStore(run, lock=True):
        with pytest.raises(RunInUse):
            RunStore(run, lock=True)
        one_line_error(cli("run", shop, "--system", "gold", "-o", run), "being written by another biarena process")
        one_line_error(cli("score", run), "being written by another biarena process")
        assert cli("show", run).returncode == 0  # readers are welcome
    assert cli("run", shop, "--system", "gold", "-o", run).returncode == 0


def test_two_identical_concurrent_runs_ask_each_question_once(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db, count=4)
    log, go = tmp_path / "asked.log", tmp_path / "go.flag"
    script = tmp_path / "slow.py"
    script.write_text(  # answers only once told to go, so the first run is still at work when the second starts
        "import json, pathlib, sys, time\n"
        "p = json.load(sys.stdin)\n"
        f"pathlib.Path({str(log)!r}).open('a').write(p['question_id'] + '\\n')\n"
        "start = time.monotonic()\n"
        f"while not pathlib.Path({str(go)!r}).exists() and time.monotonic() - start < 60:\n"
        "    time.sleep(0.05)\n"
        "print(json.dumps({'sql': 'SELECT 1'}))\n",
        encoding="utf-8",
    )
    run = tmp_path / "both.run"
    args = [str(BIARENA), "run", str(shop), "--system", "command", "--command", f"{sys.executable} {script}"]
    first = subprocess.Popen([*args, "-o", str(run)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (log.exists() and log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    second = cli(*args[1:], "-o", run)
    one_line_error(second, "being written by another biarena process")
    go.touch()
    _, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    assert sorted(log.read_text().split()) == ["q0000", "q0001", "q0002", "q0003"]


def test_resume_refuses_a_different_benchmark_with_the_same_name_and_ids(tmp_path: Path, sales_db: Path) -> None:
    first = make_shop(tmp_path / "a", sales_db)
    run = tmp_path / "g.run"
    assert cli("run", first, "--system", "gold", "--limit", "3", "-o", run).returncode == 0
    other_data = make_shop(tmp_path / "b", sales_db)
    with sqlite3.connect(other_data / "databases" / "sales.sqlite") as conn:
        conn.execute("DELETE FROM sales WHERE sale_id < 50")
    line = one_line_error(cli("run", other_data, "--system", "gold", "-o", run), "holds a different run")
    assert "database 'sales' differs (checksum sha256:" in line
    other_gold = make_shop(tmp_path / "c", sales_db)
    rows = [json.loads(x) for x in (other_gold / "questions.jsonl").read_text().splitlines()]
    rows[1]["gold_sql"] = ["SELECT 42"]
    (other_gold / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    line = one_line_error(cli("run", other_gold, "--system", "gold", "-o", run), "holds a different run")
    assert "question 'q0001' differs in the benchmark (gold_sql)" in line
    assert len(answers_of(run)) == 3
    # scoring refuses databases that changed under the run, unless told which benchmark to use
    with sqlite3.connect(first / "databases" / "sales.sqlite") as conn:
        conn.execute("DELETE FROM sales WHERE sale_id < 10")
    one_line_error(cli("score", run), "database 'sales' is not the one the run was made on")
    assert cli("score", run, "--benchmark", first).returncode == 0


def test_database_checksums_are_remembered_until_the_file_changes(tmp_path: Path, sales_db: Path) -> None:
    first = file_sha256(sales_db)
    assert first == sha256(sales_db)
    cache = json.loads((Path(os.environ["BIARENA_HOME"]) / "checksums.json").read_text())
    assert first in cache.values()
    with sqlite3.connect(sales_db) as conn:
        conn.execute("DELETE FROM sales WHERE sale_id < 5")
    assert file_sha256(sales_db) == sha256(sales_db) != first


def _answer(qid: str, **fields: object) -> Answer:
    return Answer(question_id=qid, system=SystemSpec(agent="test"), **fields)


def _store(tmp_path: Path, ids: list[str], **options: object) -> RunStore:
    store = RunStore(tmp_path / "s.run", create=True, **options)
    questions = [Question(id=q, text="t", database="d") for q in ids]
    store.start(RunSpec(benchmark="b", benchmark_name="b", system="test", question_ids=ids), questions)
    return store


def test_text_that_json_cannot_hold_is_sanitized_and_recorded(tmp_path: Path) -> None:
    with _store(tmp_path, ["a"]) as store:
        answer = _answer("a", text="bad \ud800 text", final_sql='SELECT 1 AS "\udfff"', steps=[Step(sql="\ud83d")])
        assert store.add_answer(answer)
        stored = store.answers()[0]
    assert stored.text == "bad \ufffd text" and stored.final_sql == 'SELECT 1 AS "\ufffd"'
    assert stored.sanitized == ["3 lone surrogates replaced with U+FFFD in steps[0].sql, final_sql, text"]


def test_an_oversized_answer_loses_its_previews_then_becomes_an_error(tmp_path: Path) -> None:
    with _store(tmp_path, ["a", "b"], max_answer_bytes=20_000) as store:
        big_preview = [Step(sql="SELECT x", columns=["x"], preview=[["y" * 5000] for _ in range(20)], row_count=20)]
        store.add_answer(_answer("a", steps=big_preview, final_sql="SELECT x"))
        store.add_answer(_answer("b", text="z" * 50_000))
        a, b = store.answers()
    assert a.status == "ok" and a.steps[0].preview == [] and a.steps[0].row_count == 20
    assert "result previews dropped" in a.sanitized[0]
    assert b.status == "error" and "could not be stored" in (b.error or "") and b.text is None


def test_an_answer_the_database_refuses_is_stored_as_an_error(tmp_path: Path) -> None:
    with _store(tmp_path, ["a"]) as store:
        store.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 2000)
        assert store.add_answer(_answer("a", text="w" * 5000))
        (stored,) = store.answers()
    assert stored.status == "error" and "too big" in (stored.error or "")


def test_unstorable_predictions_are_stored_on_every_run(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db, count=3)
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(
        '{"question_id": "q0000", "sql": "SELECT 1 AS \\"\\ud800\\""}\n'
        '{"question_id": "q0001", "sql": "SELECT count(*) FROM sales"}\n'
        '{"question_id": "q0002", "sql": "SELECT \'\\udc00\' FROM sales LIMIT 1"}\n',
        encoding="utf-8",
    )
    run = tmp_path / "s.run"
    result = cli("run", shop, "--system", "predictions", "--predictions", predictions, "--partial", "-o", run)
    assert result.returncode == 0, result.stderr
    answers = answers_of(run)
    assert len(answers) == 3 and all(a["status"] == "ok" for a in answers.values())
    assert answers["q0000"]["final_sql"] == 'SELECT 1 AS "\ufffd"' and answers["q0000"]["sanitized"]
    assert answers["q0000"]["steps"][0]["error"] is None


def test_a_damaged_store_is_a_format_error(tmp_path: Path) -> None:
    run = tmp_path / "x.run"
    with RunStore(run, create=True):
        pass
    with sqlite3.connect(run) as conn:
        conn.execute("UPDATE meta SET value = 'other' WHERE key = 'magic'")
    with pytest.raises(FormatError, match="not a biarena run file"):
        RunStore(run)


def test_a_run_killed_before_its_first_checkpoint_is_still_a_run(tmp_path: Path) -> None:
    run = tmp_path / "early.run"
    script = (
        "import os, sqlite3, sys\n"
        "from biarena.runner.store import MIGRATIONS\n"
        f"conn = sqlite3.connect({str(run)!r}, isolation_level=None)\n"
        "conn.execute('PRAGMA journal_mode = WAL')\n"
        "conn.executescript(MIGRATIONS[0])\n"
        "conn.execute(\"INSERT INTO meta VALUES ('magic', 'biarena-run')\")\n"
        "conn.execute('PRAGMA user_version = 1')\n"
        "os._exit(0)\n"  # killed: everything is still in the write-ahead log
    )
    subprocess.run([sys.executable, "-c", script], check=True)
    assert (tmp_path / "early.run-wal").stat().st_size > 0
    with RunStore(run) as store:
        assert store.spec() is None and store.count_answers() == 0
