"""`biarena report RUN [RUN ...] -o report.html`: a self-contained HTML report comparing runs (or Markdown, CSV)."""

from enum import StrEnum
from pathlib import Path

import typer
from rich.text import Text

from biarena.cli.console import err
from biarena.cli.options import LABELS
from biarena.events import Message
from biarena.report.execute import execute_report
from biarena.report.report_settings import ReportSettings


class ReportFormat(StrEnum):
    """Formats of `report`."""

    html = "html"
    md = "md"
    csv = "csv"


def report(
    runs: list[Path] = typer.Argument(..., metavar="RUN", help="Run files (scored) or campaign folders to compare."),
    out: Path | None = typer.Option(
        None, "-o", "--out", help="File to write (default report.html, report.md or report.csv by the format)."
    ),
    form: ReportFormat | None = typer.Option(
        None, "--format", help="html (one self-contained file), md or csv; default: from -o's extension, else html."
    ),
    title: str = typer.Option("biarena report", "--title", help="Report title."),
    labels: list[str] | None = LABELS,
    arena: Path | None = typer.Option(
        None, "--arena", help="An arena database (arena.sqlite): its votes make the Bradley-Terry leaderboard."
    ),
    judge_check: list[Path] | None = typer.Option(
        None,
        "--judge-check",
        help="A JSON file `biarena judge check -o FILE` wrote (repeatable, one per judge): shown beside its scores.",
    ),
    judge_votes: list[Path] | None = typer.Option(
        None,
        "--judge-votes",
        metavar="VOTES.jsonl",
        help="Verdicts `biarena judge pairwise -o FILE` wrote (repeatable): the judge's ranking and, with --arena, "
        "its agreement with the human votes (Cohen's kappa).",
    ),
) -> None:
    """Write a report of runs: summary, arena leaderboard, tables with 95% intervals, charts, tests, every answer.

    Tables by category, question type and language; charts of SER and judge scores by type, judge dimensions and
    Bradley-Terry strengths.
    """
    settings = ReportSettings(
        runs=runs,
        out=out,
        form=form.value if form is not None else None,
        title=title,
        labels=labels,
        arena=arena,
        judge_check=judge_check,
        judge_votes=judge_votes,
    )
    execute_report(settings, lambda event: err.print(Text(event.text)) if isinstance(event, Message) else None)
