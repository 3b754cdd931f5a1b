"""`biarena suite corgi`: build the CORGI suite (simulated verticals, four question types) as a benchmark."""

from contextlib import ExitStack
from pathlib import Path
from typing import Any

import typer
from rich.text import Text

from biarena.cli.build_cmd import next_steps
from biarena.cli.console import err, new_table, print_table, row, stage_progress
from biarena.events import Message, Stage

app = typer.Typer(help="Build benchmark suites over simulated business databases.", no_args_is_help=True)


@app.command("corgi")
def corgi(
    out_dir: Path = typer.Option(..., "-o", "--out", help="Benchmark directory to write (absent or empty)."),
    verticals: list[str] = typer.Option(
        None, "--verticals", help="Verticals to include (comma-separated or repeated); default: all ten."
    ),
    scale: float = typer.Option(1.0, "--scale", min=0.01, help="Database size: row counts times this."),
    seed: int = typer.Option(0, "--seed", help="The same seed and scale give the same databases and questions."),
    audit: bool = typer.Option(
        False, "--audit", help="Also print the suite's quality figures: forms, leaks, naive forecasts, answerability."
    ),
) -> None:
    """Generate and verify each vertical, then write descriptive (gold SQL), explanatory, predictive and
    recommendational questions (reference answers from the simulator's rules and planted events)."""
    from biarena.generate.execute_suite import execute_suite
    from biarena.generate.suite_settings import SuiteSettings

    given = [name.strip() for value in verticals or [] for name in value.split(",") if name.strip()]
    settings = SuiteSettings(out=out_dir, verticals=given or None, scale=scale, seed=seed, audit=audit)
    with ExitStack() as progress:
        execute_suite(settings, _Show(progress))
    err.print(Text(next_steps(out_dir)))


class _Show:
    """Renders the suite's events: messages on stderr, a progress bar while it builds, then its tables."""

    def __init__(self, stack: ExitStack) -> None:
        self.stack = stack
        self.progress: Any = None

    def __call__(self, event: object) -> None:
        from biarena.generate.suite_events import SuiteAudited, SuiteBuilt

        if isinstance(event, Message):
            err.print(Text(event.text))
        elif isinstance(event, Stage):
            if self.progress is None:
                self.progress = self.stack.enter_context(stage_progress("corgi-synth", event.total))
            self.progress(event.done, event.total, event.item, event.stage)
        elif isinstance(event, SuiteBuilt):
            self.stack.close()
            _print_counts(event)
        elif isinstance(event, SuiteAudited):
            _print_audit(event.figures)


def _print_counts(built: Any) -> None:
    columns = [("vertical", "name")] + [(f"type{i}", "number") for i in range(1, 5)]
    table = new_table(f"corgi-synth in {built.out}", columns)
    for name, counts in built.counts.items():
        row(table, name, *(counts[f"corgi:type{i}"] for i in range(1, 5)))
    print_table(table)


def _print_audit(figures: Any) -> None:
    from biarena.generate.corgi_suite.audit import TYPES

    table = new_table("suite audit", [("figure", "text"), *((kind.split(":")[1], "number") for kind in TYPES)])
    row(table, "fewest questions in a vertical", *(min(c[k] for c in figures.counts.values()) for k in TYPES))
    row(table, "distinct question forms", *(figures.forms[k] for k in TYPES))
    print_table(table)
    naive = f"{figures.naive_hits} of {figures.naive_total} ({figures.naive_rate:.0%})"
    err.print(Text(f"leaks (reference figures in what agents see): {len(figures.leaks)}"))
    err.print(Text(f"forecasts a same-period-last-year guess gets within 10%: {naive}"))
    unanswerable = ", ".join(figures.unanswerable[:5]) or "none"
    err.print(Text(f"unanswerable questions: {len(figures.unanswerable)} ({unanswerable})"))
    worded = ", ".join(figures.jargon[:5]) or "none"
    err.print(Text(f"questions naming a column, a code or an exact date: {len(figures.jargon)} ({worded})"))
