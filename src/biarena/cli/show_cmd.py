"""`biarena show RUN [RUN ...]`: scores by category, by language and overall, with coverage; runs side by side."""

import sys
from enum import StrEnum
from pathlib import Path

import typer
from rich.text import Text

from biarena.cli.console import err, new_table, out, print_table, row
from biarena.cli.options import LABELS, flag
from biarena.report.comparison import Comparison
from biarena.report.contract_disagreement import disagreement_tables
from biarena.report.execute_show import ShowSettings, execute_show, show_text, show_trace
from biarena.report.judge_tables import judge_legend, judge_tables
from biarena.report.paper_tables import paper_tables
from biarena.report.repeatability_tables import repeatability_tables
from biarena.report.tables import (
    SECTIONS,
    comparison_rows,
    legend,
    outcome_line,
    run_title,
    usage_line,
)


class ShowFormat(StrEnum):
    """Output formats of `show`."""

    table = "table"
    json = "json"
    csv = "csv"
    md = "md"


def _print_tables(comparison: Comparison, usage: bool) -> None:
    for summary in comparison.summaries:
        out.print(Text(run_title(summary), style="bold"))
        out.print(Text("  " + outcome_line(summary)))
        for error, count in summary.errors:
            out.print(Text(f"  {count} × {error}"))
        if usage:
            out.print(Text("  " + usage_line(summary)))
        if not summary.run.scores:
            out.print(Text(f"  no scores yet: run `biarena score {summary.run.path}`"))
    if any(s.run.scores for s in comparison.summaries):
        for title, field in SECTIONS:
            headers, cells, numeric = comparison_rows(comparison, field)
            table = new_table(title, [(h, "number" if i in numeric else "text") for i, h in enumerate(headers)])
            for line in cells:
                row(table, *line)
            print_table(table)
        judged = judge_tables(comparison) + paper_tables(comparison)
        for title, headers, cells, numeric in judged:
            table = new_table(title, [(h, "number" if i in numeric else "text") for i, h in enumerate(headers)])
            for line in cells:
                row(table, *line)
            print_table(table)
        out.print(Text(legend(comparison)))
        if judged:
            out.print(Text(judge_legend(comparison)))
        for title, headers, cells, _ in disagreement_tables(comparison) + repeatability_tables(comparison):
            table = new_table(title, [(h, "text") for h in headers])
            for line in cells:
                row(table, *line)
            print_table(table)


def show(
    runs: list[Path] = typer.Argument(
        ..., metavar="RUN", help="Run files or campaign folders; several are shown side by side."
    ),
    format: ShowFormat = typer.Option(ShowFormat.table, "--format", help="table, json, csv or md (Markdown)."),
    labels: list[str] | None = LABELS,
    usage: bool = flag("--usage", "Also show model usage: calls, cache hits, tokens, and the cost when priced."),
    trace: str | None = typer.Option(
        None, "--trace", metavar="QUESTION_ID", help="Print every judge request and reply stored for one question."
    ),
) -> None:
    """Show runs' scores by category, by language and overall, and judges' scores by question type and dimension.

    Each run's coverage and outcomes come with them; `--trace ID` prints what the judges asked and were told about
    one answer.
    """
    settings = ShowSettings(runs=runs, format=format.value, labels=labels, usage=usage, trace=trace)
    if trace is not None:
        for line in show_trace(settings):
            sys.stdout.write(line + "\n")
        return
    comparison = execute_show(settings, lambda event: err.print(Text(event.text)))
    if format is ShowFormat.table:
        _print_tables(comparison, usage)
    else:
        sys.stdout.write(show_text(comparison, settings.format, usage))
