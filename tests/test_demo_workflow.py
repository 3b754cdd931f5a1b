"""`demo` as a workflow: the command line and `biarena.api.demo` give the same runs and summary from one library
function; its events are the four steps, the questions chosen and each run's own; each phase's cost is written."""

import json
from pathlib import Path
from typing import Any

import pytest

from biarena import api
from biarena.errors import UsageError
from biarena.runner import RunProgress, RunStore
from tests.cli_in_process import cli


def _answers(path: Path) -> list[tuple[str, str | None, str]]:
    with RunStore(path) as store:
        return sorted((a.question_id, a.final_sql, a.status) for a in store.answers())


def _scores(path: Path) -> list[tuple[str, str, float | None]]:
    with RunStore(path) as store:
        return sorted((s.question_id, s.name, s.value) for s in store.scores())


def test_the_cli_and_the_api_give_the_same_runs_and_summary(tmp_path: Path, bis_synth_dir: Path) -> None:
    by_cli, by_api = tmp_path / "cli", tmp_path / "api"
    agents = ("--agents", "text2sql, sequential", "-M", "cache=false")  # each asks the model: no cached reply
    done = cli("demo", "--model", "mock", *agents, "--benchmark", bis_synth_dir, "-o", by_cli)
    assert done.returncode == 0, done.stderr
    result = api.demo(
        by_api, model="mock", agents="text2sql,sequential", benchmark=bis_synth_dir, model_options={"cache": False}
    )

    assert result.report == by_api / "report.html" and result.report.stat().st_size > 10_000
    assert result.runs == [by_api / "text2sql.run", by_api / "sequential.run"]
    for name in ("text2sql.run", "sequential.run"):
        assert _answers(by_cli / name) == _answers(by_api / name) and _scores(by_api / name)
        assert _scores(by_cli / name) == _scores(by_api / name)
    text2sql, sequential = result.rows
    assert (text2sql.agent, sequential.agent) == ("text2sql", "sequential")
    assert text2sql.calls == len(result.questions) < sequential.calls  # sequential plans, then answers
    assert text2sql.answered == len(result.questions) == text2sql.ran
    assert "execution_accuracy" in result.scores and text2sql.means["execution_accuracy"] is not None
    for agent in result.rows:  # the command's table says what the result holds
        cells = [agent.agent, str(agent.answered), str(agent.ran)]
        cells += [f"{agent.means[n]:.3f}" for n in result.scores if agent.means.get(n) is not None]
        line = next(line for line in done.stdout.splitlines() if line.startswith(f"│ {agent.agent} "))
        assert [cell.strip() for cell in line.split("│")[1:4]] == cells[:3]
        assert all(cell in line for cell in cells)

    phases = json.loads((by_api / "demo-phases.json").read_text(encoding="utf-8"))
    assert [p["name"] for p in phases] == [p.name for p in result.phases]
    names = ["benchmark", "model load", "agent text2sql", "agent sequential", "report"]
    assert [p.name for p in result.phases] == names
    assert [p.calls for p in result.phases] == [0, 0, text2sql.calls, sequential.calls, 0]


def test_the_events_are_the_steps_the_questions_and_the_runs(tmp_path: Path, bis_synth_dir: Path) -> None:
    from biarena.report.demo_settings import DemoSettings
    from biarena.report.execute_demo import DemoStep, QuestionsChosen, demo_questions, execute_demo
    from biarena.runner.events import RunEnded, RunStarted

    events: list[Any] = []
    settings = DemoSettings(out=tmp_path / "demo", benchmark=str(bis_synth_dir), model="mock", agents=["text2sql"])
    result = execute_demo(settings, events.append)
    steps = [e for e in events if isinstance(e, DemoStep)]
    assert [s.step for s in steps] == [1, 2, 3, 4] and all(s.text.startswith(f"{s.step}/4 ") for s in steps)
    chosen = next(e for e in events if isinstance(e, QuestionsChosen))
    assert chosen.questions == result.questions == demo_questions(api.load_benchmark(bis_synth_dir), 1)
    assert f"{len(chosen.questions)} questions: 1 per category" in chosen.text
    kinds = [type(e) for e in events if isinstance(e, RunStarted | RunProgress | RunEnded)]
    assert kinds == [RunStarted, *[RunProgress] * len(result.questions), RunEnded]
    assert events.index(steps[2]) < events.index(next(e for e in events if isinstance(e, RunStarted)))


@pytest.mark.parametrize(
    ("values", "said"),
    [
        ({"per_category": 0}, r"^--per-category 0 is out of range: it must be >=1$"),
        ({"answer_words": 5}, r"^--answer-words 5 is out of range: it must be >=10$"),
        ({"agent": ["gold"]}, r"takes no option 'agent'; did you mean 'agents'\?"),
    ],
)
def test_mistakes_are_one_line_before_anything_is_written(tmp_path: Path, values: dict, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        api.demo(tmp_path / "demo", model="mock", **values)
    assert not (tmp_path / "demo").exists()
