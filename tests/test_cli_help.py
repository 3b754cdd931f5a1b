"""Every command's --help through the installed entry point, as a user on a fresh install runs it."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
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
    for name, (_, short) in COMMANDS.items():
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
