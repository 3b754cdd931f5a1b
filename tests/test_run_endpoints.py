"""`run` and `score` against model servers that go away: one line, the command that resumes, an exit code; and an
agent and a judge on two servers with two keys, no key in any file written."""

import json
import re
import shlex
import time
from pathlib import Path

import pytest

from biarena.cli.run_cmd import run as run_function
from biarena.runner import RunStore
from tests.cli_in_process import cli
from tests.endpoint_stub import endpoint, free_port, hanging_server
from tests.judge_run_helpers import corgi_bench, fill, write_run
from tests.run_helpers import answers_of, spec_of


def sql_reply(body: dict) -> str:
    return "```sql\nSELECT count(*) FROM metric_log\n```"


def judge_reply(body: dict) -> str:
    """Valid JSON for the schema the request asks for (as a judge's model writes it)."""
    return json.dumps(fill(body["response_format"]["json_schema"]["schema"]))


def run_args(bench: Path, url: str, out: Path, *extra: str) -> list[str | Path]:
    model = f"openai:m@{url}"
    return ["run", bench, "--agent", "text2sql", "--model", model, "--limit", "6", "-o", out, *extra]


def test_a_dead_server_stops_the_run_with_one_line_and_the_command_that_resumes(
    tmp_path: Path, bis_synth_dir: Path
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1"
    out = tmp_path / "dead.run"
    stopped = cli(*run_args(bis_synth_dir, url, out, "-M", "retries=1"))
    assert stopped.returncode == 4, stopped.stderr
    lines = [line for line in stopped.stderr.splitlines() if line.startswith("stopped:")]
    assert len(lines) == 1, stopped.stderr
    assert f"openai:m@{url} does not answer (3 questions in a row got no reply" in lines[0]
    assert "0 of 6 questions answered" in lines[0]
    resume = lines[0].split("resume when it is back: ", 1)[1]
    assert resume.endswith("--retry-errors")
    assert len(answers_of(out)) == 3  # the other three were not asked
    with endpoint(sql_reply, port=port) as (_, state):
        resumed = cli(*shlex.split(resume)[1:])
    assert resumed.returncode == 0, resumed.stderr
    assert len(state.requests) == 6 and len(answers_of(out)) == 6
    assert all(a["status"] == "ok" for a in answers_of(out).values())


def test_a_hanging_server_stops_the_run_after_one_timeout(tmp_path: Path, bis_synth_dir: Path) -> None:
    with hanging_server() as url:
        stopped = cli(*run_args(bis_synth_dir, url, tmp_path / "hang.run", "-M", "timeout=0.5"))
    assert stopped.returncode == 4, stopped.stderr
    said = r"stopped: openai:m@\S+ does not answer \(3 questions in a row got no reply: APITimeoutError: no reply"
    assert re.search(said + r" within 0.5 s", stopped.stderr), stopped.stderr


def test_a_question_left_without_an_answer_by_the_model_exits_3(tmp_path: Path, bis_synth_dir: Path) -> None:
    with endpoint(sql_reply, actions=[("status", 400)]) as (url, _):
        result = cli(*run_args(bis_synth_dir, url, tmp_path / "one.run"))
    assert result.returncode == 3 and "(5 ran, 0 SQL failed), 1 no answer" in result.stderr


def test_retry_after_waits_show_in_the_progress_lines(tmp_path: Path, bis_synth_dir: Path) -> None:
    with endpoint(sql_reply, actions=[("status", 429, {"Retry-After": "1"})]) as (url, state):
        result = cli(*run_args(bis_synth_dir, url, tmp_path / "wait.run", "--limit", "1"))
    assert result.returncode == 0, result.stderr
    assert re.search(r"waiting 1 s: openai:m@\S+: HTTP 429: .*\(Retry-After 1 s\); attempt 2 in 1 s", result.stderr)
    assert len(state.requests) == 2


def test_an_agent_and_a_judge_on_two_servers_with_two_keys(
    tmp_path: Path, sales_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = {"AGENT_KEY": "sk-agent-5f1d2c", "JUDGE_KEY": "sk-judge-9a8b7c"}
    for name, key in keys.items():
        monkeypatch.setenv(name, key)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models.yaml").write_text(
        "agent:\n  model: openai:a@URL_A\n  api_key_env: AGENT_KEY\n"
        "judge:\n  model: openai:j@URL_B\n  api_key_env: JUDGE_KEY\n  timeout: 30\n"
    )
    bench = corgi_bench(tmp_path / "bench", sales_db, 2)
    with (
        endpoint(lambda body: "SELECT count(*) FROM sales", key=keys["AGENT_KEY"]) as (agent_url, agent),
        endpoint(judge_reply, key=keys["JUDGE_KEY"]) as (judge_url, judge),
    ):
        models = tmp_path / "models.yaml"
        models.write_text(models.read_text().replace("URL_A", agent_url).replace("URL_B", judge_url))
        out = tmp_path / "two.run"
        ran = cli("run", tmp_path / "bench" / "corgi-mini", "--agent", "text2sql", "--model", "agent", "-o", out)
        assert ran.returncode == 0, ran.stderr
        scored = cli("score", out, "--judge", "corgi", "--judge-model", "judge", "--judge-M", "retries=0")
        assert scored.returncode == 0, scored.stderr
        assert f"(judge model openai:j@{judge_url})" in scored.stderr
        # the judge's key given another way: a variable named on the command line
        other = write_run(tmp_path / "other.run", bench)
        rescored = cli(
            "score",
            other,
            "--judge",
            "corgi",
            "--judge-model",
            f"openai:j@{judge_url}",
            "--judge-M",
            "api_key_env=JUDGE_KEY",
        )
        assert rescored.returncode == 0, rescored.stderr
    assert agent.requests and set(agent.authorizations) == {f"Bearer {keys['AGENT_KEY']}"}
    assert judge.requests and set(judge.authorizations) == {f"Bearer {keys['JUDGE_KEY']}"}
    assert spec_of(out)["model"] == f"openai:a@{agent_url}"
    shown = cli("show", out)
    assert agent_url in shown.stdout
    written = [p for root in (tmp_path, Path(str(__import__("os").environ["BIARENA_HOME"]))) for p in root.rglob("*")]
    outputs = ran.stdout + ran.stderr + scored.stdout + scored.stderr + shown.stdout
    for key in keys.values():
        assert key not in outputs
        assert not [p for p in written if p.is_file() and key.encode() in p.read_bytes()]


def test_a_judges_server_gone_stops_scoring_with_the_command_that_scores_the_rest(
    tmp_path: Path, sales_db: Path
) -> None:
    bench = corgi_bench(tmp_path / "bench", sales_db, 6)
    run = write_run(tmp_path / "r.run", bench)
    url = f"http://127.0.0.1:{free_port()}/v1"
    started = time.monotonic()
    stopped = cli("score", run, "--judge", "corgi", "--judge-model", f"openai:j@{url}", "--judge-M", "retries=0")
    assert time.monotonic() - started < 120
    assert stopped.returncode == 4, stopped.stderr
    line = next(line for line in stopped.stderr.splitlines() if line.startswith("stopped:"))
    assert f"openai:j@{url} does not answer (3 judgements in a row got no reply" in line
    assert "--rescore" not in line and line.endswith("--judge-M retries=0")
    # the judgements the outage stopped were not stored as failed: the same command makes them when it is back
    with RunStore(run) as store:
        assert not [r for r in store.results() if r.scorer == "corgi" and r.applies]


def test_run_shows_few_options_of_its_own() -> None:
    import typer.main

    app = typer.Typer(add_completion=False)
    app.command()(run_function)
    params = [p for p in typer.main.get_command(app).params if not getattr(p, "hidden", False)]
    names = {opt for p in params for opt in p.opts}
    assert {"--structured", "--prices", "--no-cache"}.isdisjoint(names)
    assert {"-M", "--models", "--model"} <= names
    # the sandbox's options are shared with `score` (cli/options.py); the agent's and the model's are -O and -M
    shared = {"--db-url", "--timeout", "--sandbox", "--allow-superuser"}
    own = [p for p in params if not shared & set(p.opts)]
    assert len(params) - len(own) == len(shared)
    assert len(own) <= 18, [p.name for p in own]  # --repeats (tries) and --partial (predictions) joined the 16
