"""The agents as the papers describe them: CORGI/DB-QA sequential, DB-QA iterative and no-interaction, and
BI-Bench's baseline, each driven by the mock model."""

import json
import re
from pathlib import Path

import pytest

from biarena.agents import AgentEnv
from biarena.agents.iterative import NO_SQL
from biarena.llm import ChatRequest
from tests.test_agents import ask, mock, shop_env


@pytest.fixture
def env(tmp_path: Path, sales_db: Path) -> AgentEnv:
    return shop_env(tmp_path, sales_db)


def queries(count: int, headed: bool = True) -> str:
    blocks = [f"{f'Query {i}: look {i}' if headed else ''}\n```sql\nSELECT {i} AS n\n```" for i in range(1, count + 1)]
    return "Plan: look at the sales from several sides.\n\n" + "\n".join(blocks)


def test_sequential_plan_as_long_as_needed_up_to_max_queries(env: AgentEnv) -> None:
    model, provider = mock(queries(7), "Sales are steady.")
    answer = ask("sequential", env, model)
    first = provider.requests[0]
    # the standing instructions follow the schema in the system prompt; the question's message is short
    assert "up to 5 SQL queries" in first.messages[0][1] and first.max_tokens == 150 + 150 * 5
    assert first.messages[1][1].startswith("Question: ") and len(first.messages[1][1]) < 200
    # the reply ends where a sixth query would begin: it could not run
    assert first.stop == ("Query 6:",) and "Query 6" not in provider.requests[1].messages[2][1]
    assert len(answer.steps) == 5 and [s.purpose for s in answer.steps] == [f"look {i}" for i in range(1, 6)]
    assert answer.notes == []
    # queries without the "Query N:" line are not stopped: the first five run, and the answer says so
    model, provider = mock(queries(7, headed=False), "Sales are steady.")
    answer = ask("sequential", env, model)
    assert len(answer.steps) == 5 and answer.notes == ["the model wrote 7 queries; the first 5 ran (max_queries)"]
    # the token budget grows with the number of queries allowed
    model, provider = mock(queries(2), "ok")
    ask("sequential", env, model, max_queries=2)
    assert provider.requests[0].max_tokens == 450 and "up to 2 SQL queries" in provider.requests[0].messages[0][1]


def test_sequential_synthesis_continues_the_conversation_with_results_and_counts(env: AgentEnv) -> None:
    reply = (
        "Plan: count the sales, then see which cities sell most.\nQuery 1: all sales\n```sql\n"
        "SELECT count(*) AS sales FROM sales\n```\nQuery 2: sales per city\n```sql\n"
        "SELECT city_id, count(*) AS n FROM sales GROUP BY city_id ORDER BY city_id\n```"
    )
    model, provider = mock(reply, "An analysis.")
    answer = ask("sequential", env, model)
    first, synthesis = provider.requests
    # the question, the plan and the SQL are the conversation so far, word for word; only the results are new
    assert synthesis.messages[:2] == first.messages and synthesis.messages[2] == ("assistant", reply)
    role, text = synthesis.messages[3]
    assert role == "user" and len(synthesis.messages) == 4
    assert "Result 1 (all sales):\nsales\n400\n(1 row)" in text
    assert "Result 2 (sales per city):" in text and "(5 rows)" in text
    assert "SELECT" not in text and "Plan:" not in text and "Note:" not in text
    assert "analysis (at most 400 words)" in text and synthesis.max_tokens == 650
    assert "comprehensive analysis (at most 400 words)" in synthesis.messages[0][1]
    # today and the business knowledge come once, in the system prompt both calls share
    system = synthesis.messages[0][1]
    assert "Today is 2023-01-17 09:30:00" in system and "Amounts are in euros." in system
    assert "Today is" not in text and "Amounts are in euros." not in text
    assert answer.text == "An analysis." and answer.plan == "count the sales, then see which cities sell most."


def test_sequential_synthesis_is_told_what_did_not_run(env: AgentEnv) -> None:
    model, provider = mock(queries(7, headed=False), "ok")
    ask("sequential", env, model, max_queries=2)
    text = provider.requests[1].messages[-1][1]
    assert "Note: only the first 2 queries ran." in text and "Result 3" not in text
    model, provider = mock("Plan: none needed.", "ok")
    answer = ask("sequential", env, model)
    assert "Note: the reply had no SQL query, so nothing ran." in provider.requests[1].messages[-1][1]
    assert answer.notes == ["the model wrote no SQL; the answer was written without data"]


def test_sequential_answer_length_and_short_answer(env: AgentEnv) -> None:
    model, provider = mock(queries(1), "ok")
    ask("sequential", env, model, answer_words=250)
    assert "(at most 250 words)" in provider.requests[1].messages[-1][1] and provider.requests[1].max_tokens == 425
    model, provider = mock(queries(1), "ok")
    answer = ask("sequential", env, model, short_answer=True)
    assert "concise answer (at most 100 words)" in provider.requests[1].messages[-1][1]
    assert provider.requests[1].max_tokens == 200 and answer.system.options["short_answer"] is True
    model, provider = mock(queries(1), "ok")
    ask("sequential", env, model, answer_tokens=90, max_tokens=300)
    assert [r.max_tokens for r in provider.requests] == [300, 90]


def _iterative(final: str, *decisions: dict):
    """A scripted iterative model: the decisions in order, then `final` for the consolidation prompt."""
    script = list(decisions)

    def reply(request: ChatRequest) -> str:
        prompt = request.messages[-1][1]
        if "Now answer the question" in prompt:
            return final
        return json.dumps(script.pop(0) if len(script) > 1 else script[0])

    return mock(reply)


def test_iterative_consolidates_at_the_step_limit(env: AgentEnv) -> None:
    model, provider = _iterative(
        "There were 400 sales.", {"thought": "count", "action": "query", "sql": "SELECT count(*) FROM sales"}
    )
    answer = ask("iterative", env, model, step_limit=3)
    assert answer.status == "ok" and answer.text == "There were 400 sales." and len(answer.steps) == 3
    assert answer.notes == ["the step limit (3) was reached; the answer consolidates what was found"]
    assert answer.usage.calls == 4 and answer.error is None
    last = provider.requests[-1].messages[-1][1]
    assert "Step 3: count" in last and "(1 row)" in last
    limits = [re.search(r"at most 3 queries in all; (\d) left", r.messages[-1][1]) for r in provider.requests[:3]]
    assert [m.group(1) for m in limits if m] == ["3", "2", "1"]


def test_iterative_query_without_sql_is_asked_again(env: AgentEnv) -> None:
    model, provider = _iterative(
        "unused",
        {"thought": "I should count", "action": "query"},
        {"thought": "count", "action": "query", "sql": "SELECT count(*) FROM sales"},
        {"thought": "done", "action": "answer", "answer": "400 sales."},
    )
    answer = ask("iterative", env, model)
    assert NO_SQL in provider.requests[1].messages[-1][1]
    assert answer.text == "400 sales." and len(answer.steps) == 1 and answer.steps[0].purpose == "count"
    # twice without SQL: it stops and consolidates; the thought is never the answer
    model, provider = _iterative("Nothing was looked up.", {"thought": "hmm", "action": "query", "sql": " "})
    answer = ask("iterative", env, model)
    assert answer.text == "Nothing was looked up." and not answer.steps and answer.usage.calls == 3
    assert answer.notes == ["step 1: the model chose to query twice without writing SQL; it stopped"]
    # an answer action without an answer is consolidated too
    model, _ = _iterative("Consolidated.", {"thought": "I know it", "action": "answer"})
    assert ask("iterative", env, model).text == "Consolidated."


def test_no_interaction_cuts_records_and_says_so(env: AgentEnv) -> None:
    model, provider = mock("The sales table holds many rows.\nCounting what I see.\nAnswer: About 400 sales.")
    answer = ask("no_interaction", env, model, context_tokens=2500)
    prompt = provider.requests[0].messages[0][1]
    cut = {
        m.group(3): (int(m.group(1)), int(m.group(2)))
        for m in re.finditer(r"first (\d+) of (\d+) rows of table (\w+)", prompt)
    }
    assert set(cut) == {"big", "sales"} and cut["big"][1] == 3000 and cut["sales"][1] == 400
    assert (
        0 < cut["sales"][0] < 400
        and "all 5 rows of table city:" in prompt
        and "all 2 rows of table status_mapping" in prompt
    )
    assert "Some tables are too large to show whole" in prompt
    assert answer.notes == [
        f"records cut to fit the context: first {n} of {m} rows of table {t}" for t, (n, m) in sorted(cut.items())
    ]
    # the chain of thought is kept as the plan, the answer after "Answer:" is the text
    assert answer.text == "About 400 sales." and answer.plan == "The sales table holds many rows.\nCounting what I see."
    assert len(prompt) <= (2500 - 512) * 4
    rows_shown = len([line for line in prompt.split("rows of table sales:\n")[1].split("\n\n")[0].splitlines()]) - 1
    assert rows_shown == cut["sales"][0]


def bibench_reply(main_sql: str | None = "SELECT count(*) FROM sales", supplementary: list[str] | None = None):
    supplementary = supplementary or ["How many cities?", "How many products?"]

    def reply(request: ChatRequest) -> str:
        last = request.messages[-1][1]
        if "Write two supplementary" in last:
            return json.dumps({"questions": supplementary})
        if last.startswith("Question: How many sales") and main_sql is None:
            return "I cannot write that."
        if last.startswith("Question:") and "Result:" not in last:
            return f"```sql\n{main_sql or 'SELECT 1'}\n```"
        if "Result:" in last:
            return "A short answer."
        return "There were 400 sales in all."

    return reply


def test_bibench_baseline_steps_answers_and_context(env: AgentEnv) -> None:
    model, provider = mock(bibench_reply())
    answer = ask("bibench_baseline", env, model)
    assert answer.text == "There were 400 sales in all." and answer.final_sql == "SELECT count(*) FROM sales"
    assert [s.purpose for s in answer.steps] == ["How many sales were made?", "How many cities?", "How many products?"]
    assert [s.short_answer for s in answer.steps] == ["A short answer."] * 3
    answers = [r.messages[-1][1] for r in provider.requests if "Answer the question in one or two" in r.messages[-1][1]]
    synthesis = provider.requests[-1].messages[-1][1]
    for prompt in [*answers, synthesis]:
        assert "Today is 2023-01-17 09:30:00 (Tuesday)" in prompt and "Amounts are in euros." in prompt
    assert "(1 row)" in answers[0]


def test_bibench_baseline_final_sql_only_from_the_main_question(env: AgentEnv) -> None:
    model, _ = mock(bibench_reply(main_sql=None))
    answer = ask("bibench_baseline", env, model)
    assert answer.final_sql is None and len(answer.steps) == 2 and answer.text == "There were 400 sales in all."
    assert answer.notes == ["the main question: the model wrote no SQL"] and answer.status == "ok"


def test_bibench_baseline_asks_for_exactly_two(env: AgentEnv) -> None:
    model, provider = mock(bibench_reply(supplementary=["Only one?"]))
    answer = ask("bibench_baseline", env, model)
    assert answer.status == "error" and answer.error_stage == "supplementary questions"
    assert "not valid JSON for the schema" in answer.error
    schema = json.loads(provider.requests[0].schema or "{}")
    assert schema["properties"]["questions"]["minItems"] == schema["properties"]["questions"]["maxItems"] == 2


def test_replies_the_schema_rejected_are_counted_on_the_answer(env: AgentEnv) -> None:
    good = json.dumps({"thought": "done", "action": "answer", "answer": "400 sales."})
    model, provider = mock("not json at all", good)
    answer = ask("iterative", env, model)
    assert answer.text == "400 sales." and len(provider.requests) == 2
    assert answer.usage.calls == 2 == model.usage.calls
    assert answer.usage.completion_tokens == model.usage.completion_tokens > 0
    # still invalid after asking again: both calls are counted and the answer says where it failed
    model, provider = mock("nope", "still nope", "Consolidated.")
    answer = ask("iterative", env, model, step_limit=1)
    assert answer.usage.calls == model.usage.calls == len(provider.requests)
