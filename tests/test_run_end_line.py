"""The line that ends a run splits its questions once: answered (their SQL ran or failed), no answer (no prediction,
for a predictions file), not run yet; then asked now and answered before: the counts add up, whatever the run."""

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from biarena.records import Usage
from biarena.runner.execute import summary_lines
from biarena.runner.run import OutcomeCounts, RunSummary
from tests.run_helpers import cli, make_shop, write_predictions

LINE = re.compile(
    r"done: (?P<answered>\d+) of (?P<total>\d+) (?P<noun>questions|tries) answered "
    r"\((?P<ran>\d+) ran, (?P<failed>\d+) SQL failed\), (?P<missing>[^;]+); "
    r"(?P<now>\d+) asked now(?: \((?P<again>\d+) again\))?, (?P<before>\d+) before"
)


def end_line(stderr: str) -> dict[str, int | str]:
    """The numbers of the run's end line, checked to add up: answered + missing = total, now + before + not run =
    total."""
    found = [m for m in map(LINE.match, stderr.splitlines()) if m]
    assert len(found) == 1, stderr
    line = found[0]
    numbers: dict[str, int | str] = {k: int(v) for k, v in line.groupdict().items() if v and v.isdigit()}
    missing = dict((what, int(n)) for n, what in (part.split(" ", 1) for part in line["missing"].split(", ")))
    numbers |= missing
    numbers["line"] = line.group(0)
    assert numbers["answered"] == numbers["ran"] + numbers["failed"]
    assert numbers["answered"] + sum(missing.values()) == numbers["total"]
    assert numbers["now"] + numbers["before"] + missing.get("not run yet", 0) == numbers["total"]
    return numbers


@pytest.fixture
def shop(tmp_path: Path, sales_db: Path) -> Path:
    return make_shop(tmp_path, sales_db)


def test_a_normal_run(tmp_path: Path, shop: Path) -> None:
    done = cli("run", shop, "--agent", "gold", "-o", tmp_path / "gold.run")
    assert done.returncode == 0, done.stderr
    assert end_line(done.stderr)["line"] == (
        "done: 6 of 6 questions answered (6 ran, 0 SQL failed), 0 no answer; 6 asked now, 0 before"
    )


def test_a_partial_predictions_run_counts_the_questions_without_a_prediction_apart(tmp_path: Path, shop: Path) -> None:
    predictions = write_predictions(
        tmp_path / "p.jsonl",
        [
            {"question_id": "q0000", "sql": "SELECT count(*) FROM sales"},
            {"question_id": "q0001", "sql": "SELECT * FROM no_such_table"},
            {"question_id": "q0002", "sql": None},
            {"question_id": "q0003", "sql": "SELECT 1"},
        ],
    )
    run = tmp_path / "p.run"
    args = ["run", shop, "--agent", "predictions", "-O", f"predictions={predictions}", "--partial", "-o", run]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    # 3 answered (one of them with SQL that failed), 2 without a prediction, 1 whose prediction has no SQL
    assert end_line(done.stderr)["line"] == (
        "done: 3 of 6 questions answered (2 ran, 1 SQL failed), 2 no prediction, 1 no answer; 6 asked now, 0 before"
    )
    resumed = cli(*args)
    assert end_line(resumed.stderr)["line"].endswith("2 no prediction, 1 no answer; 0 asked now, 6 before")


def test_a_resumed_run_that_grows(tmp_path: Path, shop: Path) -> None:
    run = tmp_path / "g.run"
    assert cli("run", shop, "--agent", "gold", "--limit", "2", "-o", run).returncode == 0
    grown = cli("run", shop, "--agent", "gold", "-o", run)
    numbers = end_line(grown.stderr)
    assert (numbers["answered"], numbers["total"], numbers["now"], numbers["before"]) == (6, 6, 4, 2)


def _flaky(tmp_path: Path, failing: set[str]) -> str:
    """A command system that fails for `failing` until a flag file exists."""
    flag, script = tmp_path / "healthy.flag", tmp_path / "flaky.py"
    script.write_text(
        "import json, pathlib, sys\n"
        "p = json.load(sys.stdin)\n"
        f"if p['question_id'] in {sorted(failing)!r} and not pathlib.Path({str(flag)!r}).exists():\n"
        "    sys.exit('backend down')\n"
        "print(json.dumps({'sql': 'SELECT count(*) FROM sales', 'answer': 400}))\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}"


def test_a_run_with_errors_then_asked_again(tmp_path: Path, shop: Path) -> None:
    run = tmp_path / "flaky.run"
    args = ["run", shop, "--agent", "command", "-O", f"command={_flaky(tmp_path, {'q0001', 'q0004'})}", "-o", run]
    first = cli(*args)
    assert end_line(first.stderr)["line"] == (
        "done: 4 of 6 questions answered (4 ran, 0 SQL failed), 2 no answer; 6 asked now, 0 before"
    )
    (tmp_path / "healthy.flag").touch()
    again = cli(*args, "--retry-errors")
    assert end_line(again.stderr)["line"] == (
        "done: 6 of 6 questions answered (6 ran, 0 SQL failed), 0 no answer; 2 asked now (2 again), 4 before"
    )


def test_a_run_stopped_by_its_budget_and_one_of_several_tries() -> None:
    counts = OutcomeCounts(ran=3, sql_failed=1, no_answer=1, errors=Counter({"model error": 1}))
    stopped = RunSummary(total=8, answered_now=4, already_answered=1, counts=counts, usage=Usage(calls=5))
    line = end_line(summary_lines(stopped, Path("r.run"), hint_retry=True)[0])["line"]
    assert line == (
        "done: 4 of 8 questions answered (3 ran, 1 SQL failed), 1 no answer, 3 not run yet; 4 asked now, 1 before"
    )
    tries = RunSummary(total=8, answered_now=8, already_answered=0, counts=OutcomeCounts(ran=8), usage=Usage())
    assert summary_lines(tries, Path("r.run"), hint_retry=True, tries=2)[0] == (
        "done: 8 of 8 tries answered (8 ran, 0 SQL failed), 0 no answer; 8 asked now, 0 before"
    )
