"""execute_templates: template questions over a database (`biarena generate templates DB -o BENCH`)."""

from pathlib import Path

from biarena.benchmarks import save_benchmark
from biarena.db import describe_schema, open_database
from biarena.errors import UsageError
from biarena.events import EventHandler, Message, ignore
from biarena.generate.database_location import PASSWORD_KEPT_OUT, DatabaseLocation
from biarena.generate.execute_roles import drafted_roles
from biarena.generate.factory import covered_languages, generate_question_set, latest_time
from biarena.generate.generate_settings import TemplatesSettings
from biarena.generate.roles import load_roles
from biarena.generate.roles_check import check_roles
from biarena.generate.templates import CATEGORIES
from biarena.records import Benchmark

LANGUAGES = ("en", "zh")
"""The languages template questions are written in."""


def execute_templates(settings: TemplatesSettings, on_event: EventHandler = ignore) -> Path:
    """Instantiate the BIS categories' templates over the database, keep the questions whose gold returns rows,
    write them as a benchmark at `settings.out` and return it; what it did is reported as messages.

    Without `roles` the roles are drafted from the schema. A roles file that does not fit the database is a
    FormatError, a language other than en or zh a UsageError."""
    database, out = settings.database, settings.out
    if settings.languages is not None and (
        not settings.languages or any(x not in LANGUAGES for x in settings.languages)
    ):
        raise UsageError(f"--languages takes en and/or zh, not '{','.join(settings.languages)}'")
    location = DatabaseLocation(database)
    location.check_exists()
    with open_database(database) as db:
        if settings.roles is None:
            roles = drafted_roles(db, location.name)
            roles_source: str | Path = "the roles drafted from the schema"
            on_event(
                Message(
                    f"no --roles: using roles drafted from the schema of {location.shown} "
                    "(biarena generate roles writes them to a file to edit)"
                )
            )
        else:
            roles, roles_source = load_roles(settings.roles), settings.roles
        check_roles(roles, db, roles_source)
        wanted = tuple(settings.languages) if settings.languages is not None else covered_languages(roles)
        anchor = settings.now or latest_time(db, roles)
        made = generate_question_set(
            db, roles, languages=wanted, per_category=settings.per_category, seed=settings.seed, now=anchor
        )
        schema = describe_schema(db, sample_rows=0)
        dialect = db.dialect
    questions = made.questions
    benchmark = Benchmark(
        name=settings.name or out.name,
        description=f"Template questions over {location.shown} ({len(CATEGORIES)} categories).",
        now=anchor,
        source_format="templates",
        databases={roles.database: location.ref(dialect, schema)},
        questions=questions,
    )
    save_benchmark(benchmark, out)
    if location.has_password:
        on_event(Message(PASSWORD_KEPT_OUT))
    found = sorted({q.labels[0] for q in questions})
    missing = [c for c in CATEGORIES if f"bis:{c}" not in found]
    per_language = ", ".join(f"{sum(q.language == lang for q in questions)} {lang}" for lang in wanted)
    on_event(Message(f"wrote {len(questions)} questions ({per_language}) in {len(found)} categories to {out}"))
    for lang, count in sorted(made.untranslated.items()):
        on_event(
            Message(f"left out {count} {lang} questions: a name they need has no '{lang}' translation in the roles")
        )
    if missing:
        on_event(Message(f"no sound question for: {', '.join(missing)} (check the roles file)"))
    return out
