"""The template question factory: BIS-category questions with gold SQL for any annotated database."""

import math
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import TypedDict, Unpack

from sqlglot import exp

from biarena.db import Database, SqlProblem
from biarena.db.dialect import dialect_of
from biarena.errors import UsageError
from biarena.generate import sql_builder as sb
from biarena.generate.column_types import ColumnTypes
from biarena.generate.roles import Roles
from biarena.generate.templates import CATEGORIES, LANGUAGES, TEMPLATES, Context, TemplateDraft
from biarena.records import Question


def check_dialect(db: Database) -> None:
    """Raise UsageError when question SQL cannot be written for the database's engine."""
    if db.dialect not in sb.question_dialects():
        labels = [dialect_of(name).label for name in sb.question_dialects()]
        listed = f"{', '.join(labels[:-1])} and {labels[-1]}" if len(labels) > 1 else labels[0]
        raise UsageError(f"questions are generated for {listed} databases, not {db.dialect}")


def _dates(db: Database, roles: Roles, types: ColumnTypes) -> list[str]:
    dates: set[str] = set()
    for fact in roles.facts:
        if fact.time:
            holder = fact.time.table or fact.table
            day = sb.day(types.ref(holder, fact.time.column), db.dialect)
            query = exp.select(day).distinct().from_(sb.table(holder))
            rows = db.execute(sb.render(query, db.dialect), max_rows=100_000).rows
            dates.update(str(r[0])[:10] for r in rows if r[0])
    return sorted(dates)


def _as_moment(value: object) -> datetime:
    if isinstance(value, datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, date):
        return datetime.combine(value, datetime.min.time())
    return datetime.fromisoformat(str(value))


def latest_time(db: Database, roles: Roles) -> datetime | None:
    """The latest timestamp in the facts' time columns: the default clock anchor."""
    latest = None
    types = ColumnTypes(db)
    for fact in roles.facts:
        if fact.time:
            holder = fact.time.table or fact.table
            moment = sb.moment(types.ref(holder, fact.time.column), db.dialect)
            query = exp.select(exp.Max(this=moment)).from_(sb.table(holder))
            value = db.execute(sb.render(query, db.dialect)).rows[0][0]
            if value:
                found = _as_moment(value)
                latest = found if latest is None or found > latest else latest
    return latest


def covered_languages(roles: Roles) -> tuple[str, ...]:
    """The languages every metric and dimension name of the roles file is given in (English always)."""
    names = [m.names for f in roles.facts for m in f.metrics] + [d.names for f in roles.facts for d in f.dimensions]
    return tuple(lang for lang in LANGUAGES if all(n.get(lang, "").strip() for n in names))


def _tied(a: object, b: object) -> bool:
    """Equal, numbers within rounding: a sum SQLite adds in binary floating point ties where DuckDB's decimal does."""
    if isinstance(a, int | float | Decimal) and isinstance(b, int | float | Decimal):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
    return a == b


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
        if len(probe) > draft.limit and _tied(probe[draft.limit - 1][-1], probe[draft.limit][-1]):
            return False
    return True


def _fact_of(draft: TemplateDraft) -> str:
    """The table a draft asks about (its first: the fact, or a mapping table)."""
    return draft.tables[0] if draft.tables else ""


def by_turns(drafts: list[TemplateDraft], asked: Counter[str]) -> list[TemplateDraft]:
    """The drafts with their facts taking turns, the fact asked about least so far (`asked`) first, each fact's
    drafts in their own order: a fact with few metrics gets its share beside one with many."""
    queues: dict[str, list[TemplateDraft]] = {}
    for draft in drafts:
        queues.setdefault(_fact_of(draft), []).append(draft)
    order = sorted(queues, key=lambda fact: asked[fact])
    turns: list[TemplateDraft] = []
    while any(queues.values()):
        for fact in order:
            if queues[fact]:
                turns.append(queues[fact].pop(0))
    return turns


PER_FACT = 6
"""Questions per fact the default number per category aims at (over all categories)."""


def default_per_category(roles: Roles, categories: tuple[str, ...] = CATEGORIES) -> int:
    """8 per category, or more where the roles have so many facts that 8 would leave some with few questions."""
    return max(8, -(-PER_FACT * len(roles.facts) // len(categories)))


@dataclass
class GeneratedQuestions:
    """What the factory made, and how many questions it left out per language for want of a translated name."""

    questions: list[Question]
    untranslated: Counter[str] = field(default_factory=Counter)


class FactoryOptions(TypedDict, total=False):
    """The keyword options of generate_question_set."""

    languages: tuple[str, ...]
    per_category: int | None
    seed: int
    now: datetime | None
    categories: tuple[str, ...]


def generate_question_set(
    db: Database,
    roles: Roles,
    *,
    languages: tuple[str, ...] = ("en", "zh"),
    per_category: int | None = None,
    seed: int = 0,
    now: datetime | None = None,
    categories: tuple[str, ...] = CATEGORIES,
) -> GeneratedQuestions:
    """Instantiate each category's templates, keep `per_category` sound drafts, one question per language.

    A language is asked only where every name the question needs is translated in the roles file; the questions
    left out are counted per language.
    """
    check_dialect(db)
    rng = random.Random(seed)
    types = ColumnTypes(db)
    context = Context(roles=roles, db=db, rng=rng, dates=_dates(db, roles, types), anchor=now, _types=types)
    made = GeneratedQuestions([])
    cap = per_category if per_category is not None else default_per_category(roles, categories)
    asked: Counter[str] = Counter()
    for category in categories:
        kept = 0
        for draft in by_turns(TEMPLATES[category](context), asked):
            if kept >= cap:
                break
            wanted = [lang for lang in languages if lang in draft.texts]
            if not wanted or not draft_is_sound(db, draft, now):
                continue
            made.untranslated.update(lang for lang in draft.untranslated if lang in languages)
            group = f"{roles.database}/{category}/{kept:03d}"
            for lang in wanted:
                made.questions.append(
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
            asked[_fact_of(draft)] += 1
    return made


def generate_questions(db: Database, roles: Roles, **options: Unpack[FactoryOptions]) -> list[Question]:
    """The questions of generate_question_set, without the counts."""
    return generate_question_set(db, roles, **options).questions
