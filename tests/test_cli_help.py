"""Every command's --help through the installed entry point, as a user on a fresh install runs it."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import typer.main

from biarena.cli import COMMANDS, app, load_command


def entry_point() -> Path:
    """The `biarena` console script installed beside this Python."""
    script = Path(sys.executable).parent / "biarena"
    if not script.exists():
        pytest.fail(f"the biarena entry point is not installed beside {sys.executable}")
    return script


def command_paths() -> list[list[str]]:
    """Every command and subcommand as the words a user types after `biarena`."""
    paths: list[list[str]] = []

    def walk(command: Any, prefix: list[str]) -> None:
        paths.append(prefix)
        if not hasattr(command, "list_commands"):
            return
        context = command.make_context(command.name or "biarena", [], resilient_parsing=True)
        for name in sorted(command.list_commands(context)):
            child = command.get_command(context, name)
            if child is not None and not child.hidden:
                walk(child, [*prefix, name])

    walk(typer.main.get_command(app), [])
    return paths


def test_the_top_level_help_lists_each_command_by_the_start_of_its_own_help() -> None:
    for name, short in ((n, COMMANDS.meta(n, "help")) for n in COMMANDS):
        command = load_command(name)
        own = " ".join((command.help or "").split("\n\n")[0].split())
        assert own.startswith(short.rstrip(".")), (name, short, own)


def run_help(words: list[str]) -> subprocess.CompletedProcess:
    """`biarena WORDS --help`, output captured as a pipe."""
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [str(entry_point()), *words, "--help"], capture_output=True, text=True, timeout=120, env=env, check=False
    )


def test_the_command_tree_is_what_the_readme_documents() -> None:
    top = {p[0] for p in command_paths() if len(p) == 1}
    assert {"demo", "build", "run", "score", "show", "export", "report", "import", "synth", "suite"} <= top
    assert ["import", "corgi"] in command_paths()
    assert ["synth", "verify"] in command_paths()


def test_help_of_every_command_runs_through_the_installed_entry_point() -> None:
    paths = command_paths()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run_help, paths))
    failures = []
    for words, result in zip(paths, results, strict=True):
        shown = " ".join(["biarena", *words, "--help"])
        if result.returncode != 0 or "Traceback" in result.stderr or "Usage" not in result.stdout:
            failures.append(f"{shown}: exit {result.returncode}\n{result.stderr[-2000:]}")
    assert not failures, "\n\n".join(failures)
    assert len(paths) >= 20


def test_an_error_message_with_control_characters_is_printed_on_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "no\nsuch\x1ebenchmark"
    result = subprocess.run(
        [str(entry_point()), "show", str(missing)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert "\\n" in result.stderr and "\\x1e" in result.stderr


RAGGED = 25
"""A help line this much shorter than the terminal, followed by more of its paragraph whose first word would have
fitted on it, was broken by hand."""


def ragged_lines(text: str, width: int) -> list[str]:
    """Lines of a help's prose (outside its option boxes) that end well before `width` mid-paragraph."""
    prose = [line.rstrip() for line in text.splitlines() if not line.lstrip().startswith(("│", "╭", "╰"))]
    ragged = []
    for line, after in pairwise(prose):
        indent = len(line) - len(line.lstrip())
        if not line.strip() or not after.strip() or len(after) - len(after.lstrip()) != indent:
            continue  # a paragraph's end, or a definition list's next entry or continuation
        if line.endswith(":") or after.strip().startswith(("- ", "* ", "•")) or "  " in line.strip():
            continue  # a section heading, a list item starting, or a definition list's entry (NAME  what it is)
        if len(line) < width - RAGGED and len(line) + 1 + len(after.split()[0]) < width - 1:
            ragged.append(line)  # short, and the next word would have fitted: a break written in the source
    return ragged


@pytest.mark.parametrize("width", [80, 120])
def test_help_paragraphs_are_wrapped_by_the_terminal_not_by_hand(width: int) -> None:
    from typer.testing import CliRunner

    runner = CliRunner(env={"COLUMNS": str(width), "NO_COLOR": "1", "TERMINAL_WIDTH": None})
    ragged = {}
    for words in command_paths():
        result = runner.invoke(app, [*words, "--help"], prog_name="biarena")
        assert result.exit_code == 0, (words, result.output)
        assert max(len(line) for line in result.output.splitlines()) <= width, words
        if lines := ragged_lines(result.output, width):
            ragged[" ".join(words)] = lines
    assert not ragged, ragged


def test_a_ragged_paragraph_is_seen() -> None:
    text = " Units are content-addressed (the benchmark's checksums, the\n scorer), so running the plan again"
    assert ragged_lines(text, 100) == [" Units are content-addressed (the benchmark's checksums, the"]
    assert ragged_lines(" a short paragraph.\n\n another one.", 80) == []


@pytest.mark.parametrize("columns", [20, 64, 80, 123, 200])
def test_the_quick_top_level_help_is_what_the_typer_group_prints(columns: int) -> None:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"}
    quick = subprocess.run([str(entry_point()), "--help"], capture_output=True, text=True, env=env, check=True)
    group = "import sys; sys.argv = ['biarena', '--help']; from biarena.cli.group import app; app()"
    typer_help = subprocess.run([sys.executable, "-c", group], capture_output=True, text=True, env=env, check=False)
    assert typer_help.returncode == 0, typer_help.stderr
    assert quick.stdout == typer_help.stdout
    assert all(f"\n  {name} " in quick.stdout for name in COMMANDS)


def test_version_and_help_answer_without_loading_the_command_line_framework() -> None:
    code = (
        "import sys\n"
        "from biarena.cli import main\n"
        "for words in (['--version'], ['--help']):\n"
        "    sys.argv = ['biarena', *words]\n"
        "    main()\n"
        "heavy = ('typer', 'click', 'rich', 'biarena.registry')\n"
        "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("biarena ") and "Commands:" in done.stdout
    assert done.stderr.strip() == "[]"
