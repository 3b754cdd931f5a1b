"""`biarena build NAME -o DIR`: build a built-in benchmark into a directory."""

from pathlib import Path

import typer
from rich.text import Text

from biarena.benchmarks import BUILTINS
from biarena.benchmarks.build_settings import BuildSettings
from biarena.benchmarks.execute_build import empty_target, execute_build
from biarena.cli.console import err, stage_progress
from biarena.cli.legacy_flags import LEGACY, legacy_command, legacy_flags
from biarena.cli.options import OPTIONS_FILE, option_pairs
from biarena.events import Message, Stage

__all__ = ["build", "command", "empty_target", "next_steps"]

BUILD_FLAGS = {"--scale": "scale", "--seed": "seed"}
"""The options `build` once took as flags: still accepted, hidden, as spellings of `-O NAME=VALUE`."""


def build(
    name: str = typer.Argument(..., metavar="NAME", help=f"Built-in benchmark: {', '.join(BUILTINS)}."),
    out: Path = typer.Option(..., "-o", "--out", help="Directory to write (must not exist or be empty)."),
    option: list[str] | None = option_pairs("biarena describe benchmark NAME"),
    options_file: Path | None = OPTIONS_FILE,
    legacy: list[str] | None = LEGACY,
) -> None:
    """Build a built-in benchmark (databases, questions, gold SQL) into a directory.

    Options (a seed; corgi-synth's scale): -O NAME=VALUE or --options FILE.yaml (see `biarena describe benchmark`).
    """
    settings = BuildSettings(name=name, out=out, options=[*(legacy or []), *(option or [])], options_file=options_file)
    with stage_progress(name, 0) as progress:

        def show(event: object) -> None:
            if isinstance(event, Message):
                err.print(Text(event.text))
            elif isinstance(event, Stage):
                progress(event.done, event.total, event.item, event.stage)

        execute_build(settings, show)
    err.print(Text(next_steps(out)))


command = legacy_command(build, "build", legacy_flags(BUILD_FLAGS))
"""`build` as the command line has it: the old --scale and --seed accepted as hidden spellings of -O."""


def next_steps(bench: Path) -> str:
    """What to run next: a self-check that needs no model, then an agent with any model."""
    run = bench.with_name(bench.name + "-gold.run")
    return (
        f"next: biarena run {bench} --agent gold -o {run} && biarena score {run} && biarena show {run}\n"
        f"  (replays the gold SQL, no model needed; an agent: biarena run {bench} --agent sequential "
        f"--model local|openai:MODEL[@URL] -o RUN)"
    )
