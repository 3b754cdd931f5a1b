"""`biarena build NAME -o DIR`: build a built-in benchmark into a directory."""

from pathlib import Path

import typer

from biarena.benchmarks import BUILTINS, build_builtin, load_benchmark
from biarena.cli.console import err
from biarena.errors import FormatError


def build(
    name: str = typer.Argument(..., help=f"Built-in benchmark: {', '.join(BUILTINS)}."),
    out: Path = typer.Option(..., "-o", "--out", help="Directory to write (must not exist or be empty)."),
) -> None:
    """Build a built-in benchmark (databases, questions, gold SQL) into a directory."""
    if out.exists() and any(out.iterdir()):
        raise FormatError(f"{out}: already exists and is not empty (choose another -o)")
    err.print(f"building {name} into {out} ...")
    build_builtin(name, out)
    benchmark = load_benchmark(out)
    err.print(f"built {name}: {len(benchmark.questions)} questions over {len(benchmark.databases)} database(s)")
