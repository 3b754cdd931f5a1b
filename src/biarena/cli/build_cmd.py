"""`biarena build NAME -o DIR`: build a built-in benchmark into a directory."""

from pathlib import Path

import typer
from rich.text import Text

from biarena.benchmarks import BUILTINS, load_benchmark
from biarena.benchmarks.builtin import builtin_builder
from biarena.cli.console import err, stage_progress
from biarena.cli.legacy_flags import LEGACY, legacy_command, legacy_flags
from biarena.cli.options import OPTIONS_FILE, gather_options, option_pairs
from biarena.errors import FormatError
from biarena.options import options_model


def empty_target(out: Path) -> None:
    """Refuse an output that exists and is not an empty directory."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        what = "it already exists and is not empty" if out.is_dir() else "it is a file"
        raise FormatError(f"{out}: not an empty directory: {what} (choose another -o)")


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
    builder = builtin_builder(name)
    pairs = [*(legacy or []), *(option or [])]
    options = gather_options(options_model(builder), f"benchmark '{name}'", pairs, options_file)
    empty_target(out)
    err.print(Text(f"building {name} into {out} ..."))
    with stage_progress(name, 0) as progress:
        builder(out, options, on_progress=progress)
    benchmark = load_benchmark(out)
    err.print(
        Text(f"built {name}: {len(benchmark.questions)} questions over {len(benchmark.databases)} database(s) in {out}")
    )
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
