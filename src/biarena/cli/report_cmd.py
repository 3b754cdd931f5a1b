"""`biarena report RUN [RUN ...] -o report.html`: a self-contained HTML report comparing runs (or Markdown, CSV)."""

from enum import StrEnum
from pathlib import Path

import typer
from rich.text import Text

from biarena.benchmarks.paths import safe_file_name
from biarena.campaign.layout import campaign_runs, is_campaign
from biarena.cli.console import err
from biarena.cli.options import LABELS
from biarena.errors import UsageError
from biarena.files import writable_target, write_atomically
from biarena.report import read_runs, write_report
from biarena.report.analysis import analyse
from biarena.report.comparison import compare
from biarena.report.csv_report import csv_report
from biarena.report.judge_check import read_judge_check
from biarena.report.markdown_report import markdown_report
from biarena.votes.export import read_exported_votes
from biarena.votes.vote_file import load_votes


class ReportFormat(StrEnum):
    """Formats of `report`."""

    html = "html"
    md = "md"
    csv = "csv"


SUFFIXES = {".html": ReportFormat.html, ".htm": ReportFormat.html, ".md": ReportFormat.md, ".csv": ReportFormat.csv}


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
    campaign = any(is_campaign(path) for path in runs)
    runs = campaign_runs(runs)
    if form is None:
        form = SUFFIXES.get(out.suffix.lower(), ReportFormat.html) if out is not None else ReportFormat.html
    out = out or Path(f"report.{form.value}")
    writable_target(out)
    data = read_runs(runs, labels)
    names = sorted({d.spec.benchmark_name for d in data})
    if len(names) > 1 and not campaign:
        raise UsageError(f"the runs are on different benchmarks: {', '.join(names)}")
    votes = load_votes(arena) if arena is not None else None
    checks = {judge: figures for path in judge_check or [] for judge, figures in read_judge_check(path).items()}
    verdicts = {path: read_exported_votes(path) for path in judge_votes or []}
    # a campaign over several benchmarks gets a report for each: figures of different benchmarks do not compare
    taken: set[str] = set()
    for name in names:
        mine = [d for d in data if d.spec.benchmark_name == name]
        target = out if len(names) == 1 else out.with_name(f"{out.stem}-{safe_file_name(name, out.suffix, taken)}")
        for warning in compare(mine).warnings:
            err.print(Text(f"warning: {warning}"))
        if form is ReportFormat.html:
            write_report(mine, target, title=title, votes=votes, judge_check=checks, judge_votes=verdicts)
        else:
            analysis = analyse(mine, votes=votes, judge_check=checks, judge_votes=verdicts)
            text = markdown_report(analysis, title=title) if form is ReportFormat.md else csv_report(analysis)
            write_atomically(target, lambda temp, text=text: temp.write_text(text, encoding="utf-8"))
        err.print(Text(f"wrote {target}" + (f" (benchmark {name})" if len(names) > 1 else "")))
