"""execute_report: the report workflow (`biarena report`, `biarena.report(...)`): runs compared in one file per
benchmark, HTML, Markdown or CSV."""

from pathlib import Path

from biarena.benchmarks.paths import safe_file_name
from biarena.campaign.layout import campaign_runs, is_campaign
from biarena.errors import UsageError
from biarena.events import EventHandler, Message, ignore
from biarena.files import writable_target, write_atomically
from biarena.report.report_settings import ReportSettings


def execute_report(settings: ReportSettings, on_event: EventHandler = ignore) -> list[Path]:
    """Write the report of the settings' runs and return the files written (one per benchmark for a campaign over
    several), reporting warnings and each file written as messages through `on_event`."""
    from biarena.report.analysis import analyse
    from biarena.report.comparison import compare
    from biarena.report.csv_report import csv_report
    from biarena.report.html_report import write_report
    from biarena.report.judge_check import read_judge_check
    from biarena.report.markdown_report import markdown_report
    from biarena.report.run_data import read_runs
    from biarena.votes.export import read_exported_votes
    from biarena.votes.vote_file import load_votes

    campaign = any(is_campaign(path) for path in settings.runs)
    runs = campaign_runs(settings.runs)
    form, out = settings.form_and_target()
    writable_target(out)
    data = read_runs(runs, settings.labels)
    names = sorted({d.spec.benchmark_name for d in data})
    if len(names) > 1 and not campaign:
        raise UsageError(f"the runs are on different benchmarks: {', '.join(names)}")
    votes = load_votes(settings.arena) if settings.arena is not None else None
    checks = {
        judge: figures for path in settings.judge_check or [] for judge, figures in read_judge_check(path).items()
    }
    verdicts = {path: read_exported_votes(path) for path in settings.judge_votes or []}
    # a campaign over several benchmarks gets a report for each: figures of different benchmarks do not compare
    taken: set[str] = set()
    written = []
    for name in names:
        mine = [d for d in data if d.spec.benchmark_name == name]
        target = out if len(names) == 1 else out.with_name(f"{out.stem}-{safe_file_name(name, out.suffix, taken)}")
        for warning in compare(mine).warnings:
            on_event(Message(f"warning: {warning}"))
        if form == "html":
            write_report(mine, target, title=settings.title, votes=votes, judge_check=checks, judge_votes=verdicts)
        else:
            analysis = analyse(mine, votes=votes, judge_check=checks, judge_votes=verdicts)
            text = markdown_report(analysis, title=settings.title) if form == "md" else csv_report(analysis)
            write_atomically(target, lambda temp, text=text: temp.write_text(text, encoding="utf-8"))
        on_event(Message(f"wrote {target}" + (f" (benchmark {name})" if len(names) > 1 else "")))
        written.append(target)
    return written
