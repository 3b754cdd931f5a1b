"""Judging a run: scores and traces stored together, resumed, cached, budgeted; rubrics; show, trace and export."""

import json
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from biarena.db import DatabasePool
from biarena.judges import Judgement
from biarena.judges.interaction import word_count
from biarena.judges.judge_run import judge_run, setup_judges
from biarena.judges.rubric import builtin_rubric_text
from biarena.metrics import ScoringContext
from biarena.records import Answer, Step, SystemSpec
from biarena.runner import RunStore
from tests.judge_run_helpers import answer_for, corgi_bench, judge_command, mock_model, valid_reply, write_run
from tests.run_helpers import cli, one_line_error


@pytest.fixture
def bench(tmp_path: Path, sales_db: Path):
    """Eight questions over the sales database, CORGI types 1-4 twice."""
    return corgi_bench(tmp_path, sales_db, 8)


def judge(bench, run: Path, names: list[str], model, **options):
    with RunStore(run, lock=True) as store:
        context = ScoringContext(benchmark=bench, databases=DatabasePool(bench))
        setups = setup_judges(names, context, model=model, rubric_files=options.pop("rubric_files", None))
        return judge_run(store, setups, **options)


def stored(run: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(f"file:{run}?mode=ro", uri=True) as conn:
        return conn.execute(sql).fetchall()


# --- storing, resuming, caching, budget ----------------------------------------------------------------------------


def test_judgements_are_stored_with_scores_stamped_and_a_rescore_makes_no_call(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    model = mock_model([valid_reply(score=4)], tmp_path / "cache")
    first = judge(bench, run, ["corgi", "interaction"], model, concurrency=3)
    assert (first.judged_now, first.failed, first.not_applicable) == (6 + 8, 0, 2)
    assert first.usage.calls == len(model.provider.requests) == 6 * 7
    rows = stored(run, "SELECT body FROM scores WHERE name = 'corgi'")
    assert len(rows) == 6
    score = json.loads(rows[0][0])
    assert score["scorer"] == "corgi" and score["scorer_version"] == "1"
    assert score["sub_scores"]["rubric_hash"] and score["sub_scores"]["judge_model"] == "mock:scripted"
    assert score["sub_scores"]["failed"] is None and score["usage"]["calls"] == 7
    traces = stored(run, "SELECT judge, body FROM traces WHERE question_id = 'q003'")
    assert {j for j, _ in traces} == {"corgi", "interaction"}
    entries = json.loads(dict(traces)["corgi"])
    assert entries[0]["role"] == "discriminator" and entries[0]["messages"][1]["role"] == "user"

    again = judge(bench, run, ["corgi", "interaction"], model, concurrency=3)
    assert (again.judged_now, again.skipped, again.usage.calls) == (0, 14, 0)
    # judged again from scratch: every reply comes from the response cache
    before = len(model.provider.requests)
    fresh = judge(bench, run, ["corgi"], mock_model([valid_reply(score=4)], tmp_path / "cache"), rescore=True)
    assert fresh.judged_now == 6 and fresh.usage.calls == 0 and fresh.usage.cache_hits == 6 * 7
    assert len(model.provider.requests) == before


def test_max_calls_stops_starting_judgements_and_the_next_pass_continues(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    model = mock_model([valid_reply()], tmp_path / "cache")
    first = judge(bench, run, ["corgi"], model, max_calls=10)
    assert first.stopped_by_budget and first.judged_now == 2 and first.pending == 4
    second = judge(bench, run, ["corgi"], model)
    assert second.judged_now == 4 and second.skipped == 2
    assert len(stored(run, "SELECT * FROM traces")) == 6


def test_a_failed_judgement_stores_none_with_the_reason_and_the_raw_reply(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    summary = judge(bench, run, ["corgi"], mock_model(["no JSON here"]))
    assert summary.failed == summary.judged_now == 6
    values = stored(run, "SELECT value, body FROM scores WHERE scorer = 'corgi'")
    assert values and all(value is None for value, _ in values)
    body = json.loads(values[0][1])
    assert "discriminator" in body["rationale"] and body["sub_scores"]["failed"] == body["rationale"]
    failed, trace = stored(run, "SELECT failed, body FROM traces LIMIT 1")[0]
    assert failed.startswith("discriminator:")
    assert json.loads(trace)[0]["reply"] == "no JSON here"


def test_a_judge_that_breaks_is_a_failed_judgement_not_a_crash(bench, tmp_path: Path, monkeypatch) -> None:
    run = write_run(tmp_path / "r.run", bench)

    def broken(self, question, answer, context) -> Judgement:
        raise KeyError("oops")

    monkeypatch.setattr("biarena.judges.interaction.InteractionJudge.judge", broken)
    summary = judge(bench, run, ["interaction"], None)
    assert summary.failed == 8
    assert stored(run, "SELECT DISTINCT failed FROM traces") == [("the judge failed (KeyError: 'oops')",)]


def test_answers_without_text_or_sql_are_not_judged(bench, tmp_path: Path) -> None:
    error = Answer(question_id="q003", system=SystemSpec(agent="x"), status="error", error="timed out")
    run = write_run(tmp_path / "r.run", bench, {"q003": error})
    summary = judge(bench, run, ["corgi"], mock_model([valid_reply()]))
    assert summary.judged_now == 5
    assert ("q003",) not in stored(run, "SELECT question_id FROM traces")


def test_a_rubric_file_replaces_the_builtin_and_changes_the_hash(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    model = mock_model([valid_reply()], tmp_path / "cache")
    judge(bench, run, ["corgi"], model)
    builtin = {
        json.loads(b)["sub_scores"]["rubric_hash"]
        for (b,) in stored(run, "SELECT body FROM scores")
        if json.loads(b)["scorer"] == "corgi"
    }
    mine = tmp_path / "my-corgi.yaml"
    mine.write_text(
        builtin_rubric_text("corgi.yaml").replace("Says the most in the fewest words.", "Short and complete."),
        encoding="utf-8",
    )
    changed = judge(bench, run, ["corgi"], model, rubric_files=[mine])
    assert changed.judged_now == 6 and changed.usage.calls == 6  # only the Structure agent's prompt changed
    hashes = {
        json.loads(b)["sub_scores"]["rubric_hash"]
        for (b,) in stored(run, "SELECT body FROM scores")
        if json.loads(b)["scorer"] == "corgi"
    }
    assert len(builtin) == len(hashes) == 1 and builtin != hashes
    prompts = [r.messages[1][1] for r in model.provider.requests[-6:]]
    assert all("Short and complete." in p for p in prompts)


def test_old_run_files_are_read_and_gain_the_traces_table(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    with sqlite3.connect(run) as conn:
        conn.execute("DROP TABLE traces")
        conn.execute("PRAGMA user_version = 1")
    with RunStore(run) as store:
        assert len(store.answers()) == 8 and store.judgements() == []
    assert stored(run, "PRAGMA user_version") == [(2,)]


# --- interaction ----------------------------------------------------------------------------------------------


def test_interaction_measures_plan_sql_valid_sql_and_answer_length(bench, tmp_path: Path) -> None:
    empty = Step(sql="SELECT * FROM sales WHERE 0", columns=["x"], row_count=0)
    answer = answer_for(bench.questions[2], ok_steps=2, failed_steps=1).model_copy(
        update={
            "steps": [*answer_for(bench.questions[2], ok_steps=2, failed_steps=1).steps, empty],
            "plan": "先看 城市",
            "text": "Dublin's sales rose 12.5% in Q2.",
        }
    )
    run = write_run(tmp_path / "r.run", bench, {"q002": answer})
    judge(bench, run, ["interaction"], None)
    values = dict(stored(run, "SELECT name, value FROM scores WHERE question_id = 'q002' AND scorer = 'interaction'"))
    assert values == {
        "interaction.plan_length": 4.0,
        "interaction.sql_written": 4.0,
        "interaction.valid_sql": 2.0,
        "interaction.answer_length": 6.0,
    }
    assert word_count("销售额 rose") == 4 and word_count("") == 0


# --- the command line -------------------------------------------------------------------------------------------


def test_score_judge_then_show_by_question_type_trace_and_export(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    done = subprocess.run(
        judge_command(
            tmp_path / "cache",
            "score",
            run,
            "--judge",
            "corgi",
            "--judge",
            "interaction",
            "--judge-model",
            "mock",
            "--concurrency",
            "2",
        ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "done: 14 judgements now (0 failed), 0 already made, 2 not applicable; 42 model calls" in done.stderr
    assert "[14/14]" in done.stderr
    again = subprocess.run(
        judge_command(tmp_path / "cache", "score", run, "--judge", "corgi", "--judge-model", "mock"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "done: 0 judgements now (0 failed), 6 already made, 2 not applicable; 0 model calls" in again.stderr

    shown = cli("show", run)
    assert shown.returncode == 0, shown.stderr
    assert "judge corgi by question type" in shown.stdout and "judge interaction by question type" in shown.stdout
    table = shown.stdout[shown.stdout.index("judge corgi by question type") :]
    for kind in ("corgi:type2", "corgi:type3", "corgi:type4"):
        assert kind in table
    assert "corgi:type1" not in table.split("judge interaction")[0]
    as_json = json.loads(cli("show", run, "--format", "json").stdout)
    rows = {r["question_type"]: r for r in as_json["judges"]["corgi"]}
    assert rows["corgi:type4"]["scores"]["corgi.structure"] == 4.0
    assert rows["all"]["scores"]["corgi"] == pytest.approx((6 * 4 + 3.75) / 7)

    trace = cli("show", run, "--trace", "q003")
    assert trace.returncode == 0, trace.stderr
    assert "q003 · corgi v1 · rubric " in trace.stdout and "model mock:scripted" in trace.stdout
    assert "call 1: discriminator" in trace.stdout and "[user]" in trace.stdout and "[reply]" in trace.stdout
    assert "risk_management (compliance): 4.0" in trace.stdout
    assert "interaction v1" in trace.stdout and "(no model call)" in trace.stdout
    one_line_error(cli("show", run, "--trace", "q03"), "no question 'q03'; did you mean 'q003'?")

    exported = [json.loads(line) for line in cli("export", run).stdout.splitlines()]
    by_id = {r["question_id"]: r["scores"] for r in exported}
    assert by_id["q003"]["corgi.compliance"] == 4.0 and by_id["q003"]["interaction.valid_sql"] == 3.0
    assert by_id["q000"]["corgi"] is None  # corgi does not judge descriptive questions


def test_judge_options_bad_input_is_one_line(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    one_line_error(cli("score", run, "--judge", "corgy"), "unknown judge 'corgy'; did you mean 'corgi'?")
    one_line_error(cli("score", run, "--rubric", tmp_path / "x.yaml"), "--rubric applies to judges")
    bad = tmp_path / "bad.yaml"
    bad.write_text(builtin_rubric_text("corgi.yaml").replace("type4]}", "type5]}", 1), encoding="utf-8")
    one_line_error(cli("score", run, "--judge", "corgi", "--rubric", bad), "unknown question type 'type5'")
    other = tmp_path / "other.yaml"
    other.write_text("rubric: nothing\n", encoding="utf-8")
    one_line_error(cli("score", run, "--judge", "interaction", "--rubric", other), "a 'nothing' rubric")
    one_line_error(cli("score", run, "--judge", "corgi", "--rubric", tmp_path / "missing.yaml"), "rubric not found")


@pytest.mark.slow
def test_kill_minus_nine_while_judging_then_resume(tmp_path: Path, sales_db: Path) -> None:
    bench = corgi_bench(tmp_path, sales_db, 40)
    run = write_run(tmp_path / "r.run", bench)
    command = judge_command(tmp_path / "cache", "score", run, "--judge", "corgi", "--judge-model", "mock", delay=0.03)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120

    def count() -> int:
        try:
            return stored(run, "SELECT count(*) FROM traces")[0][0]
        except sqlite3.OperationalError:
            return 0

    while time.monotonic() < deadline and count() < 4:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = count()
    assert 4 <= before < 30, "the scoring should be killed part way"
    kept = dict(stored(run, "SELECT question_id, body FROM traces"))
    finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    assert f"{before} already made" in finished.stderr
    rows = stored(run, "SELECT question_id, body FROM traces")
    assert sorted(q for q, _ in rows) == sorted(q.id for q in bench.questions if "corgi:type1" not in q.labels)
    assert all(dict(rows)[qid] == body for qid, body in kept.items())
    per_question = stored(run, "SELECT question_id, count(*) FROM scores WHERE scorer = 'corgi' GROUP BY question_id")
    assert {n for _, n in per_question} == {8}
