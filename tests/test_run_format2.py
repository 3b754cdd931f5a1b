"""A run file made by the run format 2 (scores and judge traces in two tables) opens, shows the same figures and
re-scores unchanged.

The fixture is a predictions run on bis-synth (one question per category: right, wrong, failing and missing
answers) scored with the metrics, judged with `interaction`, and judged in part with `peer-review` by a scripted
model (stopped by --max-calls), all by the biarena of run format 2; beside it, what `show --format json` and
`export` printed then.
"""

import json
import shutil
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from biarena.runner import RunStore
from biarena.runner.store import MIGRATIONS
from tests.judge_run_helpers import judge_command
from tests.run_helpers import cli

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def old_run(tmp_path: Path) -> Path:
    """A copy of the format-2 run (opening a run may change its file)."""
    target = tmp_path / "run.sqlite"
    shutil.copyfile(FIXTURES / "run_format2.run", target)
    return target


def unlabelled(data: dict) -> dict:
    """The figures with the run's display label taken out: how a run is named on screen is not a figure (short
    labels replaced the long ones after the fixture was recorded)."""
    label = data["runs"][0]["label"]
    return json.loads(json.dumps(data, ensure_ascii=False).replace(json.dumps(label, ensure_ascii=False), '"RUN"'))


def shown(run: Path) -> dict:
    result = cli("show", run, "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for item in data["runs"]:
        item["path"] = "RUN"
        item.pop("gold")  # added since the fixture was recorded: what the gold metric counts
    return unlabelled(data)


def exported(run: Path) -> list[dict]:
    """The export's rows as the format-2 biarena wrote them: its answers are try 0 of a run of one try."""
    result = cli("export", run, "--nested")  # the fixture was recorded when JSONL nested the scores
    assert result.returncode == 0, result.stderr
    rows = [{**row, "run": "RUN"} for row in map(json.loads, result.stdout.splitlines())]
    assert [(row.pop("try"), row.pop("tries_agree")) for row in rows] == [(0, None)] * len(rows)
    # what each answer ran, exported since: at most its one statement (failed where the SQL failed), no tool calls
    ran = [(row.pop("statements"), row.pop("failed_statements"), row.pop("tool_calls")) for row in rows]
    assert all(row.pop("database_seconds") >= 0 for row in rows)
    assert [(n <= 1, tools) for n, _, tools in ran] == [(True, 0)] * len(rows)
    assert [failed for _, failed, _ in ran] == [int(row["outcome"] == "sql_failed") for row in rows]
    return rows


def recorded_show() -> dict:
    return unlabelled(json.loads((FIXTURES / "run_format2.show.json").read_text(encoding="utf-8")))


def recorded_export() -> list[dict]:
    lines = (FIXTURES / "run_format2.export.jsonl").read_text(encoding="utf-8").splitlines()
    return [{**row, "run": "RUN"} for row in map(json.loads, lines)]


def test_an_old_run_shows_and_exports_the_figures_it_showed_when_it_was_made(old_run: Path) -> None:
    assert shown(old_run) == recorded_show()
    assert exported(old_run) == recorded_export()


def test_an_old_run_rescored_is_unchanged(old_run: Path) -> None:
    scored = cli("score", old_run)
    assert scored.returncode == 0, scored.stderr
    assert "0 answers scored now, 10 already scored; 0 results now (0 failed), 40 already made" in scored.stderr
    judged = cli("score", old_run, "--judge", "interaction")
    assert judged.returncode == 0, judged.stderr
    assert "0 results now (0 failed), 49 already made, 0 not applicable" in judged.stderr
    assert shown(old_run) == recorded_show()
    assert exported(old_run) == recorded_export()


def test_an_old_run_moves_its_scores_and_traces_into_one_table(old_run: Path) -> None:
    with RunStore(old_run) as store:
        results = store.results()
    with sqlite3.connect(old_run) as conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    assert version == len(MIGRATIONS) == 5
    assert {"results", "statement_results"} <= tables and not tables & {"scores", "traces"}
    by_scorer = Counter(r.scorer for r in results)
    assert by_scorer == {
        "execution": 10,
        "execution_accuracy": 10,
        "semantic_similarity": 10,
        "result_similarity": 10,
        "interaction": 9,  # not the answer the system failed to give
        "peer-review": 3,  # judging was stopped by --max-calls
    }
    reviewed = [r for r in results if r.scorer == "peer-review"]
    assert all(r.model == "mock:scripted" and r.rubric_hash and len(r.trace) == 6 for r in reviewed)
    assert all(len(r.scores) == 4 and r.trace == [] for r in results if r.scorer == "interaction")
    assert all(r.applies and r.failed is None for r in results)
    trace = cli("show", old_run, "--trace", reviewed[0].question_id)
    assert trace.returncode == 0, trace.stderr
    assert "peer-review v1 · rubric " in trace.stdout and "call 6: meta-reviewer 3 / tool_employment" in trace.stdout


def test_judging_an_old_run_goes_on_where_it_stopped(old_run: Path, tmp_path: Path) -> None:
    command = judge_command(tmp_path / "cache", "score", old_run, "--scorer", "peer-review", "--judge-model", "mock")
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "6 results now (0 failed), 3 already made" in done.stderr
    with RunStore(old_run) as store:
        assert sum(r.scorer == "peer-review" for r in store.results()) == 9
