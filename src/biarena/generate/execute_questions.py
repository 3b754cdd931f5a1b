"""execute_questions: questions generated over a database (`biarena generate questions DB -o BENCH`)."""

from typing import Any

from biarena.benchmarks.options_file import read_options_file
from biarena.errors import UsageError, did_you_mean
from biarena.events import EventHandler, Message, ignore
from biarena.generate.bibench_questions.pipeline import GenerationResult
from biarena.generate.database_location import DatabaseLocation
from biarena.generate.generate_settings import QuestionsSettings
from biarena.generate.question_methods import METHODS, LLMQuestionsOptions, TemplateQuestionsOptions
from biarena.options import parse_option_pairs, validate_options


def execute_questions(settings: QuestionsSettings, on_event: EventHandler = ignore) -> GenerationResult:
    """Generate questions over the database with the settings' method into the benchmark directory
    `settings.out` (every step journaled there, so a killed run continues; counts in pipeline.json) and return
    what it kept with the counts; progress is reported as messages.

    An unknown method or method option is a UsageError that suggests the closest one."""
    from biarena.generate.bibench_questions import (
        CATEGORIES,
        COMPLEXITIES,
        generate_bibench_questions,
        generate_template_questions,
    )

    method, database = settings.method, settings.database
    if method not in METHODS:
        raise UsageError(f"--method takes llm or template, not '{method}'{did_you_mean(method, list(METHODS))}")
    DatabaseLocation(database).check_exists()
    chosen = _method_options(settings)

    def say(text: str) -> None:
        on_event(Message(text))

    if isinstance(chosen, TemplateQuestionsOptions):
        return generate_template_questions(
            database,
            settings.out,
            roles_path=chosen.roles,
            languages=tuple(chosen.languages),
            per_category=chosen.per_category,
            seed=chosen.seed,
            name=settings.name,
            force=settings.force,
            say=say,
        )
    assert isinstance(chosen, LLMQuestionsOptions)
    generator, check = _models(settings.model, chosen.checker, settings.no_cache)
    return generate_bibench_questions(
        database,
        settings.out,
        model=generator,
        checker=check,
        categories=tuple(chosen.categories or CATEGORIES),
        complexities=tuple(chosen.complexities or COMPLEXITIES),
        per_cell=chosen.per_cell,
        sample_rows=chosen.sample_rows,
        max_calls=settings.max_calls,
        name=settings.name,
        force=settings.force,
        say=say,
    )


def _method_options(settings: QuestionsSettings) -> Any:
    """The method's options: the options file's, then the settings' (values or `NAME=VALUE` texts), validated."""
    model = METHODS[settings.method]
    values = read_options_file(settings.options_file) if settings.options_file is not None else {}
    given = settings.options
    values.update(parse_option_pairs(model, given, "-O") if isinstance(given, list) else dict(given))
    return validate_options(model, values, f"method '{settings.method}'", "-O")


def _models(model: str, checker: str | None, no_cache: bool) -> tuple[Any, Any]:
    """The generating model and the checking one (the same model unless `checker` names another)."""
    from biarena.llm import get_model

    made = get_model(model, use_cache=not no_cache, concurrency=1)
    if checker is None or checker == model:
        return made, made
    return made, get_model(checker, use_cache=not no_cache, concurrency=1)
