"""summarize: mean scores by label or language with coverage; a question without an answer counts 0 (as each
score's declaration says)."""

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from biarena.records import Answer, Question, Score
from biarena.records.outcome import outcome_of
from biarena.runner.store import scores_by_question
from biarena.scoring.infos import ScoreInfos

ANSWERED = ("ran", "sql_failed")
"""Outcome kinds that count as answered (coverage): the system answered, whether or not its SQL ran."""


@dataclass(frozen=True)
class SummaryRow:
    """Mean of each score over one group of questions, with how many were answered."""

    group: str
    count: int
    """Questions asked."""
    answered: int
    """Questions the system answered (its SQL ran or failed)."""
    means: dict[str, float | None]
    counts: dict[str, int]
    """Questions counted in each mean (a question whose gold cannot be compared, or not scored yet, is left out)."""
    outcomes: dict[str, int]
    """Questions per outcome kind: `ran`, `sql_failed`, `no_answer`, `unanswered`."""

    @property
    def coverage(self) -> float | None:
        """Answered / asked."""
        return self.answered / self.count if self.count else None


def unusable_gold(scores: list[Score]) -> set[tuple[str, str]]:
    """(question id, score name) pairs whose gold cannot be compared, as the scorers recorded it (None for a score
    that compares with the gold means the gold cannot be compared, not a miss; an answer that does not parse is
    the answer's matter, not the gold's)."""
    infos = ScoreInfos.of(scores)
    return {
        (s.question_id, s.name)
        for s in scores
        if s.value is None and infos.info(s.name).needs_gold and not s.sub_scores.get("unparsable")
    }


def _kinds(questions: list[Question], answers: list[Answer] | None, scores: list[Score]) -> dict[str, str]:
    """Each question's outcome kind; without the answers, a scored question counts as answered."""
    if answers is None:
        scored = {s.question_id for s in scores}
        return {q.id: "ran" if q.id in scored else "unanswered" for q in questions}
    by_id = {a.question_id: a for a in answers}
    return {q.id: outcome_of(by_id.get(q.id)).kind for q in questions}


def counted_scores(
    questions: list[Question],
    answers: list[Answer] | None,
    scores: list[Score],
    *,
    unusable: Collection[tuple[str, str]] = (),
) -> dict[str, dict[str, float | None]]:
    """question id -> score name -> the value the means count (None: left out).

    A question the system did not answer (no answer, or not run yet) counts 0 for every score the run has, except
    a score against a gold that cannot be compared (no gold SQL, or a gold that fails: recorded None here or in
    `unusable`, e.g. by another run of the same questions) and a score averaged over answered questions only. An
    answer not scored yet is left out. Pass the answers: without them a scored question counts as answered,
    whatever its outcome.
    """
    infos = ScoreInfos.of(scores)
    table = scores_by_question(scores)
    names = {s.name for s in scores}
    kinds = _kinds(questions, answers, scores)
    known = set(unusable)
    counted: dict[str, dict[str, float | None]] = {}
    for question in questions:
        stored = table.get(question.id, {})
        if kinds[question.id] in ANSWERED:
            counted[question.id] = dict(stored)
            continue
        values: dict[str, float | None] = {}
        for name in names:
            if stored.get(name) is not None:  # a score given to the missing answer itself (e.g. a judge's) stands
                values[name] = stored[name]
                continue
            info = infos.info(name)
            gold_missing = info.needs_gold and (
                not question.has_gold or (question.id, name) in known or (name in stored and stored[name] is None)
            )
            values[name] = None if gold_missing or info.average == "answered" else 0.0
        counted[question.id] = values
    return counted


def _row(
    group: str,
    ids: list[str],
    table: dict[str, dict[str, float | None]],
    kinds: dict[str, str],
    names: list[str],
) -> SummaryRow:
    means: dict[str, float | None] = {}
    counts: dict[str, int] = {}
    for name in names:
        values = [v for qid in ids if (v := table.get(qid, {}).get(name)) is not None]
        counts[name] = len(values)
        means[name] = sum(values) / len(values) if values else None
    outcomes = Counter(kinds[qid] for qid in ids)
    answered = sum(outcomes[k] for k in ANSWERED)
    return SummaryRow(group, len(ids), answered, means, counts, dict(outcomes))


def summarize(
    questions: list[Question],
    scores: list[Score],
    names: list[str],
    by: str = "label",
    prefix: str | None = None,
    *,
    answers: list[Answer] | None = None,
    unusable: Collection[tuple[str, str]] = (),
) -> list[SummaryRow]:
    """Group the asked questions by label (optionally only labels under `prefix`) or by language, then average."""
    table = counted_scores(questions, answers, scores, unusable=unusable)
    kinds = _kinds(questions, answers, scores)
    groups: dict[str, list[str]] = {}
    for question in questions:
        if by == "language":
            keys = [question.language]
        else:
            keys = [lab for lab in question.labels if prefix is None or lab.startswith(prefix + ":")]
            keys = keys or ["(unlabelled)"]
        for key in keys:
            groups.setdefault(key, []).append(question.id)
    return [_row(g, ids, table, kinds, names) for g, ids in sorted(groups.items())]


def overall(
    questions: list[Question],
    scores: list[Score],
    names: list[str],
    *,
    answers: list[Answer] | None = None,
    unusable: Collection[tuple[str, str]] = (),
) -> SummaryRow:
    """Averages over every asked question."""
    table = counted_scores(questions, answers, scores, unusable=unusable)
    return _row("all", [q.id for q in questions], table, _kinds(questions, answers, scores), names)
