"""`biarena generate templates|questions|answers`: benchmarks for any database (templates, BI-Bench, CCC)."""

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

import typer
from pydantic import Field, field_validator
from rich.text import Text

from biarena.benchmarks import save_benchmark
from biarena.cli.console import err, new_table, print_table, row
from biarena.cli.legacy_flags import LEGACY, legacy_flags
from biarena.cli.options import OPTIONS_FILE, flag, gather_options
from biarena.db import describe_schema, open_database
from biarena.errors import UsageError, did_you_mean
from biarena.generate.factory import latest_time
from biarena.generate.roles import load_roles
from biarena.generate.roles_check import check_roles
from biarena.generate.templates import CATEGORIES
from biarena.llm import Model
from biarena.options import Options
from biarena.records import Benchmark

T = TypeVar("T")
_SEE = "models: local (default), local:/path.gguf, openai:MODEL, openai:MODEL@URL"

app = typer.Typer(help="Generate benchmark questions.", no_args_is_help=True)


@app.command("templates")
def templates(
    database: str = typer.Argument(
        ..., metavar="DB", help="SQLite or DuckDB file, or a server URL (postgresql://...)."
    ),
    roles_path: Path | None = typer.Option(
        None, "--roles", help="roles.yaml: metrics, dimensions, time, joins, mappings (default: a draft of the schema)."
    ),
    out: Path = typer.Option(..., "-o", "--out", help="Benchmark directory to write."),
    languages: str | None = typer.Option(
        None, "--languages", help="Comma-separated languages (en, zh); default: those the roles file's names are in."
    ),
    per_category: int = typer.Option(8, "--per-category", min=1, help="Questions (per language) per category."),
    seed: int = typer.Option(0, "--seed", help="Random seed: the same seed gives the same questions."),
    now: str | None = typer.Option(None, "--now", help="Clock anchor (ISO time); default: the latest timestamp."),
    name: str | None = typer.Option(None, "--name", help="Benchmark name (default: the output directory's name)."),
) -> None:
    """Instantiate the 9 BIS categories' templates (plus language) and keep questions whose gold returns rows.

    Without --roles the roles are drafted from the schema (`biarena generate roles` writes that draft to edit).
    """
    from biarena.generate.database_location import DatabaseLocation
    from biarena.generate.factory import covered_languages, generate_question_set

    location = DatabaseLocation(database)
    location.check_exists()
    with open_database(database) as db:
        if roles_path is None:
            roles = _drafted_roles(db, location.name)
            roles_source: str | Path = "the roles drafted from the schema"
            err.print(
                Text(
                    f"no --roles: using roles drafted from the schema of {location.shown} "
                    "(biarena generate roles writes them to a file to edit)"
                )
            )
        else:
            roles, roles_source = load_roles(roles_path), roles_path
        check_roles(roles, db, roles_source)
        wanted = _languages(languages, covered_languages(roles))
        anchor = _anchor(now) or latest_time(db, roles)
        made = generate_question_set(db, roles, languages=wanted, per_category=per_category, seed=seed, now=anchor)
        schema = describe_schema(db, sample_rows=0)
        dialect = db.dialect
    questions = made.questions
    benchmark = Benchmark(
        name=name or out.name,
        description=f"Template questions over {location.shown} ({len(CATEGORIES)} categories).",
        now=anchor,
        source_format="templates",
        databases={roles.database: location.ref(dialect, schema)},
        questions=questions,
    )
    save_benchmark(benchmark, out)
    found = sorted({q.labels[0] for q in questions})
    missing = [c for c in CATEGORIES if f"bis:{c}" not in found]
    per_language = ", ".join(f"{sum(q.language == lang for q in questions)} {lang}" for lang in wanted)
    err.print(Text(f"wrote {len(questions)} questions ({per_language}) in {len(found)} categories to {out}"))
    for lang, count in sorted(made.untranslated.items()):
        err.print(Text(f"left out {count} {lang} questions: a name they need has no '{lang}' translation in the roles"))
    if missing:
        err.print(Text(f"no sound question for: {', '.join(missing)} (check the roles file)"))


@app.command("roles")
def roles_draft(
    database: str = typer.Argument(
        ..., metavar="DB", help="SQLite or DuckDB file, or a server URL (postgresql://...)."
    ),
    out: Path = typer.Option(..., "-o", "--out", help="roles.yaml to write."),
    name: str | None = typer.Option(None, "--name", help="The database's name in the benchmark (default: its file's)."),
    force: bool = flag("--force", "Replace an existing file."),
) -> None:
    """Draft a roles file from the schema: time columns, measures, dimensions and joins, commented to edit."""
    from biarena.generate.database_location import DatabaseLocation
    from biarena.generate.roles_draft import draft_roles

    if out.exists() and not force:
        raise UsageError(f"{out} exists: choose another -o, or --force to replace it")
    location = DatabaseLocation(database)
    location.check_exists()
    with open_database(database) as db:
        try:
            text = draft_roles(db, name or location.name)
        except ValueError as error:
            raise UsageError(f"{location.shown}: {error}") from None
    out.write_text(text, encoding="utf-8")
    err.print(Text(f"wrote {out}: check it, then biarena generate templates {database} --roles {out} -o BENCH"))


def _drafted_roles(db: Any, database: str) -> Any:
    from biarena.generate.roles import Roles
    from biarena.generate.roles_draft import draft_roles
    from biarena.yaml_load import load_yaml

    try:
        return Roles.model_validate(load_yaml(draft_roles(db, database), f"{database} (drafted roles)"))
    except ValueError as error:
        raise UsageError(f"{database}: {error}") from None


def _languages(text: str | None, covered: tuple[str, ...]) -> tuple[str, ...]:
    if text is None:
        return covered
    wanted = tuple(x.strip() for x in text.split(",") if x.strip())
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


def _say(message: str) -> None:
    err.print(Text(message))


def _models(model: str, checker: str | None, no_cache: bool) -> tuple[Model, Model]:
    from biarena.llm import get_model

    made = get_model(model, use_cache=not no_cache, concurrency=1)
    if checker is None or checker == model:
        return made, made
    return made, get_model(checker, use_cache=not no_cache, concurrency=1)


def _interruptible(out: Path, step: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a generation; Ctrl-C keeps its journal and says how to continue."""
    try:
        return step(*args, **kwargs)
    except KeyboardInterrupt:
        _say(f"interrupted: the finished steps are kept; run the same command again to continue {out}")
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
        _say("labels: " + ", ".join(f"{label} {count}" for label, count in pipeline["labels"].items()))
    if "duplicates_by_normalized_text" in pipeline:
        _say(f"duplicates by normalized text: {pipeline['duplicates_by_normalized_text']}")
    if "near_duplicates" in pipeline:
        _say(f"near duplicates: {pipeline['near_duplicates']}")
    if pipeline.get("stopped"):
        _say(f"{pipeline['stopped']}; run the same command again to continue {out}")
    _say(f"wrote {pipeline['kept']} questions to {out} (counts in {out / 'pipeline.json'})")
    if not pipeline["kept"]:
        raise typer.Exit(1)


def _some_of(values: list[str] | None, module_attribute: str) -> list[str] | None:
    """`values` lower-cased, each checked against the choices at `module:attribute` (imported only now)."""
    if values is None:
        return None
    import importlib

    module, _, attribute = module_attribute.partition(":")
    choices = tuple(getattr(importlib.import_module(module), attribute))
    wanted = list(dict.fromkeys(v.strip().lower() for v in values if v.strip()))
    unknown = [v for v in wanted if v not in choices]
    if not wanted or unknown:
        raise ValueError(f"must be some of {', '.join(choices)}")
    return wanted


class LLMQuestionsOptions(Options):
    """BI-Bench's pipeline (`--method llm`): questions per category x complexity, answerability and tables checked."""

    checker: str | None = None
    """A different model that checks answerability and table completeness (default: the generating model)."""
    categories: list[str] | None = None
    """Only these categories: descriptive, diagnostic, predictive, prescriptive (default: all)."""
    complexities: list[str] | None = None
    """Only these complexities: basic, intermediate, advanced (default: all)."""
    per_cell: int = Field(3, ge=1)
    """Questions asked for per category and complexity."""
    sample_rows: int = Field(2, ge=0)
    """Sample rows per table shown with the schema."""

    @field_validator("categories")
    @classmethod
    def _categories(cls, values: list[str] | None) -> list[str] | None:
        return _some_of(values, "biarena.generate.bibench_questions:CATEGORIES")

    @field_validator("complexities")
    @classmethod
    def _complexities(cls, values: list[str] | None) -> list[str] | None:
        return _some_of(values, "biarena.generate.bibench_questions:COMPLEXITIES")


class TemplateQuestionsOptions(Options):
    """The template factory (`--method template`): BIS-category questions with gold SQL, from a roles annotation."""

    roles: Path
    """roles.yaml: the database's column roles (metrics, dimensions, time, joins, mappings)."""
    languages: list[Literal["en", "zh"]] = Field(default_factory=lambda: ["en"])
    """Languages of the questions: en, zh."""
    per_category: int = Field(3, ge=1)
    """Questions per category (and language)."""
    seed: int = 0
    """Random seed: the same seed gives the same questions."""


METHODS: dict[str, type[Options]] = {"llm": LLMQuestionsOptions, "template": TemplateQuestionsOptions}
"""How `generate questions` makes questions, and the options each way takes."""
QUESTIONS_FLAGS = {f"--{name.replace('_', '-')}": name for model in METHODS.values() for name in model.model_fields}
"""The method options `generate questions` once took as flags: still accepted, hidden, as spellings of -O."""


def _methods_help() -> str:
    return "; ".join(f"{method}: {', '.join(model.model_fields)}" for method, model in METHODS.items())


@app.command("questions", cls=legacy_flags(QUESTIONS_FLAGS))
def questions(
    database: str = typer.Argument(
        ..., metavar="DB", help="SQLite or DuckDB file, or a server URL (postgresql://...)."
    ),
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
    max_calls: int | None = typer.Option(None, "--max-calls", min=1, help="Stop after N model calls (not cached)."),
    no_cache: bool = flag("--no-cache", "Do not use cached model replies."),
    name: str | None = typer.Option(None, "--name", help="Benchmark name (default: the output directory's name)."),
    force: bool = flag("--force", "Start over when the directory holds a generation with other settings."),
    legacy: list[str] | None = LEGACY,
) -> None:
    """BI-Bench's pipeline: generate per category x complexity, check answerability, identify and verify tables.

    Every step is journaled in the output directory (a killed run continues) and counted in pipeline.json;
    checks.jsonl keeps what each check said about each question, kept or dropped.
    The method's options: -O NAME=VALUE or --options FILE.yaml (`biarena describe question-method NAME`).
    """
    from biarena.generate.bibench_questions import (
        CATEGORIES as BIBENCH_CATEGORIES,
    )
    from biarena.generate.bibench_questions import (
        COMPLEXITIES,
        generate_bibench_questions,
        generate_template_questions,
    )

    if method not in METHODS:
        raise UsageError(f"--method takes llm or template, not '{method}'{did_you_mean(method, list(METHODS))}")
    from biarena.generate.database_location import DatabaseLocation

    DatabaseLocation(database).check_exists()
    pairs = [*(legacy or []), *(option or [])]
    chosen = gather_options(METHODS[method], f"method '{method}'", pairs, options_file)
    if isinstance(chosen, TemplateQuestionsOptions):
        result = generate_template_questions(
            database,
            out,
            roles_path=chosen.roles,
            languages=tuple(chosen.languages),
            per_category=chosen.per_category,
            seed=chosen.seed,
            name=name,
            force=force,
            say=_say,
        )
    else:
        assert isinstance(chosen, LLMQuestionsOptions)
        generator, check = _models(model, chosen.checker, no_cache)
        result = _interruptible(
            out,
            generate_bibench_questions,
            database,
            out,
            model=generator,
            checker=check,
            categories=tuple(chosen.categories or BIBENCH_CATEGORIES),
            complexities=tuple(chosen.complexities or COMPLEXITIES),
            per_cell=chosen.per_cell,
            sample_rows=chosen.sample_rows,
            max_calls=max_calls,
            name=name,
            force=force,
            say=_say,
        )
    _print_figures(result.pipeline, out)


@app.command("answers")
def answers(
    benchmark_arg: str = typer.Argument(..., metavar="BENCH", help="Benchmark directory or built-in name."),
    out: Path = typer.Option(..., "-o", "--out", help="Benchmark directory to write (continued when it holds one)."),
    model: str = typer.Option(
        "local", "--model", help=f"The model that conjectures, constructs and concludes ({_SEE})."
    ),
    base: str = typer.Option(
        "schema", "--base", help="What each question's database copy starts from: schema (no rows) or data (all rows)."
    ),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N questions."),
    sample_rows: int = typer.Option(2, "--sample-rows", min=0, help="Sample rows per table shown with the schema."),
    max_calls: int | None = typer.Option(None, "--max-calls", min=1, help="Stop after N model calls (not cached)."),
    no_cache: bool = flag("--no-cache", "Do not use cached model replies."),
    name: str | None = typer.Option(None, "--name", help="Benchmark name (default: the output directory's name)."),
    force: bool = flag("--force", "Start over when the directory holds an annotation with other settings."),
) -> None:
    """Conjecture-Construct-Conclude: reference answers backed by rows injected into a copy of each database.

    The source databases are only read. A question whose rows break a key or the schema is dropped with the
    reason; the others go on. Each kept question gets its own database copy and a dbqa:conclusive or
    dbqa:interpretive label.
    """
    from biarena.benchmarks import resolve_benchmark
    from biarena.generate.cca import BASES, generate_cca_answers
    from biarena.llm import get_model

    if base not in BASES:
        raise UsageError(f"--base takes {' or '.join(BASES)}, not '{base}'")
    source = resolve_benchmark(benchmark_arg)
    if source.root is not None and out.resolve() == source.root.resolve():
        raise UsageError(f"-o must be another directory than the benchmark {benchmark_arg}")
    made = get_model(model, use_cache=not no_cache, concurrency=1)
    result = _interruptible(
        out,
        generate_cca_answers,
        source,
        out,
        model=made,
        base=base,
        sample_rows=sample_rows,
        max_calls=max_calls,
        limit=limit,
        name=name,
        force=force,
        say=_say,
    )
    _print_figures(result.pipeline, out)
