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
    per_category: int = typer.Option(3, "--per-category", min=1, help="Factory questions per BIS category (type 1)."),
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
        benchmark = build(
            out_dir, verticals=names, scale=scale, seed=seed, per_category=per_category, on_progress=progress
        )
    counts = Counter(
        (q.database, label) for q in benchmark.questions for label in q.labels if label.startswith("corgi:type")
    )
    columns = [("vertical", "name")] + [(f"type{i}", "number") for i in range(1, 5)]
    table = new_table(f"corgi-synth in {out_dir}", columns)
    for name in benchmark.databases:
        row(table, name, *(counts[(name, f"corgi:type{i}")] for i in range(1, 5)))
    print_table(table)
    err.print(Text(f"{len(benchmark.questions)} questions over {len(benchmark.databases)} databases in {out_dir}"))
    err.print(Text(next_steps(out_dir)))
