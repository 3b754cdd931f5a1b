"""The worked example `examples/agents-sdk/`: an OpenAI Agents SDK agent that biarena runs as a command system with
its database tools over MCP, end to end on the scripted mock served by `biarena model serve`."""

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.run_helpers import BIARENA, answers_of, cli, make_shop

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "agents-sdk"
FIXED_SQL = "SELECT city_id, SUM(amount) AS revenue FROM sales GROUP BY city_id ORDER BY revenue DESC"
"""The statement the mock script's agent runs once its first try failed, and submits."""


def require_agents_sdk() -> None:
    """Skip when the OpenAI Agents SDK (the test extra) is not installed; in CI, fail."""
    try:
        import agents  # noqa: F401
    except ImportError as error:
        if os.environ.get("CI"):
            pytest.fail(f"the OpenAI Agents SDK must be installed in CI: {error}")
        pytest.skip(f"the OpenAI Agents SDK is not installed: {error}")


@pytest.fixture
def served_mock(tmp_path: Path) -> Iterator[str]:
    """`biarena model serve` of the example's mock script on a free port; its base URL."""
    require_agents_sdk()
    errors = (tmp_path / "serve.err").open("w")
    server = subprocess.Popen(
        [
            str(BIARENA),
            "model",
            "serve",
            "--model",
            "mock",
            "-M",
            f"script={EXAMPLE / 'mock-script.yaml'}",
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
    )
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.append(server.stdout.readline().strip()), daemon=True)
    reader.start()
    reader.join(timeout=120)
    try:
        assert said and said[0].startswith("http://127.0.0.1:"), (tmp_path / "serve.err").read_text()
        yield said[0]
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server.stdout.close()
        errors.close()
    assert "Traceback" not in (tmp_path / "serve.err").read_text()


def test_the_agents_sdk_example_runs_end_to_end_on_the_served_mock(
    tmp_path: Path, sales_db: Path, served_mock: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_agents_sdk()
    # the agent reads its model from the environment, which biarena's command system passes on
    monkeypatch.setenv("OPENAI_BASE_URL", served_mock)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    bench = make_shop(tmp_path, sales_db, 6)
    run = tmp_path / "agent.run"
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLE / 'agent.py'))}"
    result = cli(
        "run", bench, "--agent", "command", "-O", f"command={command}", "-O", "tools=true",
        "--concurrency", "4", "-o", run,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr

    answers = answers_of(run)
    assert len(answers) == 6
    for answer in answers.values():
        assert answer["status"] == "ok", answer["error"]
        calls = answer["tool_calls"]
        assert [call["operation"] for call in calls] == [
            "list_tables",
            "describe_table",
            "run_query",
            "run_query",
            "submit_answer",
        ]
        assert {call["transport"] for call in calls} == {"mcp"}
        assert all(call["error"] is None for i, call in enumerate(calls) if i != 2)
        # the first statement names a column that is not there: biarena's error reaches the model through the SDK,
        # which runs the statement fixed (its purpose quotes the error it read)
        assert "no such column: city" in calls[2]["error"]
        assert "no such column: city" in calls[3]["arguments"]["purpose"]
        first, fixed = answer["steps"]
        assert [calls[2]["step"], calls[3]["step"]] == [0, 1]
        assert first["error"] and not fixed["error"] and fixed["sql"] == FIXED_SQL
        assert fixed["row_count"] == calls[3]["rows"] == 5
        # the answer is the one submitted through the tools: its text holds the rows the query returned
        assert answer["text"].startswith("Revenue by city, highest first:")
        assert json.loads(answer["text"].partition(":")[2])["rows"] == fixed["preview"]
        assert answer["final_sql"] == FIXED_SQL

    scored = cli("score", run)
    assert scored.returncode == 0, scored.stderr
    shown = cli("show", run, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    overall = json.loads(shown.stdout)["runs"][0]["overall"]
    assert overall["scores"]["ser"] == 0.5  # one of each answer's two statements ran
    assert overall["scores"]["execution"] == 1.0 and overall["outcomes"]["ran"] == 6
