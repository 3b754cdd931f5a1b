"""`biarena generate templates|questions|answers`: benchmarks for any database (templates, BI-Bench, CCC)."""

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import typer

from biarena.cli.console import new_table, note, print_table, row, show_message
from biarena.cli.legacy_flags import LEGACY, legacy_flags
from biarena.cli.options import (
    BENCHMARK,
    BENCHMARK_NAME,
    DATABASE,
    LIMIT,
    MAX_CALLS,
    NO_CACHE,
    OPTIONS_FILE,
    flag,
)
from biarena.cli.settings_from import settings_from
from biarena.errors import UsageError
from biarena.generate.question_methods import METHODS

T = TypeVar("T")
_SEE = "models: local (default), local:/path.gguf, openai:MODEL, openai:MODEL@URL"

app = typer.Typer(help="Generate benchmark questions.", no_args_is_help=True)


@app.command("templates")
def templates(
    database: str = DATABASE,
    roles: Path | None = typer.Option(
        None, "--roles", help="roles.yaml: metrics, dimensions, time, joins, mappings (default: a draft of the schema)."
    ),
    out: Path = typer.Option(..., "-o", "--out", help="Benchmark directory to write."),
    languages: str | None = typer.Option(
        None, "--languages", help="Comma-separated languages (en, zh); default: those the roles file's names are in."
    ),
    per_category: int | None = typer.Option(
        None,
        "--per-category",
        min=1,
        help="Questions (per language) per category (default: 8, more where the roles have many facts: ~6 a fact).",
    ),
    seed: int = typer.Option(0, "--seed", help="Random seed: the same seed gives the same questions."),
    now: str | None = typer.Option(None, "--now", help="Clock anchor (ISO time); default: the latest timestamp."),
    name: str | None = BENCHMARK_NAME,
) -> None:
    """Instantiate the 9 BIS categories' templates (plus language) and keep questions whose gold returns rows.

    Without --roles the roles are drafted from the schema (`biarena generate roles` writes that draft to edit).
    """
    from biarena.generate.execute_templates import execute_templates
    from biarena.generate.generate_settings import TemplatesSettings

    execute_templates(
        settings_from(TemplatesSettings, locals(), languages=_languages(languages), now=_anchor(now)), show_message
    )


@app.command("roles")
def roles_draft(
    database: str = DATABASE,
    out: Path = typer.Option(..., "-o", "--out", help="roles.yaml to write."),
    name: str | None = typer.Option(None, "--name", help="The database's name in the benchmark (default: its file's)."),
    force: bool = flag("--force", "Replace an existing file."),
) -> None:
    """Draft a roles file from the schema: time columns, measures, dimensions and joins, commented to edit."""
    from biarena.generate.execute_roles import execute_roles
    from biarena.generate.generate_settings import RolesSettings

    execute_roles(settings_from(RolesSettings, locals()), show_message)


def _languages(text: str | None) -> list[str] | None:
    if text is None:
        return None
    wanted = [x.strip() for x in text.split(",") if x.strip()]
    if not wanted or any(x not in ("en", "zh") for x in wanted):
        raise UsageError(f"--languages takes en and/or zh, not '{text}'")
    return wanted


def _anchor(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--now must be an ISO time such as 2023-01-17T20:20:15, not '{text}'") from None


def _interruptible(out: Path, step: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a generation; Ctrl-C keeps its journal and says how to continue."""
    try:
        return step(*args, **kwargs)
    except KeyboardInterrupt:
        note(f"interrupted: the finished steps are kept; run the same command again to continue {out}")
        raise typer.Exit(130) from None


def _print_figures(pipeline: dict, out: Path) -> None:
    """The generated set's quality figures: each step's counts, questions per cell, duplicates."""
    steps = new_table(
        "pipeline",
        [("step", "name"), ("in", "number"), ("kept", "number"), ("dropped", "number"), ("corrected", "number")],
    )
    for step, counts in pipeline["steps"].items():
        row(steps, step, counts["in"], counts["kept"], counts["dropped"], counts["corrected"])
    print_table(steps)
    if pipeline.get("cells"):
        cells = new_table(
            "questions per cell", [("cell", "name"), ("asked", "number"), ("generated", "number"), ("kept", "number")]
        )
        for cell, counts in pipeline["cells"].items():
            row(cells, cell, counts["asked"], counts["generated"], counts["kept"])
        print_table(cells)
    if pipeline.get("labels"):
        note("labels: " + ", ".join(f"{label} {count}" for label, count in pipeline["labels"].items()))
    if "duplicates_by_normalized_text" in pipeline:
        note(f"duplicates by normalized text: {pipeline['duplicates_by_normalized_text']}")
    if "near_duplicates" in pipeline:
        note(f"near duplicates: {pipeline['near_duplicates']}")
    if pipeline.get("stopped"):
        note(f"{pipeline['stopped']}; run the same command again to continue {out}")
    note(f"wrote {pipeline['kept']} questions to {out} (counts in {out / 'pipeline.json'})")
    if not pipeline["kept"]:
        raise typer.Exit(1)


QUESTIONS_FLAGS = {f"--{name.replace('_', '-')}": name for model in METHODS.values() for name in model.model_fields}
"""The method options `generate questions` once took as flags: still accepted, hidden, as spellings of -O."""


def _methods_help() -> str:
    return "; ".join(f"{method}: {', '.join(model.model_fields)}" for method, model in METHODS.items())


@app.command("questions", cls=legacy_flags(QUESTIONS_FLAGS))
def questions(
    database: str = DATABASE,
    out: Path = typer.Option(..., "-o", "--out", help="Benchmark directory to write (continued when it holds one)."),
    method: str = typer.Option("llm", "--method", help="llm (BI-Bench's pipeline) or template (the template factory)."),
    model: str = typer.Option(
        "local", "--model", help=f"The model that generates questions and names tables ({_SEE})."
    ),
    option: list[str] | None = typer.Option(
        None,
        "-O",
        metavar="NAME=VALUE",
        help=f"Set an option of the method (repeatable): {_methods_help()}; `biarena describe question-method NAME` "
        "lists them with their defaults.",
    ),
    options_file: Path | None = OPTIONS_FILE,
    max_calls: int | None = MAX_CALLS,
    no_cache: bool = NO_CACHE,
    name: str | None = BENCHMARK_NAME,
    force: bool = flag("--force", "Start over when the directory holds a generation with other settings."),
    legacy: list[str] | None = LEGACY,
) -> None:
    """BI-Bench's pipeline: generate per category x complexity, check answerability, identify and verify tables.

    Every step is journaled in the output directory (a killed run continues) and counted in pipeline.json;
    checks.jsonl keeps what each check said about each question, kept or dropped.
    The method's options: -O NAME=VALUE or --options FILE.yaml (`biarena describe question-method NAME`).
    """
    from biarena.generate.execute_questions import execute_questions
    from biarena.generate.generate_settings import QuestionsSettings

    settings = settings_from(QuestionsSettings, locals(), options=[*(legacy or []), *(option or [])])
    result = _interruptible(out, execute_questions, settings, show_message)
    _print_figures(result.pipeline, out)


@app.command("answers")
def answers(
    benchmark: str = BENCHMARK,
    out: Path = typer.Option(..., "-o", "--out", help="Benchmark directory to write (continued when it holds one)."),
    model: str = typer.Option(
        "local", "--model", help=f"The model that conjectures, constructs and concludes ({_SEE})."
    ),
    base: str = typer.Option(
        "schema", "--base", help="What each question's database copy starts from: schema (no rows) or data (all rows)."
    ),
    limit: int | None = LIMIT,
    sample_rows: int = typer.Option(2, "--sample-rows", min=0, help="Sample rows per table shown with the schema."),
    max_calls: int | None = MAX_CALLS,
    no_cache: bool = NO_CACHE,
    name: str | None = BENCHMARK_NAME,
    force: bool = flag("--force", "Start over when the directory holds an annotation with other settings."),
) -> None:
    """Conjecture-Construct-Conclude: reference answers backed by rows injected into a copy of each database.

    The source databases are only read. A question whose rows break a key or the schema is dropped with the
    reason; the others go on. Each kept question gets its own database copy and a dbqa:conclusive or
    dbqa:interpretive label.
    """
    from biarena.generate.execute_answers import execute_answers
    from biarena.generate.generate_settings import AnswersSettings

    result = _interruptible(out, execute_answers, settings_from(AnswersSettings, locals()), show_message)
    _print_figures(result.pipeline, out)
