"""The database tool server: a system that queries its question's database itself, over MCP (the official client),
plain JSON and stdio; sessions bound to one question; caps; every call in the answer's trace; resume exact."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from biarena.agents import AgentEnv
from biarena.agents.tool_session import ToolError, ToolLimits, ToolSession
from biarena.benchmarks import load_benchmark
from biarena.db import DatabasePool
from biarena.llm.redact import remember_secret
from biarena.records import Answer
from tests.run_helpers import BIARENA, answers_of, make_shop

ROOT = Path(__file__).resolve().parents[1]


def run(*args: Any, timeout: float = 300) -> subprocess.CompletedProcess:
    """`biarena ARGS` with the tests' systems importable."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [str(BIARENA), *map(str, args)], capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


def shop(tmp_path: Path, sales_db: Path, count: int) -> Path:
    return make_shop(tmp_path, sales_db, count)


def kept(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without what differs between two runs of the same work: timings and when it was recorded."""
    steps = [{k: v for k, v in step.items() if k != "elapsed"} for step in answer["steps"]]
    calls = [{k: v for k, v in call.items() if k != "elapsed"} for call in answer["tool_calls"]]
    return {**answer, "steps": steps, "tool_calls": calls, "created_at": None}


def test_an_mcp_session_is_sandboxed_capped_and_recorded(tmp_path: Path, sales_db: Path) -> None:
    bench = shop(tmp_path, sales_db, 2)
    out = tmp_path / "mcp.db"
    result = run(
        "run", bench, "--agent", "python", "-O", "function=tests.tool_agents:mcp_scenario", "-O", "tools=true",
        "-O", "max_rows=3", "-o", out,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "tools: 12 calls by 2 answers; 3.0 statements per answer, 2 failed" in result.stdout + result.stderr
    for answer in answers_of(out).values():
        said = json.loads(answer["plan"])
        assert said[0] == {"tools": ["describe_table", "list_tables", "run_query", "submit_answer"]}
        listed, described, counted, refused, capped, submitted = said[1:]
        assert listed["data"]["tables"] == ["big", "city", "product", "sales", "status_mapping"]
        assert listed["data"]["dialect"] == "sqlite" and not listed["error"]
        assert "PRIMARY KEY" in described["data"]["ddl"].upper() and len(described["data"]["sample"]["rows"]) == 3
        assert {"column": "city_id", "references_table": "city", "references_column": "city_id"} in described[
            "data"
        ]["foreign_keys"]
        assert counted["data"]["rows"][0][0] > 0
        assert refused["error"] and "only read statements" in refused["text"]
        assert capped["data"]["truncated"] and len(capped["data"]["rows"]) == 3
        assert "max_rows 3" in capped["data"]["note"]
        assert submitted["data"] == {"submitted": True}
        # the trace: every call, in order, with its statement's step
        calls = answer["tool_calls"]
        assert [c["operation"] for c in calls] == [
            "list_tables", "describe_table", "run_query", "run_query", "run_query", "submit_answer"
        ]  # fmt: skip
        assert {c["transport"] for c in calls} == {"mcp"}
        assert [c["step"] for c in calls] == [None, None, 0, 1, 2, None]
        assert [c["rows"] for c in calls] == [None, None, 1, None, 3, None]
        assert calls[3]["error"].startswith("rejected: only read statements")
        steps = answer["steps"]
        assert [s["error_kind"] for s in steps] == [None, "rejected", None]
        assert steps[0]["purpose"] == "how many sales"
        # the submitted answer is the answer; its query already ran, so it is not run again
        assert answer["text"] == "There are many sales." and answer["final_sql"] == "SELECT COUNT(*) AS n FROM sales"
        assert answer["status"] == "ok"
    scored = run("score", out)
    assert scored.returncode == 0, scored.stderr
    exported = run("export", out, "--format", "jsonl")
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    assert [(r["ser"], r["statements"], r["failed_statements"], r["tool_calls"]) for r in rows] == [
        (pytest.approx(2 / 3), 3, 1, 6)
    ] * 2
    assert all(r["execution"] == 1.0 for r in rows)
    shown = run("show", out)
    assert "tools: 3.0 statements per answer, 2 failed" in shown.stdout
    report = tmp_path / "report.html"
    assert run("report", out, "-o", report).returncode == 0
    page = report.read_text(encoding="utf-8")
    assert page.count('<details class="tool-calls"><summary>6 database tool calls</summary>') == 2
    assert "run_query → Query 2 <span class=\"error\">rejected: only read statements" in page


def test_plain_json_calls_and_their_errors(tmp_path: Path, sales_db: Path) -> None:
    bench = shop(tmp_path, sales_db, 1)
    out = tmp_path / "http.db"
    result = run(
        "run", bench, "--agent", "python", "-O", "function=tests.tool_agents:http_scenario", "-O", "tools=true",
        "-O", "max_rows=3", "-o", out,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    (answer,) = answers_of(out).values()
    assert json.loads(answer["plan"]) == [200, 200, 200, 422, 200, 200]
    assert {c["transport"] for c in answer["tool_calls"]} == {"http"}
    assert [s["error_kind"] for s in answer["steps"]] == [None, "rejected", None]
    assert answer["text"] == "There are many sales."


def test_a_token_reaches_only_its_question_while_it_is_asked(tmp_path: Path, sales_db: Path) -> None:
    bench = shop(tmp_path, sales_db, 3)
    out = tmp_path / "trespass.db"
    result = run(
        "run", bench, "--agent", "python", "-O", "function=tests.tool_agents:trespasser", "-O", "tools=true", "-o", out
    )
    assert result.returncode == 0, result.stderr
    answers = answers_of(out)
    first = json.loads(answers["q0000"]["text"])
    assert [status for status, _ in first] == [422, 401, 401]
    assert "reaches only database 'sales', not 'elsewhere'" in first[0][1]["error"]
    assert "unknown or ended session token" in first[1][1]["error"] and "no session token" in first[2][1]["error"]
    for qid in ("q0001", "q0002"):
        tried = json.loads(answers[qid]["text"])
        status, body = tried[0]  # the previous question's token, its question answered
        assert status == 401 and "unknown or ended session token" in body["error"]
    # a refused token's call is nobody's: only the calls made with the question's own token are its trace
    assert all(len(a["tool_calls"]) == 1 and a["tool_calls"][0]["error"] for a in answers.values())


def test_a_command_system_gets_the_tools_over_stdio(tmp_path: Path, sales_db: Path) -> None:
    bench = shop(tmp_path, sales_db, 1)
    out = tmp_path / "stdio.db"
    command = f"{sys.executable} -m tests.tool_agents"
    result = run("run", bench, "--agent", "command", "-O", f"command={command}", "-O", "tools=true", "-o", out)
    assert result.returncode == 0, result.stderr
    (answer,) = answers_of(out).values()
    tables, counted = json.loads(answer["plan"])
    assert "city" in tables and counted == [[5]]
    assert [c["operation"] for c in answer["tool_calls"]] == ["list_tables", "run_query", "submit_answer"]
    assert {c["transport"] for c in answer["tool_calls"]} == {"mcp"}
    assert answer["text"] == "5 cities" and answer["final_sql"] == "SELECT COUNT(*) FROM city"


def test_sixteen_sessions_at_once_then_killed_and_resumed_exactly(tmp_path: Path, sales_db: Path) -> None:
    bench = shop(tmp_path, sales_db, 48)
    args = ["--agent", "python", "-O", "function=tests.tool_agents:busy", "-O", "tools=true", "--concurrency", "16"]
    whole = tmp_path / "whole.db"
    result = run("run", bench, *args, "-o", whole)
    assert result.returncode == 0, result.stderr
    uninterrupted = answers_of(whole)
    assert len(uninterrupted) == 48
    for answer in uninterrupted.values():
        assert [c["operation"] for c in answer["tool_calls"]] == ["run_query"] * 3 + ["submit_answer"]
        assert all(step["error"] is None for step in answer["steps"]) and len(answer["steps"]) == 3
        assert answer["text"].startswith("counts [") and "error" not in answer["text"]

    resumed = tmp_path / "resumed.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [str(BIARENA), "run", str(bench), *args, "-o", str(resumed)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    answered = 0
    while time.monotonic() < deadline and process.poll() is None:
        if resumed.exists():
            try:
                with sqlite3.connect(f"file:{resumed}?mode=ro", uri=True, timeout=1) as conn:
                    answered = conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
            except sqlite3.Error:
                answered = 0
            if answered >= 8:
                break
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert answered > 0, "the run recorded no answer before it was killed"
    before = answers_of(resumed)
    assert 0 < len(before) < 48, "the run was not killed mid-way"
    finished = run("run", bench, *args, "-o", resumed)
    assert finished.returncode == 0, finished.stderr
    after = answers_of(resumed)
    assert {qid: kept(a) for qid, a in after.items() if qid in before} == {qid: kept(a) for qid, a in before.items()}
    assert {qid: kept(a) for qid, a in after.items()} == {qid: kept(a) for qid, a in uninterrupted.items()}


@pytest.fixture
def session_parts(tmp_path: Path, sales_db: Path) -> tuple[AgentEnv, Any]:
    bench = load_benchmark(shop(tmp_path, sales_db, 1))
    pool = DatabasePool(bench)
    yield AgentEnv(bench, pool), bench.questions[0]
    pool.close()


def test_caps_are_errors_the_system_reads(session_parts: tuple[AgentEnv, Any]) -> None:
    env, question = session_parts
    answer = Answer(question_id=question.id, system={"agent": "x"})
    session = ToolSession(env, question, answer, ToolLimits(max_statements=2, max_result_bytes=200))
    wide = session.call("run_query", {"sql": "SELECT * FROM sales"})
    assert wide["truncated"] and 0 < len(wide["rows"]) < 20 and "max_result_bytes 200" in wide["note"]
    session.call("run_query", {"sql": "SELECT 1"})
    with pytest.raises(ToolError, match="statement cap reached: 2 statements"):
        session.call("run_query", {"sql": "SELECT 2"})
    with pytest.raises(ToolError, match="no table 'nope'"):
        session.call("describe_table", {"table": "nope"})
    with pytest.raises(ToolError, match="takes no argument 'limit'"):
        session.call("run_query", {"sql": "SELECT 1", "limit": 3})
    with pytest.raises(ToolError, match="no tool 'drop_table'"):
        session.call("drop_table", {})
    assert [c.error is None for c in answer.tool_calls] == [True, True, False, False, False]
    assert len(answer.steps) == 2  # a refused statement never reached the database

    timed = ToolSession(env, question, answer, ToolLimits(max_database_seconds=30))
    timed.call("run_query", {"sql": "SELECT 1"})
    timed.database_seconds = 30.0  # as if its statements had spent the question's time in the database
    with pytest.raises(ToolError, match="time cap reached"):
        timed.call("run_query", {"sql": "SELECT 1"})

    late = ToolSession(env, question, answer, deadline=time.monotonic() - 1)
    with pytest.raises(ToolError, match="deadline has passed"):
        late.call("list_tables", {})
    ended = ToolSession(env, question, answer)
    ended.close()
    with pytest.raises(ToolError, match="session has ended"):
        ended.call("list_tables", {})


def test_tools_need_the_extra_and_refuse_a_bad_option(tmp_path: Path, sales_db: Path) -> None:
    bench = shop(tmp_path, sales_db, 1)
    bad = run(
        "run", bench, "--agent", "python", "-O", "function=tests.tool_agents:busy", "-O", "max_statements=0",
        "-o", tmp_path / "x.db",
    )  # fmt: skip
    assert bad.returncode == 2 and "max_statements" in bad.stderr and "Traceback" not in bad.stderr


def test_what_the_tools_say_back_is_redacted(session_parts: tuple[AgentEnv, Any]) -> None:
    env, question = session_parts
    secret = "sk-tools-4242-abcdef-secret"
    remember_secret(secret)  # a key of the environment biarena runs in, as a system under test might quote it
    answer = Answer(question_id=question.id, system={"agent": "x"})
    session = ToolSession(env, question, answer)
    said = session.call("run_query", {"sql": f"SELECT '{secret}' AS k, 'kept' AS other"})
    assert secret not in json.dumps(said) and said["rows"][0][1] == "kept"
    with pytest.raises(ToolError) as refused:
        session.call("describe_table", {"table": secret})
    assert secret not in str(refused.value)
    assert secret not in answer.model_dump_json(include={"tool_calls"})
