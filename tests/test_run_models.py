"""Runs with model agents: cache (a re-run makes zero calls), concurrency, budgets, stratified samples."""

import json
import re
from pathlib import Path

from biarena.benchmarks import load_benchmark
from biarena.runner import select_questions
from tests.openai_stub import openai_stub
from tests.test_cli import biarena


def sql_reply(body: dict) -> str:
    return "```sql\nSELECT count(*) FROM metric_log\n```"


def test_second_identical_run_makes_zero_model_calls(tmp_path: Path, bis_synth_dir: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    with openai_stub(sql_reply) as (url, state):
        model = f"openai:stub@{url}"
        first = biarena(
            "run", bis_synth_dir, "--agent", "text2sql", "--model", model, "--limit", "4", "-o", tmp_path / "first.run"
        )
        assert first.returncode == 0, first.stderr
        made = len(state.requests)
        assert made == 4
        second = biarena(
            "run", bis_synth_dir, "--agent", "text2sql", "--model", model, "--limit", "4", "-o", tmp_path / "second.run"
        )
        assert second.returncode == 0, second.stderr
        assert len(state.requests) == made  # nothing reached the server
        shown = biarena("show", tmp_path / "second.run", "--usage")
        assert re.search(r"usage: 0 model calls, 4 replies from the cache", shown.stdout), shown.stdout
        # --no-cache asks the model again
        third = biarena(
            "run",
            bis_synth_dir,
            "--agent",
            "text2sql",
            "--model",
            model,
            "--limit",
            "4",
            "--no-cache",
            "-o",
            tmp_path / "third.run",
        )
        assert third.returncode == 0 and len(state.requests) == made + 4


def test_budget_concurrency_and_resume(tmp_path: Path, bis_synth_dir: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    run = tmp_path / "budget.run"
    with openai_stub(sql_reply, latency=0.05) as (url, state):
        args = [
            "run",
            bis_synth_dir,
            "--agent",
            "text2sql",
            "--model",
            f"openai:budget@{url}",
            "--limit",
            "12",
            "--concurrency",
            "4",
            "-o",
            run,
        ]
        stopped = biarena(*args, "--max-calls", "5")
        assert stopped.returncode == 0 and "--max-calls budget" in stopped.stderr
        shown = biarena("show", run)
        answered = int(re.search(r"(\d+) of 12 answered", shown.stdout).group(1))
        assert 5 <= answered < 12
        finished = biarena(*args)
        assert finished.returncode == 0
        assert "12 of 12 answered" in biarena("show", run).stdout
        assert len(state.requests) == 12


def test_model_failure_on_one_question_is_recorded(tmp_path: Path, bis_synth_dir: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    with openai_stub(sql_reply, failures=[400]) as (url, _):
        run = tmp_path / "fail.run"
        result = biarena(
            "run", bis_synth_dir, "--agent", "text2sql", "--model", f"openai:fail@{url}", "--limit", "3", "-o", run
        )
        assert result.returncode == 3  # a question left without an answer by a model error
        assert "(2 ran, 0 SQL failed), 1 no answer" in result.stderr
        assert re.search(r"\[\d/3\] \S+: no answer: .*400", result.stderr), result.stderr
        assert "1 question has no answer: run the same command with --retry-errors" in result.stderr
        exported = tmp_path / "fail.jsonl"
        biarena("export", run, "-o", exported)
        records = [json.loads(line) for line in exported.read_text().splitlines()]
        assert sum(r["status"] == "error" for r in records) == 1 and "400" in next(
            r["error"] for r in records if r["status"] == "error"
        )


def test_stratified_sample(bis_synth_dir: Path) -> None:
    benchmark = load_benchmark(bis_synth_dir)
    chosen = select_questions(benchmark, per_category=2)
    labels = [q.labels[0] for q in chosen]
    assert len(chosen) == 20 and all(labels.count(label) == 2 for label in set(labels))
    assert select_questions(benchmark, per_category=2) == chosen
