"""Reading model replies: every fence and plan form, bare statements, and a step for every query written."""

from pathlib import Path

import pytest

from biarena.agents import AgentEnv
from biarena.agents.written_query import WrittenQuery, written_plan, written_queries
from biarena.metrics import ScoringContext
from biarena.metrics.execution import ExecutionScorer
from tests.test_agents import ask, mock, shop_env


@pytest.fixture
def env(tmp_path: Path, sales_db: Path) -> AgentEnv:
    return shop_env(tmp_path, sales_db)


Q = WrittenQuery


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("```sql\nSELECT 1\n```", [Q("SELECT 1")]),
        ("```mysql\nSELECT count(*) FROM sales;\n```", [Q("SELECT count(*) FROM sales")]),
        ("```PostgreSQL\nSELECT 1\n```", [Q("SELECT 1")]),
        ("```sqlite3\nSELECT 1\n```", [Q("SELECT 1")]),
        ("``` sql\nSELECT 1\n```", [Q("SELECT 1")]),
        ("```\nSELECT 1\n```", [Q("SELECT 1")]),
        ("~~~sql\nSELECT 1\n~~~", [Q("SELECT 1")]),
        ("```sql SELECT 1```", [Q("SELECT 1")]),
        ("```SELECT 1```", [Q("SELECT 1")]),
        ("```sql\nSELECT 1\nFROM t```", [Q("SELECT 1\nFROM t")]),
        # a block of another language is not a query; one that holds SQL is
        ("```python\nprint(1)\n```\n```text\nSELECT 2\n```", [Q("SELECT 2")]),
        ('```json\n{"a": 1}\n```', []),
        # two statements in one block are two queries (a semicolon inside a string is not a separator)
        ("```sql\nSELECT 1;\nSELECT ';' AS x;\n```", [Q("SELECT 1"), Q("SELECT ';' AS x")]),
        # a semicolon inside quoting the splitter does not know keeps the statement whole
        ("```mysql\nSELECT `a;b` FROM t;\n```", [Q("SELECT `a;b` FROM t")]),
        # a block that cannot be parsed is still a query the model wrote
        ("```sql\nSELEC FROM WHERE\n```", [Q("SELEC FROM WHERE")]),
        # an unclosed last block (a reply cut at its token limit) is kept
        (
            "```sql\nSELECT 1\n```\n```sql\nSELECT city_id, count(*) FROM sales GROUP BY",
            [Q("SELECT 1"), Q("SELECT city_id, count(*) FROM sales GROUP BY")],
        ),
        # a block opened before the last one was closed
        ("```sql\nSELECT 1\n```sql\nSELECT 2\n```", [Q("SELECT 1"), Q("SELECT 2")]),
    ],
)
def test_fences(reply: str, expected: list[WrittenQuery]) -> None:
    assert written_queries(reply) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("SELECT count(*)\nFROM sales\nThis query counts all the sales.", ["SELECT count(*)\nFROM sales"]),
        ("SELECT count(*) FROM sales\n\nIt returns the number of sales.", ["SELECT count(*) FROM sales"]),
        ("SELECT count(*) FROM sales; this counts them", ["SELECT count(*) FROM sales"]),
        ("SELECT 1; SELECT 2;", ["SELECT 1", "SELECT 2"]),
        ("WITH t AS (\n  SELECT 1 AS x\n)\nSELECT x FROM t", ["WITH t AS (\n  SELECT 1 AS x\n)\nSELECT x FROM t"]),
        ("SELECT\n  Revenue AS rev,\n  Cost\nFROM t", ["SELECT\n  Revenue AS rev,\n  Cost\nFROM t"]),
        ("Here you go:\nSELECT 1\nSELECT 2", ["SELECT 1", "SELECT 2"]),
        # a sentence that starts with the word "select" is prose
        ("select the top city by revenue and then compare it.", []),
    ],
)
def test_bare_statements(reply: str, expected: list[str]) -> None:
    assert [q.sql for q in written_queries(reply)] == expected


def test_corgi_format_without_fences() -> None:
    reply = (
        "Query 1: [Total sales]\nSELECT count(*)\nFROM sales\n"
        "Query 2: [Sales by city]\nSELECT city_id, count(*)\nFROM sales\nGROUP BY city_id"
    )
    assert written_queries(reply) == [
        Q("SELECT count(*)\nFROM sales", "Total sales"),
        Q("SELECT city_id, count(*)\nFROM sales\nGROUP BY city_id", "Sales by city"),
    ]


@pytest.mark.parametrize(
    ("reply", "plan", "purposes"),
    [
        (
            "Plan: count sales, then split by city.\n\nQuery 1: total\n```sql\nSELECT 1\n```\n"
            "Query 2: by city\n```sql\nSELECT 2\n```",
            "count sales, then split by city.",
            ["total", "by city"],
        ),
        (
            "**Plan**: count sales.\n\n**Query 1**: total\n```sql\nSELECT 1\n```\n**Query 2:** by city\n```sql\n"
            "SELECT 2\n```",
            "count sales.",
            ["total", "by city"],
        ),
        (
            "**Plan:**\n1. Count sales.\n2. Split by city.\n\n### Query 1 - total\n```sql\nSELECT 1\n```",
            "1. Count sales.\n2. Split by city.",
            ["total"],
        ),
        ("## Plan\nCount sales.\n\nQuery 1) total\n```sql\nSELECT 1\n```", "Count sales.", ["total"]),
        (
            "I will count the sales.\n\nFirst, the total:\n```sql\nSELECT 1\n```",
            "I will count the sales.\n\nFirst, the total:",
            ["First, the total"],
        ),
        ("Here is the query:\n```sql\nSELECT 1\n```", "Here is the query:", [None]),
        ("Planning aside, the count.\n```sql\nSELECT 1\n```", "Planning aside, the count.", [None]),
        ("```sql\nSELECT 1\n```", None, [None]),
    ],
)
def test_plans_and_purposes(reply: str, plan: str | None, purposes: list[str | None]) -> None:
    assert written_plan(reply) == plan
    assert [q.purpose for q in written_queries(reply)] == purposes


def test_every_written_query_is_a_step_and_counts_in_ser(env: AgentEnv) -> None:
    reply = (
        "Plan: three looks.\nQuery 1: total\n```mysql\nSELECT count(*) FROM sales\n```\n"
        "Query 2: garbled\n```sql\nSELEC FROM\n```\nQuery 3: cut off\n```sql\nSELECT city_id, count(*) FROM sales GROUP"
    )
    model, provider = mock(reply, "Partial answer.")
    answer = ask("sequential", env, model)
    assert [s.sql for s in answer.steps] == [
        "SELECT count(*) FROM sales",
        "SELEC FROM",
        "SELECT city_id, count(*) FROM sales GROUP",
    ]
    assert [s.ok for s in answer.steps] == [True, False, False]
    assert [s.purpose for s in answer.steps] == ["total", "garbled", "cut off"]
    assert "Result 3 (cut off):\nerror:" in provider.requests[1].messages[-1][1]
    context = ScoringContext(benchmark=env.benchmark, databases=env.databases)
    ser = next(s for s in ExecutionScorer()(env.benchmark.questions[0], answer, context) if s.name == "ser")
    assert ser.value == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("header", "purpose"),
    [
        ("Query 1: Total sales", "Total sales"),
        ("Query 1: [Total sales]", "Total sales"),
        ("**Query 1:** Total sales", "Total sales"),
        ("**Query 1: Total sales**", "Total sales"),
        ("**SQL Query 1: Total sales**", "Total sales"),
        ("1. **Query 1** – Total sales", "Total sales"),
        ("- Query 1: Total sales", "Total sales"),
        ("### Query 1 - Total sales", "Total sales"),
        ("Query 1. Total sales", "Total sales"),
        ("### Query 1", None),
    ],
)
def test_query_headers(header: str, purpose: str | None) -> None:
    assert written_queries(f"Plan: look.\n{header}\n```sql\nSELECT 1\n```") == [Q("SELECT 1", purpose)]
    assert written_plan(f"Plan: look.\n{header}\n```sql\nSELECT 1\n```") == "look."


def test_a_query_written_inside_the_placeholders_brackets_is_a_step() -> None:
    reply = (
        "Plan: sum the costs per task.\n\n"
        "Query 1: [SELECT task_id, SUM(cost) AS total FROM metric_log GROUP BY task_id]\n"
        "Query 2: [SELECT count(*) FROM metric_log WHERE ts >= '2023-01-14'];\n"
        "Query 3: [the tasks that cost most]\n"
    )
    assert [q.sql for q in written_queries(reply)] == [
        "SELECT task_id, SUM(cost) AS total FROM metric_log GROUP BY task_id",
        "SELECT count(*) FROM metric_log WHERE ts >= '2023-01-14'",
    ]
