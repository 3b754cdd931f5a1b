"""`biarena build NAME -o DIR`: build a built-in benchmark into a directory."""

from pathlib import Path

import typer
from rich.text import Text

from biarena.benchmarks import BUILTINS, build_builtin, load_benchmark
from biarena.cli.console import err, stage_progress
from biarena.errors import FormatError, NotFoundError, UsageError, did_you_mean


def empty_target(out: Path) -> None:
    """Refuse an output that exists and is not an empty directory."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        what = "it already exists and is not empty" if out.is_dir() else "it is a file"
        raise FormatError(f"{out}: not an empty directory: {what} (choose another -o)")


def build(
    name: str = typer.Argument(..., help=f"Built-in benchmark: {', '.join(BUILTINS)}."),
    out: Path = typer.Option(..., "-o", "--out", help="Directory to write (must not exist or be empty)."),
    scale: float | None = typer.Option(
        None, "--scale", min=0.01, help="corgi-synth only: database size, row counts times this (default 1)."
    ),
    seed: int = typer.Option(0, "--seed", help="The same seed (and scale) give the same benchmark."),
) -> None:
    """Build a built-in benchmark (databases, questions, gold SQL) into a directory."""
    if name not in BUILTINS:
        choices = sorted(BUILTINS)
        known = ", ".join(choices)
        raise NotFoundError(f"unknown built-in benchmark '{name}'{did_you_mean(name, choices)} (known: {known})")
    if scale is not None and name != "corgi-synth":
        raise UsageError(f"--scale applies to corgi-synth; {name} has a fixed size")
    empty_target(out)
    err.print(Text(f"building {name} into {out} ..."))
    if name == "corgi-synth":
        from biarena.generate.corgi_suite import build as build_suite
        from biarena.synth import vertical_names

        with stage_progress(name, len(vertical_names())) as progress:
            build_suite(out, scale=1.0 if scale is None else scale, seed=seed, on_progress=progress)
    elif name == "bis-synth":
        from biarena.generate.bis_synth import build as build_bis

        build_bis(out, seed=seed)
    else:
        build_builtin(name, out)
    benchmark = load_benchmark(out)
    err.print(
        Text(f"built {name}: {len(benchmark.questions)} questions over {len(benchmark.databases)} database(s) in {out}")
    )
    err.print(Text(next_steps(out)))


def next_steps(bench: Path) -> str:
    """What to run next: a self-check that needs no model, then an agent with any model."""
    run = bench.with_name(bench.name + "-gold.run")
    return (
        f"next: biarena run {bench} --system gold -o {run} && biarena score {run} && biarena show {run}\n"
        f"  (replays the gold SQL, no model needed; an agent: biarena run {bench} --agent sequential "
        f"--model local|openai:MODEL[@URL] -o RUN)"
    )
