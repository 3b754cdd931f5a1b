"""`biarena import FORMAT PATH -o DIR`: read a published benchmark into the native format."""

from pathlib import Path

import typer

from biarena.benchmarks import import_bis, save_benchmark
from biarena.cli.console import err

app = typer.Typer(help="Import a published benchmark into biarena's native format.", no_args_is_help=True)


@app.command("bis")
def bis(
    path: Path = typer.Argument(..., help="A BIS dataset folder, or a folder of them."),
    out: Path = typer.Option(..., "-o", "--out", help="Directory to write the benchmark to."),
    force: bool = typer.Option(False, "--force", help="Replace an existing benchmark directory."),
) -> None:
    """Import BIS (questions_*.json, tables_*.json, *.sqlite3), anchored at 2023-01-17 20:20:15."""
    benchmark = import_bis(path)
    save_benchmark(benchmark, out, overwrite=force)
    languages = sorted({q.language for q in benchmark.questions})
    categories = sorted({lab for q in benchmark.questions for lab in q.labels})
    err.print(
        f"imported {len(benchmark.questions)} questions over {len(benchmark.databases)} database(s) "
        f"({', '.join(languages)}; {len(categories)} categories) into {out}"
    )
