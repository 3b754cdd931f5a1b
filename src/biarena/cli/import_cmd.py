"""`biarena import FORMAT PATH -o DIR`: read a published benchmark into the native format."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from biarena.benchmarks import import_bibench, import_bis, import_corgi, import_dbqa, save_benchmark
from biarena.benchmarks.anchor import Now, parse_now, unanchored
from biarena.benchmarks.archive import DEFAULT_MAX_DB_SIZE, format_size, parse_size
from biarena.benchmarks.native import check_target
from biarena.benchmarks.shown import shown
from biarena.cli.console import err
from biarena.errors import BiarenaError, FormatError, UsageError
from biarena.records import Benchmark

app = typer.Typer(help="Import a published benchmark into biarena's native format.", no_args_is_help=True)

OUT = typer.Option(..., "-o", "--out", help="Directory to write the benchmark to (absent or empty).")
FORCE = typer.Option(False, "--force", help="Replace an existing benchmark directory (never any other folder).")
NOW = typer.Option(
    None,
    "--now",
    metavar="DATETIME|auto",
    help="Clock anchor for relative questions ('last month'): a date or date-time such as '2023-01-17 20:20:15', "
    "or auto: each database's latest timestamp (ISO text and date/time columns).",
)


def _say(line: str) -> None:
    err.print(shown(line, limit=None), markup=False)


@contextmanager
def _one_line() -> Iterator[None]:
    """Errors as one line: a file name or value with a line break is escaped; a file-system failure
    (disk full, permissions) becomes a FormatError rather than a traceback."""
    try:
        yield
    except BiarenaError as error:
        raise type(error)(shown(error, limit=None)) from None
    except OSError as error:
        place = f"{error.filename}: " if error.filename else ""
        raise FormatError(shown(f"{place}{error.strerror or error}", limit=None)) from None


def _save(benchmark: Benchmark, out: Path, force: bool, now: Now) -> None:
    if now == "auto":
        for name in unanchored(benchmark):
            _say(f"warning: --now auto: database '{name}' holds no date or time; its questions have no clock anchor")
    save_benchmark(benchmark, out, overwrite=force)
    languages = sorted({q.language for q in benchmark.questions})
    categories = sorted({lab for q in benchmark.questions for lab in q.labels})
    _say(
        f"imported {len(benchmark.questions)} questions over {len(benchmark.databases)} database(s) "
        f"({', '.join(languages)}; {len(categories)} categories) into {out}"
    )
    if benchmark.now is not None:
        _say(f"clock anchored at {benchmark.now.isoformat(sep=' ')}")
    for name, ref in benchmark.databases.items():
        if ref.now is not None:
            _say(f"clock for '{name}' anchored at {ref.now.isoformat(sep=' ')} (latest value of {ref.now_from})")


@app.command("bis")
def bis(
    path: Path = typer.Argument(..., help="A BIS dataset folder, or a folder of them."),
    out: Path = OUT,
    now: str | None = NOW,
    force: bool = FORCE,
) -> None:
    """Import BIS (questions_*.json, tables_*.json, *.sqlite3), anchored at 2023-01-17 20:20:15 unless --now."""
    with _one_line():
        moment = parse_now(now)
        check_target(out, overwrite=force)
        _save(import_bis(path, now=moment), out, force, moment)


@app.command("corgi")
def corgi(
    path: Path = typer.Argument(..., help="A CORGI vertical folder, a folder of them, or CORGI's repository."),
    out: Path = OUT,
    now: str | None = NOW,
    verticals: list[str] = typer.Option(
        None, "--verticals", help="Only these verticals (comma-separated or repeated): app-store, app_store, ..."
    ),
    max_db_size: str = typer.Option(
        format_size(DEFAULT_MAX_DB_SIZE), "--max-db-size", help="Largest database an archive may expand to."
    ),
    force: bool = FORCE,
) -> None:
    """Import CORGI (<name>-questions.xlsx, <name>.db / .db.zip / -partN.zip, description .txt).

    A vertical whose database is missing or unusable is skipped with a warning saying why.
    """
    with _one_line():
        moment = parse_now(now)
        limit = parse_size(max_db_size)
        names = [n.strip() for value in verticals or [] for n in value.split(",") if n.strip()] or None
        check_target(out, overwrite=force)
        with import_corgi(path, now=moment, max_db_size=limit, verticals=names) as imported:
            if not imported.benchmark.questions:
                reasons = "; ".join(f"{name}: {why}" for name, why in imported.skipped.items())
                raise FormatError(f"{path}: no vertical could be imported ({reasons})")
            for name, why in imported.skipped.items():
                _say(f"warning: vertical '{name}' skipped: {why}")
            _save(imported.benchmark, out, force, moment)


@app.command("bibench")
def bibench(
    path: Path = typer.Argument(..., help="A BI-Bench .json file or a folder of them (one per category)."),
    out: Path = OUT,
    db: list[str] = typer.Option(None, "--db", help="DOMAIN=URL-or-file for a domain's database (repeatable)."),
    now: str | None = NOW,
    force: bool = FORCE,
) -> None:
    """Import BI-Bench questions; without --db they serve generation and judging."""
    databases = {}
    for value in db or []:
        name, sep, location = value.partition("=")
        if not sep or not name.strip() or not location.strip():
            raise UsageError(f"--db takes DOMAIN=URL or DOMAIN=FILE, not '{shown(value)}'")
        if name.strip() in databases:
            raise UsageError(f"--db names domain '{shown(name.strip())}' twice")
        databases[name.strip()] = location.strip()
    with _one_line():
        moment = parse_now(now)
        check_target(out, overwrite=force)
        _save(import_bibench(path, databases, now=moment), out, force, moment)


@app.command("dbqa")
def dbqa(
    path: Path = typer.Argument(..., help="Questions: JSON or JSONL with question, answer, type, db_id."),
    databases: Path = typer.Option(..., "--databases", help="Spider-style folder: <db_id>/<db_id>.sqlite."),
    out: Path = OUT,
    now: str | None = NOW,
    force: bool = FORCE,
) -> None:
    """Import long-form database QA questions with reference answers (conclusive / interpretive)."""
    with _one_line():
        moment = parse_now(now)
        check_target(out, overwrite=force)
        _save(import_dbqa(path, databases, now=moment), out, force, moment)
