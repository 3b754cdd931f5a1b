"""`biarena export RUN [RUN ...] -o FILE`: every question of the runs with its outcome and scores, as a table."""

import sys
from pathlib import Path

import typer

from biarena.cli.console import err, escape
from biarena.cli.options import LABELS, flag
from biarena.errors import UsageError
from biarena.files import writable_target, write_atomically
from biarena.report.export import FORMATS, export_records, format_for, write_records
from biarena.report.run_data import read_runs


def export(
    runs: list[Path] = typer.Argument(..., metavar="RUN", help="Run files; their rows follow one another."),
    format: str | None = typer.Option(
        None, "--format", help=f"{', '.join(FORMATS)}; default: from the file's extension (jsonl for -o -)."
    ),
    out: str = typer.Option("-", "-o", "--out", help="File to write (.jsonl, .csv or .parquet), or - for stdout."),
    labels: list[str] | None = LABELS,
    nested: bool = flag("--nested", 'JSONL only: the scores as one object under "scores" instead of a column each.'),
) -> None:
    """Export one row per question of each run.

    A row holds the run's label, system and model, the question, its outcome, the SQL and answer, the reference
    answer, and every score (judges' too) as it counts in the means, one column per score (named `score_NAME` when
    a score is named like another column): JSONL, CSV and Parquet have the same columns. A run with --repeats has a
    row per question and try: `try` numbers it, `tries_agree` says whether the question's tries give the same result.
    """
    target = None if out == "-" else Path(out)
    if target is not None:
        writable_target(target)
    chosen = format_for(target, format)
    if nested and chosen != "jsonl":
        raise UsageError(f"--nested applies to JSONL; {chosen} has one column per score")
    records = export_records(read_runs(runs, labels))
    if target is None:
        if chosen == "parquet" and sys.stdout.isatty():
            raise UsageError("Parquet is binary: write it to a file (-o FILE.parquet) or pipe it")
        sys.stdout.flush()
        write_records(records, chosen, sys.stdout.buffer, nested=nested)
        sys.stdout.buffer.flush()
        return
    write_atomically(target, lambda temp: _write_file(records, chosen, temp, nested))
    err.print(f"wrote {len(records)} rows ({chosen}) to {escape(str(target))}")


def _write_file(records: list[dict], chosen: str, path: Path, nested: bool) -> None:
    with path.open("wb") as handle:
        write_records(records, chosen, handle, nested=nested)
