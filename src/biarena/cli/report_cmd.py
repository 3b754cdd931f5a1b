"""`biarena report RUN [RUN ...] -o report.html`: a self-contained HTML report comparing runs."""

from pathlib import Path

import typer
from rich.text import Text

from biarena.cli.console import err
from biarena.cli.options import LABELS
from biarena.errors import UsageError
from biarena.files import writable_target
from biarena.report import read_runs, write_report
from biarena.report.comparison import compare


def report(
    runs: list[Path] = typer.Argument(..., metavar="RUN", help="Run files (scored) to compare."),
    out: Path = typer.Option(Path("report.html"), "-o", "--out", help="HTML file to write."),
    title: str = typer.Option("biarena report", "--title", help="Report title."),
    labels: list[str] | None = LABELS,
) -> None:
    """Write one HTML file with summary tables, charts by category, and every question's answers and outcomes."""
    writable_target(out)
    data = read_runs(runs, labels)
    names = {d.spec.benchmark_name for d in data}
    if len(names) > 1:
        raise UsageError(f"the runs are on different benchmarks: {', '.join(sorted(names))}")
    for warning in compare(data).warnings:
        err.print(Text(f"warning: {warning}"))
    write_report(data, out, title=title)
    err.print(Text(f"wrote {out}"))
