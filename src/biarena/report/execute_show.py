"""execute_show: the show workflow (`biarena show RUN ...`): runs compared by category, language and overall, as
a Comparison to print as tables, or as JSON, CSV or Markdown text."""

import json
from pathlib import Path
from typing import Literal

from biarena.campaign.layout import campaign_runs
from biarena.events import EventHandler, Message, ignore
from biarena.report.comparison import Comparison, compare
from biarena.report.repeatability_tables import repeatability_json, repeatability_tables
from biarena.report.run_data import read_runs
from biarena.report.tables import comparison_csv, comparison_json, comparison_markdown, markdown_table
from biarena.report.traces import trace_lines
from biarena.settings import Settings

ShowForm = Literal["table", "json", "csv", "md"]


class ShowSettings(Settings):
    """Runs (run files or campaign folders) shown side by side."""

    runs: list[Path]
    format: ShowForm = "table"
    labels: list[str] | None = None
    usage: bool = False
    """Also model usage: calls, cache hits, tokens, and the cost when priced."""
    trace: str | None = None
    """A question id: every judge request and reply stored for it, instead of the scores."""


def execute_show(settings: ShowSettings, on_event: EventHandler = ignore) -> Comparison:
    """The runs' comparison; what makes it doubtful (different questions, benchmarks) is said as warnings."""
    comparison = compare(read_runs(campaign_runs(settings.runs), settings.labels))
    for warning in comparison.warnings:
        on_event(Message(f"warning: {warning}"))
    return comparison


def show_trace(settings: ShowSettings) -> list[str]:
    """The lines of `settings.trace`'s judge requests and replies, in every run."""
    assert settings.trace is not None
    return trace_lines(campaign_runs(settings.runs), settings.trace)


def show_text(comparison: Comparison, form: ShowForm, usage: bool = False) -> str:
    """The comparison as JSON, CSV or Markdown (`table` is printed by the command line, not written here)."""
    if form == "json":
        data = comparison_json(comparison)
        if repeated := repeatability_json(comparison):
            data["repeatability"] = repeated
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if form == "csv":
        return comparison_csv(comparison, usage=usage)
    repeated = [
        f"\n## {title}\n\n{markdown_table(headers, cells, numeric)}\n"
        for title, headers, cells, numeric in repeatability_tables(comparison)
    ]
    return comparison_markdown(comparison, usage=usage) + "".join(repeated)
