"""`biarena report RUN [RUN ...] -o report.html`: a self-contained HTML report comparing runs."""

from pathlib import Path

import typer

from biarena.cli.console import err
from biarena.errors import UsageError
from biarena.report import RunData, write_report


def report(
    runs: list[Path] = typer.Argument(..., metavar="RUN...", help="Run files (scored) to compare."),
    out: Path = typer.Option(Path("report.html"), "-o", "--out", help="HTML file to write."),
    title: str = typer.Option("biarena report", "--title", help="Report title."),
) -> None:
    """Write one HTML file with summary tables, charts by category, and every answer."""
    data = [RunData.read(path) for path in runs]
    names = {d.spec.benchmark_name for d in data}
    if len(names) > 1:
        raise UsageError(f"the runs are on different benchmarks: {', '.join(sorted(names))}")
    write_report(data, out, title=title)
    err.print(f"wrote {out}")
