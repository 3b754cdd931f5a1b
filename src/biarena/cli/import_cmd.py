"""`biarena import FORMAT PATH -o DIR`: read a published benchmark into the native format."""

import shutil
from pathlib import Path

import typer

from biarena.benchmarks import import_bibench, import_bis, import_corgi, import_dbqa, save_benchmark
from biarena.cli.console import err
from biarena.errors import UsageError
from biarena.records import Benchmark

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
    _report(benchmark, out)


def _report(benchmark: Benchmark, out: Path) -> None:
    languages = sorted({q.language for q in benchmark.questions})
    categories = sorted({lab for q in benchmark.questions for lab in q.labels})
    err.print(
        f"imported {len(benchmark.questions)} questions over {len(benchmark.databases)} database(s) "
        f"({', '.join(languages)}; {len(categories)} categories) into {out}"
    )


@app.command("corgi")
def corgi(
    path: Path = typer.Argument(..., help="A CORGI vertical folder, or a folder of them."),
    out: Path = typer.Option(..., "-o", "--out", help="Directory to write the benchmark to."),
    force: bool = typer.Option(False, "--force", help="Replace an existing benchmark directory."),
) -> None:
    """Import CORGI (<name>-questions.xlsx, <name>.db / .db.zip / -partN.zip, description .txt)."""
    imported = import_corgi(path)
    try:
        for name, why in imported.skipped.items():
            err.print(f"warning: vertical '{name}' skipped: {why}")
        if not imported.benchmark.questions:
            raise UsageError(f"{path}: no vertical could be imported")
        save_benchmark(imported.benchmark, out, overwrite=force)
    finally:
        if imported.workdir is not None:
            shutil.rmtree(imported.workdir, ignore_errors=True)
    _report(imported.benchmark, out)


@app.command("bibench")
def bibench(
    path: Path = typer.Argument(..., help="A BI-Bench .json file or a folder of them (one per category)."),
    out: Path = typer.Option(..., "-o", "--out", help="Directory to write the benchmark to."),
    db: list[str] = typer.Option(None, "--db", help="DOMAIN=URL-or-file for a domain's database (repeatable)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing benchmark directory."),
) -> None:
    """Import BI-Bench questions; without --db they serve generation and judging."""
    databases = {}
    for value in db or []:
        name, sep, location = value.partition("=")
        if not sep or not name or not location:
            raise UsageError(f"--db takes DOMAIN=URL, not '{value}'")
        databases[name] = location
    benchmark = import_bibench(path, databases)
    save_benchmark(benchmark, out, overwrite=force)
    _report(benchmark, out)


@app.command("dbqa")
def dbqa(
    path: Path = typer.Argument(..., help="Questions: JSON or JSONL with question, answer, type, db_id."),
    databases: Path = typer.Option(..., "--databases", help="Spider-style folder: <db_id>/<db_id>.sqlite."),
    out: Path = typer.Option(..., "-o", "--out", help="Directory to write the benchmark to."),
    force: bool = typer.Option(False, "--force", help="Replace an existing benchmark directory."),
) -> None:
    """Import long-form database QA questions with reference answers (conclusive / interpretive)."""
    benchmark = import_dbqa(path, databases)
    save_benchmark(benchmark, out, overwrite=force)
    _report(benchmark, out)
