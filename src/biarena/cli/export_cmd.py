"""`biarena export RUN [RUN ...] -o FILE`: every question of the runs with its outcome and scores, as a table."""

import sys
from pathlib import Path

import typer
from rich.text import Text

from biarena.cli.console import err
from biarena.cli.options import LABELS, flag
from biarena.report.execute_export import execute_export
from biarena.report.export import FORMATS
from biarena.report.export_settings import ExportSettings


def export(
    runs: list[Path] = typer.Argument(..., metavar="RUN", help="Run files; their rows follow one another."),
    format: str | None = typer.Option(
        None, "--format", help=f"{', '.join(FORMATS)}; default: from the file's extension (jsonl for -o -)."
    ),
    out: str = typer.Option("-", "-o", "--out", help="File to write (.jsonl, .csv or .parquet), or - for stdout."),
    labels: list[str] | None = LABELS,
    nested: bool = flag("--nested", 'JSONL only: the scores as one object under "scores" instead of a column each.'),
    rows: int | None = typer.Option(
        None,
        "--rows",
        min=1,
        metavar="N",
        help="Add each answer's result rows and the gold's, at most N of each (columns result_* and gold_*).",
    ),
) -> None:
    """Export one row per question of each run.

    A row holds the run's label, system and model, the question, its outcome, the SQL and answer, the reference
    answer, and every score (judges' too) as it counts in the means, one column per score (named `score_NAME` when
    a score is named like another column): JSONL, CSV and Parquet have the same columns. A run with --repeats has a
    row per question and try: `try` numbers it, `tries_agree` says whether the question's tries give the same result.

    --rows N adds result rows from the run file, running nothing again: the results `biarena score` kept for the
    answer's final SQL and the first gold query (an answer not scored yet has its first rows as it ran, up to 20;
    a gold not scored has none).
    """
    settings = ExportSettings(
        runs=runs, format=format, out=None if out == "-" else Path(out), labels=labels, nested=nested, rows=rows
    )
    if settings.out is not None:
        execute_export(settings, None, lambda event: err.print(Text(event.text)))
        return
    sys.stdout.flush()
    execute_export(settings, sys.stdout.buffer)
    sys.stdout.buffer.flush()
