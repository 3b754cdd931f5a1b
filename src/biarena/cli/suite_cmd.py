"""`biarena suite corgi`: build the CORGI suite (simulated verticals, four question types) as a benchmark."""

from collections import Counter
from pathlib import Path

import typer
from rich.table import Table

from biarena.cli.console import err, out
from biarena.errors import FormatError, UsageError

app = typer.Typer(help="Build benchmark suites over simulated business databases.", no_args_is_help=True)


def _verticals(values: list[str] | None) -> list[str] | None:
    from biarena.synth import vertical_spec

    if not values:
        return None
    names = [name.strip() for value in values for name in value.split(",") if name.strip()]
    for name in names:
        vertical_spec(name)  # NotFoundError names the unknown one and the known ones
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

    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise FormatError(f"{out_dir}: already exists and is not an empty directory (choose another -o)")
    names = _verticals(verticals)
    err.print(f"building the CORGI suite ({', '.join(names) if names else 'all ten verticals'}) at scale {scale:g} ...")
    benchmark = build(out_dir, verticals=names, scale=scale, seed=seed, per_category=per_category)
    counts = Counter(
        (q.database, label) for q in benchmark.questions for label in q.labels if label.startswith("corgi:type")
    )
    table = Table(title=f"corgi-synth in {out_dir}", title_justify="left")
    for column in ("vertical", "type1", "type2", "type3", "type4"):
        table.add_column(column, justify="left" if column == "vertical" else "right")
    for name in benchmark.databases:
        table.add_row(name, *(str(counts[(name, f"corgi:type{i}")]) for i in range(1, 5)))
    out.print(table)
    err.print(
        f"{len(benchmark.questions)} questions over {len(benchmark.databases)} databases; "
        f"next: biarena run {out_dir} --agent sequential"
    )
