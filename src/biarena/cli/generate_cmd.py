"""`biarena generate templates DB --roles roles.yaml -o DIR`: BIS-category questions for any database."""

from datetime import datetime
from pathlib import Path

import typer
from rich.text import Text

from biarena.benchmarks import save_benchmark
from biarena.cli.console import err
from biarena.db import describe_schema, open_database
from biarena.errors import UsageError
from biarena.generate.factory import generate_questions, latest_time
from biarena.generate.roles import load_roles
from biarena.generate.templates import CATEGORIES
from biarena.records import Benchmark, DatabaseRef

app = typer.Typer(help="Generate benchmark questions.", no_args_is_help=True)


@app.command("templates")
def templates(
    database: Path = typer.Argument(..., metavar="DB", help="SQLite or DuckDB file."),
    roles_path: Path = typer.Option(..., "--roles", help="roles.yaml: metrics, dimensions, time, joins, mappings."),
    out: Path = typer.Option(..., "-o", "--out", help="Benchmark directory to write."),
    languages: str = typer.Option("en,zh", "--languages", help="Comma-separated languages (en, zh)."),
    per_category: int = typer.Option(8, "--per-category", min=1, help="Questions (per language) per category."),
    seed: int = typer.Option(0, "--seed", help="Random seed: the same seed gives the same questions."),
    now: str | None = typer.Option(None, "--now", help="Clock anchor (ISO time); default: the latest timestamp."),
    name: str | None = typer.Option(None, "--name", help="Benchmark name (default: the output directory's name)."),
) -> None:
    """Instantiate the 9 BIS categories' templates (plus language) and keep questions whose gold returns rows."""
    roles = load_roles(roles_path)
    wanted = tuple(x.strip() for x in languages.split(",") if x.strip())
    if not wanted or any(x not in ("en", "zh") for x in wanted):
        raise UsageError(f"--languages takes en and/or zh, not '{languages}'")
    with open_database(database) as db:
        anchor = _anchor(now) or latest_time(db, roles)
        questions = generate_questions(db, roles, languages=wanted, per_category=per_category, seed=seed, now=anchor)
        schema = describe_schema(db, sample_rows=0)
        dialect = db.dialect
    benchmark = Benchmark(
        name=name or out.name,
        description=f"Template questions over {database.name} ({len(CATEGORIES)} categories).",
        now=anchor,
        source_format="templates",
        databases={roles.database: DatabaseRef(path=str(database.resolve()), dialect=dialect, description=schema)},
        questions=questions,
    )
    save_benchmark(benchmark, out)
    found = sorted({q.labels[0] for q in questions})
    missing = [c for c in CATEGORIES if f"bis:{c}" not in found]
    err.print(Text(f"wrote {len(questions)} questions in {len(found)} categories to {out}"))
    if missing:
        err.print(Text(f"no sound question for: {', '.join(missing)} (check the roles file)"))


def _anchor(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--now must be an ISO time such as 2023-01-17T20:20:15, not '{text}'") from None
