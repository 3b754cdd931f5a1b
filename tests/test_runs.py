"""Runs: gold self-check, predictions replay, scoring, resume after kill -9, export."""

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biarena.agents import make_system
from biarena.benchmarks import import_bis, load_benchmark, save_benchmark
from biarena.db import DatabasePool
from biarena.errors import UsageError
from biarena.metrics import ScoringContext
from biarena.records import Benchmark, DatabaseRef, Question
from biarena.runner import RunStore, make_spec, open_run, run_benchmark
from biarena.scoring import default_scorers, score_run, setup_scorers


def _run(benchmark: Benchmark, system_name: str, path: Path, **options: object) -> RunStore:
    system = make_system(system_name, **options)
    pool = DatabasePool(benchmark)
    store = RunStore(path, create=True)
    open_run(store, make_spec("bench", benchmark, system, benchmark.questions), benchmark.questions)
    run_benchmark(benchmark, system, store, pool, benchmark.questions)
    score_run(store, setup_scorers(default_scorers(), ScoringContext(benchmark=benchmark, databases=pool)))
    return store


def test_gold_on_bis_sample_scores_one_wherever_gold_runs(bis_sample: Path, tmp_path: Path) -> None:
    benchmark = load_benchmark(save_benchmark(import_bis(bis_sample), tmp_path / "bis"))
    store = _run(benchmark, "gold", tmp_path / "gold.run")
    answers = store.answers()
    assert len(answers) == 10
    runs = {a.question_id for a in answers if all(s.ok for s in a.steps)}
    assert runs == {q.id for q in benchmark.questions}
    for score in store.scores():
        if score.question_id in runs and score.name not in ("valid_sql",):
            assert score.value == 1.0, (score.question_id, score.name, score.rationale)


def _shop(tmp_path: Path, sales_db: Path, count: int = 6, heavy: bool = False) -> Benchmark:
    questions = []
    for i in range(count):
        sql = (
            f"SELECT count(*) + {i} FROM big a, big b WHERE a.n < 150"
            if heavy
            else f"SELECT city_id, sum(amount) FROM sales WHERE qty > {i % 5} GROUP BY city_id"
        )
        questions.append(
            Question(
                id=f"q{i:04d}",
                text=f"question {i}",
                database="sales",
                gold_sql=[sql],
                labels=[f"bis:{'filtering' if i % 2 else 'aggregation'}"],
                language="en" if i % 3 else "zh",
            )
        )
    bench = Benchmark(name="shop", databases={"sales": DatabaseRef(path=str(sales_db))}, questions=questions)
    return load_benchmark(save_benchmark(bench, tmp_path / "shop"))


def test_predictions_replay_and_scores(tmp_path: Path, sales_db: Path) -> None:
    benchmark = _shop(tmp_path, sales_db)
    predictions = tmp_path / "pred.jsonl"
    rows = [
        {"question_id": "q0000", "sql": benchmark.questions[0].gold_sql[0]},
        {"question_id": "q0001", "sql": "SELECT city_id FROM sales GROUP BY city_id"},
        {"question_id": "q0002", "sql": "DELETE FROM sales"},
        {"question_id": "q0003", "sql": "SELECT nope FROM sales"},
        {"question_id": "zzz", "sql": "SELECT 1"},
    ]
    predictions.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    store = _run(benchmark, "predictions", tmp_path / "p.run", predictions=predictions)
    table: dict[str, dict[str, float | None]] = {}
    for score in store.scores():
        table.setdefault(score.question_id, {})[score.name] = score.value
    assert table["q0000"]["execution_accuracy"] == 1.0
    assert table["q0001"]["result_precision"] == 1.0 and table["q0001"]["result_recall"] == 0.5
    assert table["q0002"]["execution"] == 0.0 and table["q0002"]["ser"] == 0.0
    assert table["q0003"]["semantic_similarity"] < 1.0
    answers = {a.question_id: a for a in store.answers()}
    assert answers["q0002"].steps[0].error_kind == "rejected"
    assert answers["q0004"].status == "error" and "no prediction" in (answers["q0004"].error or "")


def test_resuming_with_other_work_is_refused(tmp_path: Path, sales_db: Path) -> None:
    benchmark = _shop(tmp_path, sales_db)
    store = _run(benchmark, "gold", tmp_path / "g.run")
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("", encoding="utf-8")
    other = make_system("predictions", predictions=predictions)
    with pytest.raises(UsageError, match="holds a different run"):
        open_run(store, make_spec("bench", benchmark, other, benchmark.questions), benchmark.questions)


def test_scoring_twice_scores_nothing_new(tmp_path: Path, sales_db: Path) -> None:
    benchmark = _shop(tmp_path, sales_db)
    store = _run(benchmark, "gold", tmp_path / "g.run")
    context = ScoringContext(benchmark=benchmark, databases=DatabasePool(benchmark))
    summary = score_run(store, setup_scorers(default_scorers(), context))
    assert summary.scored_now == 0 and summary.skipped == 4 * len(benchmark.questions)
    assert summary.answers_scored == 0 and summary.answers_skipped == len(benchmark.questions)


def _count(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        try:
            return conn.execute("SELECT count(*) FROM answers").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


@pytest.mark.slow
def test_kill_minus_nine_then_resume_keeps_exactly_one_answer_each(tmp_path: Path, sales_db: Path) -> None:
    benchmark = _shop(tmp_path, sales_db, count=400, heavy=True)
    run = tmp_path / "killed.run"
    command = [sys.executable, "-m", "biarena", "run", str(tmp_path / "shop"), "--system", "gold", "-o", str(run)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not run.exists() or _count(run) < 25):
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = _count(run)
    assert 25 <= before < 400, "the run should be killed part way"
    with sqlite3.connect(run) as conn:
        kept = dict(conn.execute("SELECT question_id, body FROM answers").fetchall())
    finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    assert "resuming" in finished.stderr
    with sqlite3.connect(run) as conn:
        rows = conn.execute("SELECT question_id, body FROM answers").fetchall()
    ids = [r[0] for r in rows]
    assert len(ids) == 400 and sorted(ids) == sorted(q.id for q in benchmark.questions)
    # what was written before the kill is kept as it was
    assert all(dict(rows)[qid] == body for qid, body in kept.items())
