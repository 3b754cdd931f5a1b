"""The Python API: `import biarena` gives the CLI's steps as functions, with its options and errors; the docs page's
code runs as written; the command line's start-up does not load it."""

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import biarena
from biarena.errors import NotFoundError, UsageError

ROOT = Path(__file__).resolve().parent.parent
API = (
    "build",
    "import_benchmark",
    "load_benchmark",
    "run",
    "score",
    "results",
    "report",
    "judge_check",
    "judge_pairwise",
    "demo",
    "generate_templates",
    "generate_questions",
    "generate_answers",
    "suite",
    "synth",
)


def test_every_function_is_there_typed_and_documented() -> None:
    for name in API:
        function = getattr(biarena, name)
        assert callable(function) and function.__doc__ and function.__annotations__.get("return"), name
    importlib.import_module("biarena.report.html_report")  # the report package loads beside the function

    assert callable(biarena.report) and biarena.report.__module__ == "biarena.api.report"
    importlib.import_module("biarena.synth.generator")  # and the simulator's package beside `synth`
    assert callable(biarena.synth) and biarena.synth.__module__ == "biarena.api.synth"


def test_the_docs_page_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    page = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    assert len(blocks) >= 5
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/python-api.md", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "bis-synth 234 questions" in printed and "unknown agent 'sequentail'" in printed
    frame = namespace["frame"]
    assert len(frame) == 2 * len(set(frame["question_id"])) and "interaction.plan_length" in frame.columns
    assert frame.loc[frame["run"] == "gold", "execution_accuracy"].eq(1.0).all()
    assert (tmp_path / "report.html").stat().st_size > 10_000


def test_the_cli_errors_and_ranges_hold(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="unknown agent 'nope'"):
        biarena.run("bis-synth", agent="nope", out=tmp_path / "x.run")
    with pytest.raises(UsageError, match="--limit 0 is out of range"):
        biarena.run("bis-synth", agent="gold", out=tmp_path / "x.run", limit=0)
    with pytest.raises(UsageError, match="takes no option 'colour'"):
        biarena.score(tmp_path / "x.run", colour="red")
    with pytest.raises(NotFoundError, match="unknown judge 'nope'"):
        biarena.judge_check("nope", judge_model="mock")
    with pytest.raises(UsageError, match="--pairs 0 is out of range"):
        biarena.judge_check("corgi", judge_model="mock", pairs=0)


def test_the_command_line_starts_without_the_api_or_pandas() -> None:
    code = (
        "import sys; sys.argv = ['biarena', '--version'];\n"
        "from biarena.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('pandas', 'biarena.api', 'biarena.api.run') if m in sys.modules))"
    )
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True)
    assert result.stdout.strip().splitlines() == ["biarena 0.1.0", "[]"]
