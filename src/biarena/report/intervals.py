"""Means with bootstrap intervals per group of questions, counted as the summary tables count them."""

from collections.abc import Callable, Collection
from dataclasses import dataclass

from biarena.metrics.summary import counted_scores
from biarena.records import Question
from biarena.report.run_data import RunData
from biarena.stats.bootstrap import Interval, mean_interval

RESAMPLES = 2000
"""Bootstrap resamples per interval in reports: enough for two-digit interval ends."""


@dataclass(frozen=True)
class GroupIntervals:
    """One group's mean of each score with its 95% bootstrap interval (None: nothing to average)."""

    group: str
    questions: int
    scores: dict[str, Interval | None]


def counted_table(
    run: RunData, questions: list[Question], unusable: Collection[tuple[str, str]] = ()
) -> dict[str, dict[str, float | None]]:
    """question id -> score name -> the value means count (an unanswered question counts 0)."""
    return counted_scores(questions, run.answers, run.scores, unusable=unusable)


def group_intervals(
    questions: list[Question],
    table: dict[str, dict[str, float | None]],
    names: list[str],
    key: Callable[[Question], str | None],
) -> list[GroupIntervals]:
    """Per group (as `key` names it), each score's mean over the group's questions with its bootstrap interval."""
    groups: dict[str, list[str]] = {}
    for question in questions:
        group = key(question)
        if group is not None:
            groups.setdefault(group, []).append(question.id)
    rows = []
    for group, ids in sorted(groups.items()):
        scores: dict[str, Interval | None] = {}
        for name in names:
            values = [v for qid in ids if (v := table.get(qid, {}).get(name)) is not None]
            scores[name] = mean_interval(values, resamples=RESAMPLES) if values else None
        rows.append(GroupIntervals(group, len(ids), scores))
    return rows
