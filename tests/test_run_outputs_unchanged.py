"""What `show`, `report` and `export` print and write for three fixed scored runs, byte for byte as recorded.

A change meant to alter that output (a column, a label, a table) refreshes the fixture with
`python -m tests.run_outputs`; a change meant to alter none (moving code) must leave this test passing as it is.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.run_outputs import FIXTURE, capture_run_outputs, digests


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return capture_run_outputs(tmp_path_factory.mktemp("outputs"))


def test_show_report_and_export_are_as_recorded(captured: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    seen = digests(captured)
    (tmp_path / "outputs.json").write_text(json.dumps(captured, indent=1, ensure_ascii=False), encoding="utf-8")
    assert sorted(seen) == sorted(expected), "the steps differ from the fixture's"
    assert all(seen[step]["code"] == 0 for step in seen), {step: seen[step]["code"] for step in seen}
    changed = [step for step in expected if seen[step] != expected[step]]
    assert not changed, f"output differs from the fixture in {changed}; this run's output: {tmp_path / 'outputs.json'}"


def test_the_fixture_runs_have_what_the_commands_show(captured: dict[str, dict[str, Any]]) -> None:
    table = captured["show --format table"]["output"]
    assert "judge faithfulness by question type" in table and "judge interaction by question type" in table
    assert "Chatty Analyst" in table and "text2sql · mocked-coder" in table
    assert captured["export jsonl"]["output"].count("\n") == 12
    assert "<html" in captured["report --format html"]["output"]
