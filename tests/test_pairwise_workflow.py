"""`judge pairwise` as a workflow: the command line and `biarena.api.judge_pairwise` reach one library function with
the same settings and give the same votes; its events say each pair judged and why one failed."""

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from biarena import api
from biarena.errors import UsageError
from biarena.events import Message
from biarena.report.execute_pairwise import PairJudged, execute_pairwise
from biarena.report.pairwise_settings import PairwiseSettings
from biarena.report.run_data import RunData
from tests.cli_in_process import cli
from tests.judge_helpers import prompt_of, reply, scripted
from tests.judge_run_helpers import answer_for, corgi_bench, write_run


def _shown(prompt: str, side: str) -> str:
    return prompt.split(f"[Answer {side}]\n")[1].split(f"\n[End of answer {side}]")[0]


def _prefers_best(request: Any) -> str:
    return reply(reason="clearer", verdict="A" if "**Best.**" in _shown(prompt_of(request), "A") else "B")


@pytest.fixture
def runs(tmp_path: Path, sales_db: Path) -> tuple[Path, Path]:
    """Two runs of four questions; the second's answers open with a bold line the scripted judge prefers."""
    bench = corgi_bench(tmp_path, sales_db, 4)
    bold = {
        q.id: answer_for(q).model_copy(update={"text": "**Best.** " + (answer_for(q).text or "")})
        for q in bench.questions
    }
    return write_run(tmp_path / "plain.run", bench), write_run(tmp_path / "bold.run", bench, bold)


def _judge(monkeypatch: pytest.MonkeyPatch, script: Any) -> None:
    model, _ = scripted(script)
    monkeypatch.setattr("biarena.llm.get_model", lambda spec, use_cache=True: model)


def _votes(path: Path) -> list[dict[str, Any]]:
    """The votes a file holds, without the moment each was made."""
    return [{k: v for k, v in json.loads(line).items() if k != "created_at"} for line in path.read_text().splitlines()]


def test_the_cli_and_the_api_reach_one_workflow_and_write_the_same_votes(
    tmp_path: Path, runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    workflow = importlib.import_module("biarena.report.execute_pairwise")  # `biarena.report` is the API's function
    _judge(monkeypatch, _prefers_best)
    given: list[PairwiseSettings] = []
    real = workflow.execute_pairwise

    def recorded(settings: PairwiseSettings, on_event: Any) -> Any:
        given.append(settings)
        return real(settings, on_event)

    monkeypatch.setattr(workflow, "execute_pairwise", recorded)
    by_cli, by_api = tmp_path / "cli.jsonl", tmp_path / "api.jsonl"
    done = cli("judge", "pairwise", *runs, "-o", by_cli, "--bootstrap", "20", "--seed", "3", "-n", "3")
    assert done.returncode == 0, done.stderr
    result = api.judge_pairwise(runs, out=by_api, bootstrap=20, seed=3, questions=3)
    assert len(given) == 2 and given[0].model_dump(exclude={"out"}) == given[1].model_dump(exclude={"out"})
    assert _votes(by_cli) == _votes(by_api) and len(result.votes) == 3
    said = capsys.readouterr().err
    assert "judging 3 pairs (3 questions, 2 runs) with mock:scripted" in said and f"wrote {by_api}" in said

    best, worst = result.leaderboard.rows
    assert best.run_id == RunData.read(runs[1]).spec.run_id and (best.win_rate, worst.win_rate) == (1.0, 0.0)
    assert result.position_bias.successes == 0 and result.position_bias.trials == 3
    assert result.model == "mock:scripted" and not result.failures and result.agreement is None
    assert result.leaderboard.style_control is not None


def test_each_pair_is_an_event_and_a_failed_one_says_why(
    runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def fails_on_one(request: Any) -> str:
        return "no JSON here" if "Question 2 " in prompt_of(request) else _prefers_best(request)

    _judge(monkeypatch, fails_on_one)
    events: list[Any] = []
    result = execute_pairwise(PairwiseSettings(runs=list(runs), bootstrap=0), events.append)
    assert isinstance(events[0], Message) and events[0].text.startswith("judging 4 pairs")
    judged = [e for e in events if isinstance(e, PairJudged)]
    assert [e.done for e in judged] == [1, 2, 3, 4] and {e.total for e in judged} == {4}
    failed = [e for e in judged if e.failed is not None]
    assert len(failed) == 1 and "no JSON" in failed[0].failed
    assert len(result.votes) == 3 and sum(result.failures.values()) == 1
    assert next(iter(result.failures)) == failed[0].failed


def test_mistakes_are_one_line_in_the_api_as_in_the_cli(runs: tuple[Path, Path], tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^judge pairwise compares two runs or more$"):
        api.judge_pairwise(runs[:1])
    with pytest.raises(UsageError, match=r"^--questions 0 is out of range: it must be >=1$"):
        api.judge_pairwise(runs, questions=0)
    with pytest.raises(UsageError, match=r"takes no option 'boostrap'; did you mean 'bootstrap'\?"):
        api.judge_pairwise(runs, boostrap=10)
    assert not list(tmp_path.glob("*.jsonl"))
