"""summarize: mean scores grouped by label or language, with counts, for `biarena show`."""

from dataclasses import dataclass

from biarena.records import Question, Score
from biarena.runner.store import scores_by_question


@dataclass(frozen=True)
class SummaryRow:
    """Mean of each score over one group of questions."""

    group: str
    count: int
    means: dict[str, float | None]
    counts: dict[str, int]
    """Questions with a value for each score (a None value, e.g. failing gold, is left out)."""


def _row(group: str, ids: list[str], table: dict[str, dict[str, float | None]], names: list[str]) -> SummaryRow:
    means: dict[str, float | None] = {}
    counts: dict[str, int] = {}
    for name in names:
        values = [v for qid in ids if (v := table.get(qid, {}).get(name)) is not None]
        counts[name] = len(values)
        means[name] = sum(values) / len(values) if values else None
    return SummaryRow(group, len(ids), means, counts)


def summarize(
    questions: list[Question],
    scores: list[Score],
    names: list[str],
    by: str = "label",
    prefix: str | None = None,
) -> list[SummaryRow]:
    """Group questions by label (optionally only labels under `prefix`) or by language, then average."""
    table = scores_by_question(scores)
    groups: dict[str, list[str]] = {}
    for question in questions:
        if by == "language":
            keys = [question.language]
        else:
            keys = [lab for lab in question.labels if prefix is None or lab.startswith(prefix + ":")]
            keys = keys or ["(unlabelled)"]
        for key in keys:
            groups.setdefault(key, []).append(question.id)
    return [_row(g, ids, table, names) for g, ids in sorted(groups.items())]


def overall(questions: list[Question], scores: list[Score], names: list[str]) -> SummaryRow:
    """Averages over every question."""
    return _row("all", [q.id for q in questions], scores_by_question(scores), names)
