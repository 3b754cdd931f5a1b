"""A run file made by the run format 2 (scores and judge traces in two tables) opens, shows the same figures and
re-scores unchanged.

The fixture is a predictions run on bis-synth (one question per category: right, wrong, failing and missing
answers) scored with the metrics, judged with `interaction`, and judged in part with `peer-review` by a scripted
model (stopped by --max-calls), all by the biarena of run format 2; beside it, what `show --format json` and
`export` printed then.
"""

import json
import shutil
from pathlib import Path

import pytest

from tests.run_helpers import cli

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def old_run(tmp_path: Path) -> Path:
    """A copy of the format-2 run (opening a run may change its file)."""
    target = tmp_path / "run.sqlite"
    shutil.copyfile(FIXTURES / "run_format2.run", target)
    return target


def shown(run: Path) -> dict:
    result = cli("show", run, "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for item in data["runs"]:
        item["path"] = "RUN"
    return data


def exported(run: Path) -> list[dict]:
    result = cli("export", run)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def recorded_show() -> dict:
    return json.loads((FIXTURES / "run_format2.show.json").read_text(encoding="utf-8"))


def recorded_export() -> list[dict]:
    lines = (FIXTURES / "run_format2.export.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_an_old_run_shows_and_exports_the_figures_it_showed_when_it_was_made(old_run: Path) -> None:
    assert shown(old_run) == recorded_show()
    assert exported(old_run) == recorded_export()


def test_an_old_run_rescored_is_unchanged(old_run: Path) -> None:
    scored = cli("score", old_run)
    assert scored.returncode == 0, scored.stderr
    assert "0 answers scored now, 10 already scored" in scored.stderr
    judged = cli("score", old_run, "--judge", "interaction")
    assert judged.returncode == 0, judged.stderr
    assert "0 judgements now (0 failed), 9 already made" in judged.stderr
    assert shown(old_run) == recorded_show()
    assert exported(old_run) == recorded_export()
