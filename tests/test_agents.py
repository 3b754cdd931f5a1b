"""Every agent with the mock model: good replies, malformed ones, failing and slow SQL, model failures."""

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

import pytest

from biarena.agents import AgentEnv, make_system
from biarena.benchmarks import load_benchmark, save_benchmark
from biarena.db import DatabasePool
from biarena.llm import MockProvider, Model, RetryableError
from biarena.records import Benchmark, DatabaseRef, Question

GOOD = "```sql\nSELECT count(*) FROM sales\n```"


def shop_env(tmp_path: Path, sales_db: Path) -> AgentEnv:
    """A one-question benchmark over the sales database, with a clock anchor and business knowledge."""
    bench = Benchmark(
        name="shop",
        now=datetime(2023, 1, 17, 9, 30),
        knowledge="Amounts are in euros.",
        databases={"sales": DatabaseRef(path=str(sales_db))},
        questions=[
            Question(
                id="q1", text="How many sales were made?", database="sales", gold_sql=["SELECT count(*) FROM sales"]
            )
        ],
    )
    benchmark = load_benchmark(save_benchmark(bench, tmp_path / "shop"))
    return AgentEnv(benchmark=benchmark, databases=DatabasePool(benchmark, timeout=0.3))


@pytest.fixture
def env(tmp_path: Path, sales_db: Path) -> AgentEnv:
    return shop_env(tmp_path, sales_db)


def mock(*replies: object) -> tuple[Model, MockProvider]:
    provider = MockProvider(list(replies))
    return Model(provider, cache=None, backoff=0.0, retries=1), provider


def ask(name: str, env: AgentEnv, model: Model, **options: object):
    agent = make_system(name, model=model, **options)
    return agent.answer(env.benchmark.questions[0], env)


def test_text2sql_good_answer_and_prompt(env: AgentEnv) -> None:
    model, provider = mock(GOOD)
    answer = ask("text2sql", env, model)
    assert answer.status == "ok" and answer.final_sql == "SELECT count(*) FROM sales"
    assert answer.steps[0].preview == [[400]] and answer.steps[0].row_count == 1
    assert answer.usage.calls == 1 and answer.system.prompt_hash
    system = provider.requests[0].messages[0][1]
    assert "Today is 2023-01-17 09:30:00 (Tuesday)" in system and "CREATE TABLE sales" in system
    assert "Amounts are in euros." in system


def test_text2sql_malformed_and_failing(env: AgentEnv) -> None:
    model, _ = mock("I would rather not write SQL.")
    answer = ask("text2sql", env, model)
    assert answer.status == "error" and "no SQL" in (answer.error or "")
    # an execution error goes back to the model once, and the corrected query is used
    model, provider = mock("```sql\nSELECT reveune FROM sales\n```", GOOD)
    answer = ask("text2sql", env, model)
    assert [s.ok for s in answer.steps] == [False, True] and answer.final_sql.endswith("FROM sales")
    assert "no such column" in provider.requests[1].messages[-1][1]
    # a statement that runs too long is interrupted and recorded as a timeout
    model, _ = mock("```sql\nSELECT count(*) FROM big a, big b, big c\n```")
    answer = ask("text2sql", env, model, retries=0)
    assert answer.steps[0].error_kind == "timeout"
    # a write is refused by the sandbox
    model, _ = mock("```sql\nDELETE FROM sales\n```")
    assert ask("text2sql", env, model, retries=0).steps[0].error_kind == "rejected"


def test_model_failure_is_recorded_not_raised(env: AgentEnv) -> None:
    model, _ = mock(RetryableError("timed out"))
    for name in ("text2sql", "sequential", "iterative", "bibench_baseline", "no_interaction"):
        options = {"context_tokens": 200_000} if name == "no_interaction" else {}
        answer = ask(name, env, model, **options)
        assert answer.status == "error" and "gave up" in (answer.error or ""), name


def test_sequential_plan_queries_synthesis(env: AgentEnv) -> None:
    reply = (
        "Plan: count all sales, then split them by city.\n\nQuery 1: total\n```sql\nSELECT count(*) FROM sales\n"
        "```\nQuery 2: broken\n```sql\nSELECT nope FROM sales\n```\nQuery 3: by city\n```sql\n"
        "SELECT city_id, count(*) FROM sales GROUP BY city_id\n```\nQuery 4: too many\n```sql\nSELECT 1\n```"
    )
    model, provider = mock(reply, "There were 400 sales.")
    answer = ask("sequential", env, model, max_queries=3)
    assert answer.plan == "count all sales, then split them by city."
    assert len(answer.steps) == 3 and [s.ok for s in answer.steps] == [True, False, True]  # index-aligned
    assert answer.text == "There were 400 sales." and answer.usage.calls == 2
    synthesis = provider.requests[1].messages[-1][1]
    assert "Result 2 (broken):\nerror:" in synthesis and "400" in synthesis and "Result 4" not in synthesis
    assert answer.final_sql.startswith("SELECT city_id")


def test_iterative_loop(env: AgentEnv) -> None:
    model, provider = mock(
        json.dumps({"thought": "count them", "action": "query", "sql": "SELECT count(*) FROM sales"}),
        json.dumps({"thought": "done", "action": "answer", "answer": "400 sales."}),
    )
    answer = ask("iterative", env, model)
    assert answer.text == "400 sales." and len(answer.steps) == 1 and answer.usage.calls == 2
    assert answer.steps[0].purpose == "count them"
    assert "Step 1: count them" in provider.requests[1].messages[1][1]
    assert "at most 5 queries in all; 5 left" in provider.requests[0].messages[1][1]
    model, _ = mock("this is not JSON")
    answer = ask("iterative", env, model)
    assert answer.status == "error" and "not valid JSON" in (answer.error or "") and answer.error_stage == "step 1"


def test_no_interaction_fits_or_refuses(env: AgentEnv) -> None:
    model, provider = mock("About 400.")
    answer = ask("no_interaction", env, model, context_tokens=200_000)
    assert answer.text == "About 400." and not answer.steps and not answer.notes
    prompt = provider.requests[0].messages[0][1]
    assert "all 400 rows of table sales:" in prompt and "Think step by step" in prompt
    assert answer.schema_hash and answer.schema_chars and answer.schema_chars < len(prompt)
    model, provider = mock("never asked")
    answer = ask("no_interaction", env, model, context_tokens=600)
    assert answer.status == "error" and "does not fit" in (answer.error or "") and not provider.requests


@contextmanager
def json_server(reply: dict) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            body = json.dumps({**reply, "echo": payload["question"]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/answer"
    finally:
        server.shutdown()
        server.server_close()


def external_function(payload: dict) -> dict:
    """A Python system for the tests."""
    assert payload["dialect"] == "sqlite" and payload["now"].startswith("2023-01-17")
    return {"sql": "SELECT count(*) FROM sales", "answer": f"{payload['question']} 400"}


def test_external_systems(env: AgentEnv, tmp_path: Path) -> None:
    question = env.benchmark.questions[0]
    with json_server({"sql": "SELECT count(*) FROM sales", "answer": "400"}) as url:
        answer = make_system("http", url=url).answer(question, env)
    assert answer.text == "400" and answer.steps[0].preview == [[400]]
    script = tmp_path / "system.py"
    script.write_text(
        "import json, sys\np = json.load(sys.stdin)\n"
        "print(json.dumps({'queries': ['SELECT 1', 'DELETE FROM sales'], 'answer': p['question']}))\n"
    )
    answer = make_system("command", command=f"{sys.executable} {script}").answer(question, env)
    assert answer.text == question.text and [s.error_kind for s in answer.steps] == [None, "rejected"]
    answer = make_system("python", function="tests.test_agents:external_function").answer(question, env)
    assert answer.final_sql == "SELECT count(*) FROM sales" and answer.text.endswith("400")
    broken = make_system("command", command=f"{sys.executable} -c 'import sys; sys.exit(3)'").answer(question, env)
    assert broken.status == "error" and "exit code 3" in (broken.error or "")
