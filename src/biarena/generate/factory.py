"""The template question factory: BIS-category questions with gold SQL for any annotated database."""

import random
from datetime import datetime

from biarena.db import Database, SqlProblem
from biarena.generate.roles import Roles
from biarena.generate.templates import CATEGORIES, TEMPLATES, Context, TemplateDraft
from biarena.records import Question


def _dates(db: Database, roles: Roles) -> list[str]:
    dates: set[str] = set()
    for fact in roles.facts:
        if fact.time:
            column = fact.time.column
            rows = db.execute(f'SELECT DISTINCT substr("{column}", 1, 10) FROM "{fact.table}"', max_rows=100_000).rows
            dates.update(str(r[0]) for r in rows if r[0])
    return sorted(dates)


def latest_time(db: Database, roles: Roles) -> datetime | None:
    """The latest timestamp in the facts' time columns: the default clock anchor."""
    latest = None
    for fact in roles.facts:
        if fact.time:
            value = db.execute(f'SELECT max("{fact.time.column}") FROM "{fact.table}"').rows[0][0]
            if value:
                moment = datetime.fromisoformat(str(value))
                latest = moment if latest is None or moment > latest else latest
    return latest


def draft_is_sound(db: Database, draft: TemplateDraft, now: datetime | None) -> bool:
    """True when the gold returns rows with values and, for top-k questions, no tie at the cut."""
    try:
        result = db.execute(draft.sql, now=now)
    except SqlProblem:
        return False
    if not result.rows or all(v is None for row in result.rows for v in row):
        return False
    if draft.probe_sql and draft.limit:
        probe = db.execute(draft.probe_sql, now=now).rows
        if len(probe) <= draft.limit - 1 or len(result.rows) != draft.limit:
            return False
        if len(probe) > draft.limit and probe[draft.limit - 1][-1] == probe[draft.limit][-1]:
            return False
    return True


def generate_questions(
    db: Database,
    roles: Roles,
    *,
    languages: tuple[str, ...] = ("en", "zh"),
    per_category: int = 8,
    seed: int = 0,
    now: datetime | None = None,
    categories: tuple[str, ...] = CATEGORIES,
) -> list[Question]:
    """Instantiate each category's templates, keep `per_category` sound drafts, one question per language."""
    rng = random.Random(seed)
    context = Context(roles=roles, db=db, rng=rng, dates=_dates(db, roles))
    questions: list[Question] = []
    for category in categories:
        kept = 0
        for draft in TEMPLATES[category](context):
            if kept >= per_category:
                break
            wanted = [lang for lang in languages if lang in draft.texts]
            if not wanted or not draft_is_sound(db, draft, now):
                continue
            group = f"{roles.database}/{category}/{kept:03d}"
            for lang in wanted:
                questions.append(
                    Question(
                        id=f"{group}/{lang}",
                        text=draft.texts[lang],
                        language=lang,
                        database=roles.database,
                        labels=[f"bis:{category}", *draft.labels],
                        gold_sql=[draft.sql],
                        tables=list(draft.tables),
                        group=group,
                    )
                )
            kept += 1
    return questions
