"""Answers keep what judges and people need: work done before a failure, result sizes, every digit, the schema
shown, the options that change answers, and an `error` status only for an answer with neither text nor SQL."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from biarena.agents import AgentEnv
from biarena.db import DatabasePool
from biarena.llm import RetryableError
from biarena.metrics import ScoringContext
from biarena.metrics.execution import ExecutionScorer
from biarena.records import Answer
from tests.test_agents import ask, mock, shop_env


@pytest.fixture
def env(tmp_path: Path, sales_db: Path) -> AgentEnv:
    return shop_env(tmp_path, sales_db)


PLANNED = (
    "Plan: count all sales, then split them by city.\n\nQuery 1: total sales\n```sql\nSELECT count(*) FROM sales\n"
    "```\nQuery 2: sales per city\n```sql\nSELECT city_id, count(*) FROM sales GROUP BY city_id\n```"
)


def test_failed_synthesis_keeps_plan_and_steps(env: AgentEnv) -> None:
    model, _ = mock(PLANNED, RetryableError("timed out"))
    answer = ask("sequential", env, model)
    assert answer.plan == "count all sales, then split them by city."
    assert [s.purpose for s in answer.steps] == ["total sales", "sales per city"]
    assert all(s.ok for s in answer.steps) and answer.steps[0].preview == [[400]]
    assert answer.error_stage == "synthesis" and answer.error.startswith("synthesis failed:")
    assert "gave up" in answer.error and answer.text is None
    # it offers a final SQL, so it is an answer (judged and scored), not a failed one
    assert answer.status == "ok" and answer.final_sql.startswith("SELECT city_id")
    assert answer.usage.calls == 1


def test_bad_json_on_step_two_keeps_step_one(env: AgentEnv) -> None:
    first = json.dumps({"thought": "count them", "action": "query", "sql": "SELECT count(*) FROM sales"})
    model, _ = mock(first, "no JSON here")
    answer = ask("iterative", env, model)
    assert len(answer.steps) == 1 and answer.steps[0].ok and answer.steps[0].purpose == "count them"
    assert answer.plan == "count them" and answer.error_stage == "step 2" and "not valid JSON" in answer.error
    assert answer.status == "ok" and answer.final_sql == "SELECT count(*) FROM sales"


def test_failure_before_any_work_is_an_error(env: AgentEnv) -> None:
    model, _ = mock(RetryableError("timed out"))
    answer = ask("sequential", env, model)
    assert answer.status == "error" and answer.error_stage == "plan and queries" and not answer.steps


def test_failed_query_in_a_good_answer_is_a_failed_step(env: AgentEnv) -> None:
    reply = (
        "Query 1: broken\n```sql\nSELECT nope FROM sales\n```\nQuery 2: total\n```sql\nSELECT count(*) FROM sales\n```"
    )
    model, _ = mock(reply, "There were 400 sales.")
    answer = ask("sequential", env, model)
    assert answer.status == "ok" and answer.error is None and [s.ok for s in answer.steps] == [False, True]
    context = ScoringContext(benchmark=env.benchmark, databases=env.databases)
    scores = {s.name: s for s in ExecutionScorer()(env.benchmark.questions[0], answer, context)}
    assert scores["ser"].value == 0.5 and scores["execution"].value == 1.0


def test_result_size_reaches_the_model(env: AgentEnv) -> None:
    reply = "Query 1: numbers\n```sql\nSELECT n FROM big WHERE n < 500\n```"
    model, provider = mock(reply, "Done.")
    answer = ask("sequential", env, model)
    step = answer.steps[0]
    assert step.row_count == 500 and len(step.preview) == 20
    synthesis = provider.requests[1].messages[-1][1]
    assert "(first 20 of 500 rows)" in synthesis and "Result 1 (numbers):" in synthesis
    # cut by the sandbox's row cap: the model learns there are at least that many
    capped = AgentEnv(env.benchmark, DatabasePool(env.benchmark, max_rows=100))
    model, provider = mock(reply, "Done.")
    answer = ask("sequential", capped, model)
    assert answer.steps[0].truncated and "(first 20 of at least 100 rows)" in provider.requests[1].messages[-1][1]
    # a small result says how many rows it has
    model, provider = mock("```sql\nSELECT n FROM big WHERE n < 3\n```", "Done.")
    ask("sequential", env, model)
    assert "(3 rows)" in provider.requests[1].messages[-1][1]


def test_numbers_keep_their_digits(env: AgentEnv) -> None:
    model, provider = mock("```sql\nSELECT 1234567.891 AS revenue, 0.1 + 0.2 AS share, 2.5e-7 AS tiny\n```", "Done.")
    answer = ask("sequential", env, model)
    synthesis = provider.requests[1].messages[-1][1]
    assert "1234567.891 | 0.3 | 2.5e-07" in synthesis and "e+06" not in synthesis
    model, _ = mock("```sql\nSELECT 1234567.891 AS revenue\n```")
    assert "1234567.891" in ask("text2sql", env, model).text
    assert answer.steps[0].preview == [[1234567.891, 0.30000000000000004, 2.5e-07]]


def test_schema_shown_and_answer_changing_options_are_recorded(env: AgentEnv) -> None:
    model, provider = mock("```sql\nSELECT 1\n```")
    answer = ask("text2sql", env, model, sample_rows=1)
    system = provider.requests[0].messages[0][1]
    assert answer.schema_chars and answer.schema_chars < len(system) and len(answer.schema_hash or "") == 12
    assert answer.system.options == {"max_tokens": 384, "sample_rows": 1, "retries": 1}
    other = ask("text2sql", env, mock("```sql\nSELECT 1\n```")[0], sample_rows=3)
    assert other.schema_hash != answer.schema_hash and other.schema_chars > answer.schema_chars
    sequential = ask("sequential", env, mock("```sql\nSELECT 1\n```", "ok")[0], max_queries=2)
    assert sequential.system.options == {
        "max_tokens": 450,
        "sample_rows": 2,
        "max_queries": 2,
        "answer_words": 400,
        "answer_tokens": 650,
        "short_answer": False,
    }


def test_status_error_only_without_text_and_sql(env: AgentEnv) -> None:
    model, _ = mock("I would rather not write SQL.")
    answer = ask("text2sql", env, model)
    assert answer.status == "error" and answer.error == "the model wrote no SQL" and answer.text is None
    assert "I would rather not write SQL." in answer.notes[0]
    # a sequential reply without SQL still gets a synthesized (data-free) answer, with a note saying so
    model, _ = mock("I cannot query this.", "No data was looked up.")
    answer = ask("sequential", env, model)
    assert answer.status == "ok" and answer.text == "No data was looked up." and not answer.steps
    assert any("no SQL" in note for note in answer.notes)


def test_version_one_answers_still_load() -> None:
    old = {
        "format_version": 1,
        "question_id": "q1",
        "system": {"agent": "text2sql", "model": "mock:scripted", "prompt_hash": "abc", "options": {}},
        "plan": None,
        "steps": [{"sql": "SELECT 1", "columns": ["1"], "preview": [[1]], "row_count": 1, "elapsed": 0.1}],
        "final_sql": "SELECT 1",
        "text": "1",
        "usage": {"calls": 1, "cache_hits": 0, "prompt_tokens": 3, "completion_tokens": 2, "cost": None},
        "status": "ok",
        "error": None,
        "created_at": datetime(2024, 1, 1, tzinfo=UTC).isoformat(),
    }
    answer = Answer.model_validate_json(json.dumps(old))
    assert answer.format_version == 1 and answer.steps[0].purpose is None and answer.notes == []
    assert answer.schema_hash is None and answer.error_stage is None
    assert Answer(question_id="q", system=answer.system).format_version == 2
