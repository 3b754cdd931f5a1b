"""The library's warnings on the command line: one plain line each on stderr, every time, as the CLI shows them."""

import warnings

import pytest

from biarena.cli.warning_lines import warning_lines
from biarena.errors import BiarenaWarning
from biarena.llm.notices import Notice, listening, notify
from biarena.registry import warn


def test_a_model_note_nobody_listens_to_is_a_plain_line_each_time(capsys: pytest.CaptureFixture[str]) -> None:
    with warning_lines():
        notify(Notice("note", "the server gives no log-probabilities; asked without"))
        notify(Notice("note", "the server gives no log-probabilities; asked without"))
        notify(Notice("wait", "waiting 2s", 2.0))
    assert capsys.readouterr().err.splitlines() == ["the server gives no log-probabilities; asked without"] * 2


def test_a_listened_note_is_not_shown_again(capsys: pytest.CaptureFixture[str]) -> None:
    heard: list[Notice] = []
    with warning_lines(), listening(heard.append):
        notify(Notice("note", "heard"))
    assert [n.text for n in heard] == ["heard"] and capsys.readouterr().err == ""


def test_a_registry_warning_is_one_warning_line(capsys: pytest.CaptureFixture[str]) -> None:
    with warning_lines():
        warn("widget 'x' cannot\n   be loaded")
    assert capsys.readouterr().err == "warning: widget 'x' cannot be loaded\n"


def test_other_warnings_go_on_to_python_s_own_handling(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.warns(DeprecationWarning, match="old spelling"), warning_lines():
        warnings.warn("old spelling", DeprecationWarning, stacklevel=1)
    assert capsys.readouterr().err == ""


def test_outside_the_command_line_they_are_python_warnings() -> None:
    with pytest.warns(BiarenaWarning, match="asked without"):
        notify(Notice("note", "asked without"))


def test_a_campaign_worker_s_warnings_are_raised_again_where_the_campaign_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from biarena.campaign import run_cell as worker

    def work(task: object, gate: object) -> worker.CellResult:
        notify(Notice("note", "the server gives no log-probabilities; asked without"))
        warn("agent 'broken' cannot be loaded")
        return worker.CellResult.model_construct(cell="c")

    monkeypatch.setattr(worker, "_run_cell", work)
    result = worker.run_cell(None)  # type: ignore[arg-type]
    assert result.warnings == [
        (True, "the server gives no log-probabilities; asked without"),
        (False, "agent 'broken' cannot be loaded"),
    ]
    assert capsys.readouterr().err == ""
    with warning_lines():
        worker.raise_again(result)
    assert capsys.readouterr().err.splitlines() == [
        "the server gives no log-probabilities; asked without",
        "warning: agent 'broken' cannot be loaded",
    ]
