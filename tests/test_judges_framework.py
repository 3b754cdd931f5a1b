"""Judging a run: scores and traces stored together, resumed, cached, budgeted; rubrics; show, trace and export."""

import json
import re
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from biarena.db import DatabasePool
from biarena.judges import Judgement
from biarena.judges.interaction import word_count
from biarena.judges.rubric import builtin_rubric_text
from biarena.metrics import ScoringContext
from biarena.records import Answer, Score, Step, SystemSpec
from biarena.runner import RunStore
from biarena.runner.store import MIGRATIONS
from biarena.scoring import score_run, setup_scorers
from tests.judge_run_helpers import answer_for, corgi_bench, judge_command, mock_model, valid_reply, write_run
from tests.run_helpers import cli, one_line_error


@pytest.fixture
def bench(tmp_path: Path, sales_db: Path):
    """Eight questions over the sales database, CORGI types 1-4 twice."""
    return corgi_bench(tmp_path, sales_db, 8)


def judge(bench, run: Path, names: list[str], model, **options):
    with RunStore(run, lock=True) as store:
        context = ScoringContext(benchmark=bench, databases=DatabasePool(bench))
        setups = setup_scorers(names, context, model=model, rubric_files=options.pop("rubric_files", None))
        return score_run(store, setups, **options)


def stored(run: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(f"file:{run}?mode=ro", uri=True) as conn:
        return conn.execute(sql).fetchall()


def stored_scores(run: Path, where: str = "1") -> list[dict]:
    """The stored Score records (as JSON objects) of the results matching `where`."""
    rows = stored(run, f"SELECT scores FROM results WHERE {where}")
    return [score for (body,) in rows for score in json.loads(body)]


# --- storing, resuming, caching, budget ----------------------------------------------------------------------------


def test_judgements_are_stored_with_scores_stamped_and_a_rescore_makes_no_call(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    model = mock_model([valid_reply(score=4)], tmp_path / "cache")
    first = judge(bench, run, ["corgi", "interaction"], model, concurrency=3)
    assert (first.scored_now, first.failed, first.not_applicable) == (6 + 8, 0, 2)
    assert first.usage.calls == len(model.provider.requests) == 6 * 7
    rows = [s for s in stored_scores(run) if s["name"] == "corgi"]
    assert len(rows) == 6
    score = rows[0]
    assert score["scorer"] == "corgi" and score["scorer_version"] == "3"
    assert score["sub_scores"]["rubric_hash"] and score["sub_scores"]["judge_model"] == "mock:scripted"
    assert score["sub_scores"]["failed"] is None and score["usage"]["calls"] == 7
    traces = stored(run, "SELECT scorer, trace FROM results WHERE question_id = 'q003'")
    assert {j for j, _ in traces} == {"corgi", "interaction"}
    # a scorer that does not apply is stored as such: corgi on the descriptive questions
    assert stored(run, "SELECT question_id, scorer, scores FROM results WHERE NOT applies") == [
        ("q000", "corgi", "[]"),
        ("q004", "corgi", "[]"),
    ]
    entries = json.loads(dict(traces)["corgi"])
    assert entries[0]["role"] == "discriminator" and entries[0]["messages"][1]["role"] == "user"

    again = judge(bench, run, ["corgi", "interaction"], model, concurrency=3)
    assert (again.scored_now, again.skipped, again.usage.calls) == (0, 14, 0)
    # judged again from scratch: every reply comes from the response cache
    before = len(model.provider.requests)
    fresh = judge(bench, run, ["corgi"], mock_model([valid_reply(score=4)], tmp_path / "cache"), rescore=True)
    assert fresh.scored_now == 6 and fresh.usage.calls == 0 and fresh.usage.cache_hits == 6 * 7
    assert len(model.provider.requests) == before


def test_max_calls_stops_starting_judgements_and_the_next_pass_continues(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    model = mock_model([valid_reply()], tmp_path / "cache")
    first = judge(bench, run, ["corgi"], model, max_calls=10)
    assert first.stopped_by_budget and first.scored_now == 2 and first.pending == 4
    second = judge(bench, run, ["corgi"], model)
    assert second.scored_now == 4 and second.skipped == 2
    assert len(stored(run, "SELECT * FROM results WHERE applies")) == 6


def test_a_failed_judgement_stores_none_with_the_reason_and_the_raw_reply(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    summary = judge(bench, run, ["corgi"], mock_model(["no JSON here"]))
    assert summary.failed == summary.scored_now == 6
    values = stored_scores(run, "scorer = 'corgi'")
    assert values and all(score["value"] is None for score in values)
    body = values[0]
    assert "discriminator" in body["rationale"] and body["sub_scores"]["failed"] == body["rationale"]
    failed, trace = stored(run, "SELECT failed, trace FROM results WHERE applies LIMIT 1")[0]
    assert failed.startswith("discriminator:")
    assert json.loads(trace)[0]["reply"] == "no JSON here"


def test_a_judge_that_breaks_is_a_failed_judgement_not_a_crash(bench, tmp_path: Path, monkeypatch) -> None:
    run = write_run(tmp_path / "r.run", bench)

    def broken(self, question, answer, context) -> Judgement:
        raise KeyError("oops")

    monkeypatch.setattr("biarena.judges.interaction.InteractionJudge.judge", broken)
    summary = judge(bench, run, ["interaction"], None)
    assert summary.failed == 8
    assert stored(run, "SELECT DISTINCT failed FROM results") == [("the judge failed (KeyError: 'oops')",)]


def test_answers_without_text_or_sql_are_not_judged(bench, tmp_path: Path) -> None:
    error = Answer(question_id="q003", system=SystemSpec(agent="x"), status="error", error="timed out")
    run = write_run(tmp_path / "r.run", bench, {"q003": error})
    summary = judge(bench, run, ["corgi"], mock_model([valid_reply()]))
    assert summary.scored_now == 5
    assert ("q003",) not in stored(run, "SELECT question_id FROM results")


def test_a_rubric_file_replaces_the_builtin_and_changes_the_hash(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    model = mock_model([valid_reply()], tmp_path / "cache")
    judge(bench, run, ["corgi"], model)
    builtin = {
        s["sub_scores"]["rubric_hash"] for s in stored_scores(run, "scorer = 'corgi'")
    }
    mine = tmp_path / "my-corgi.yaml"
    mine.write_text(
        builtin_rubric_text("corgi.yaml").replace("Says the most in the fewest words.", "Short and complete."),
        encoding="utf-8",
    )
    changed = judge(bench, run, ["corgi"], model, rubric_files=[mine])
    assert changed.scored_now == 6 and changed.usage.calls == 6  # only the Structure agent's prompt changed
    hashes = {s["sub_scores"]["rubric_hash"] for s in stored_scores(run, "scorer = 'corgi'")}
    assert len(builtin) == len(hashes) == 1 and builtin != hashes
    prompts = [r.messages[1][1] for r in model.provider.requests[-6:]]
    assert all("Short and complete." in p for p in prompts)


def test_a_run_file_of_the_first_format_is_read_and_its_scores_kept(bench, tmp_path: Path) -> None:
    run = write_run(tmp_path / "r.run", bench)
    score = Score(question_id="q001", name="execution", scorer="execution", scorer_version="1", value=1.0)
    with sqlite3.connect(run) as conn:  # back to the run format 1: a scores table, no traces
        conn.execute("DROP TABLE results")
        conn.execute(
            "CREATE TABLE scores (question_id TEXT NOT NULL, name TEXT NOT NULL, scorer TEXT NOT NULL, "
            "scorer_version TEXT NOT NULL, value REAL, body TEXT NOT NULL, PRIMARY KEY (question_id, name))"
        )
        row = ("q001", "execution", "execution", "1", 1.0, score.model_dump_json())
        conn.execute("INSERT INTO scores VALUES (?, ?, ?, ?, ?, ?)", row)
        conn.execute("PRAGMA user_version = 1")
    with RunStore(run) as store:
        assert len(store.answers()) == 8 and store.scores() == [score]
        assert [(r.scorer, r.trace, r.applies) for r in store.results()] == [("execution", [], True)]
    assert stored(run, "PRAGMA user_version") == [(len(MIGRATIONS),)]


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
    values = {s["name"]: s["value"] for s in stored_scores(run, "question_id = 'q002' AND scorer = 'interaction'")}
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
    # the metrics (4 scorers x 8 answers) as well as the judges
    assert "done: 8 answers scored now, 0 already scored; 46 results now (0 failed), 0 already made, " in done.stderr
    assert "2 not applicable; 42 model calls" in done.stderr
    assert len(re.findall(r"\[\d+/46\] q00\d (corgi|interaction): ", done.stderr)) == 14  # a line per judgement
    again = subprocess.run(
        judge_command(tmp_path / "cache", "score", run, "--judge", "corgi", "--judge-model", "mock"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "0 results now (0 failed), 38 already made, 2 not applicable; 0 model calls" in again.stderr

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
    assert "q003 · corgi v3 · rubric " in trace.stdout and "model mock:scripted" in trace.stdout
    assert "call 1: discriminator" in trace.stdout and "[user]" in trace.stdout and "[reply]" in trace.stdout
    assert "risk_management (compliance): 4.0" in trace.stdout
    assert "interaction v1" in trace.stdout and "(no model call)" in trace.stdout
    one_line_error(cli("show", run, "--trace", "q03"), "no question 'q03'; did you mean 'q003'?")

    exported = [json.loads(line) for line in cli("export", run).stdout.splitlines()]
    by_id = {r["question_id"]: r for r in exported}
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
            return stored(run, "SELECT count(*) FROM results WHERE scorer = 'corgi' AND applies")[0][0]
        except sqlite3.OperationalError:
            return 0

    while time.monotonic() < deadline and count() < 4:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = count()
    assert 4 <= before < 30, "the scoring should be killed part way"
    made = stored(run, "SELECT count(*) FROM results WHERE applies")[0][0]
    kept = dict(stored(run, "SELECT question_id, trace FROM results WHERE scorer = 'corgi' AND applies"))
    finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    assert f"{made} already made" in finished.stderr
    rows = stored(run, "SELECT question_id, trace FROM results WHERE scorer = 'corgi' AND applies")
    assert sorted(q for q, _ in rows) == sorted(q.id for q in bench.questions if "corgi:type1" not in q.labels)
    assert all(dict(rows)[qid] == body for qid, body in kept.items())
    per_question = stored(run, "SELECT scores FROM results WHERE scorer = 'corgi' AND applies")
    assert {len(json.loads(scores)) for (scores,) in per_question} == {8}
