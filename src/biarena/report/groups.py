"""How reports group questions: by category (first label), by question type, by language."""

from collections.abc import Callable

from biarena.records import Question
from biarena.report.judge_tables import question_type_label


def category_of(question: Question) -> str:
    """The question's category: its first label (`bis:time_period`), or `(unlabelled)`."""
    return question.labels[0] if question.labels else "(unlabelled)"


def type_of(question: Question) -> str:
    """The question's type as `show` reads it: `corgi:typeN`, else its benchmark's type label, else its category."""
    return question_type_label(question)


def groupings(questions: list[Question]) -> list[tuple[str, str, Callable[[Question], str | None]]]:
    """The groupings a report tabulates: by category; by type when some question's type is not its category; and
    when they agree for CORGI's question types, by type instead of by category (the same table, named as CORGI does);
    then by language."""
    differ = any(type_of(q) != category_of(q) for q in questions)
    corgi = any(type_of(q).startswith("corgi:type") for q in questions)
    keep = {"category", "language"} | ({"type"} if differ or corgi else set())
    if corgi and not differ:
        keep.discard("category")
    return [grouping for grouping in GROUPINGS if grouping[0] in keep]


def language_of(question: Question) -> str:
    """The question's language code."""
    return question.language


GROUPINGS: list[tuple[str, str, Callable[[Question], str | None]]] = [
    ("category", "By category", category_of),
    ("type", "By question type", type_of),
    ("language", "By language", language_of),
]
"""(key, heading, question -> group) for each table with intervals; a question without a group is left out."""


def readable(group: str) -> str:
    """A group as a heading shows it: the label's value with spaces (`bis:time_period` -> `time period`)."""
    return group.split(":", 1)[-1].replace("_", " ")
