"""`biarena suite corgi`: build the CORGI suite (simulated verticals, four question types) as a benchmark."""

from collections import Counter
from pathlib import Path

import typer
from rich.text import Text

from biarena.cli.build_cmd import empty_target, next_steps
from biarena.cli.console import err, new_table, print_table, row, stage_progress
from biarena.errors import UsageError

app = typer.Typer(help="Build benchmark suites over simulated business databases.", no_args_is_help=True)


def _verticals(values: list[str] | None) -> list[str] | None:
    from biarena.synth import vertical_spec

    if not values:
        return None
    given = [name.strip() for value in values for name in value.split(",") if name.strip()]
    names = [vertical_spec(name).name for name in given]  # aliases become the built-in name; unknown: NotFoundError
    if len(set(names)) != len(names):
        raise UsageError(f"--verticals names one vertical twice: {', '.join(names)}")
    return names


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
    from biarena.generate.corgi_suite import build
    from biarena.synth import vertical_names

    empty_target(out_dir)
    names = _verticals(verticals)
    chosen = names or vertical_names()
    err.print(Text(f"building the CORGI suite ({', '.join(chosen)}) at scale {scale:g} ..."))
    with stage_progress("corgi-synth", len(chosen)) as progress:
        benchmark = build(out_dir, verticals=names, scale=scale, seed=seed, on_progress=progress)
    counts = Counter(
        (q.database, label) for q in benchmark.questions for label in q.labels if label.startswith("corgi:type")
    )
    columns = [("vertical", "name")] + [(f"type{i}", "number") for i in range(1, 5)]
    table = new_table(f"corgi-synth in {out_dir}", columns)
    for name in benchmark.databases:
        row(table, name, *(counts[(name, f"corgi:type{i}")] for i in range(1, 5)))
    print_table(table)
    if audit:
        _print_audit(out_dir)
    err.print(Text(f"{len(benchmark.questions)} questions over {len(benchmark.databases)} databases in {out_dir}"))
    err.print(Text(next_steps(out_dir)))


def _print_audit(out_dir: Path) -> None:
    from biarena.benchmarks import load_benchmark
    from biarena.generate.corgi_suite.audit import TYPES, audit

    figures = audit(load_benchmark(out_dir))
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
