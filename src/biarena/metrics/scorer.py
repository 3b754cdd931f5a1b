"""The one scorer signature: (question, answer, context) -> scores."""

from typing import Protocol

from biarena.metrics.context import ScoringContext
from biarena.records import Answer, Question, Score


class Scorer(Protocol):
    """Anything that scores an answer: a deterministic metric or an LLM judge."""

    name: str
    version: str
    produces: tuple[str, ...]

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Score one answer; return one Score per name in `produces`."""
        ...


def make_score(
    scorer: Scorer,
    question: Question,
    name: str,
    value: float | None,
    *,
    rationale: str | None = None,
    **sub_scores: object,
) -> Score:
    """Build a Score stamped with the scorer's name and version."""
    return Score(
        question_id=question.id,
        name=name,
        scorer=scorer.name,
        scorer_version=scorer.version,
        value=value,
        sub_scores=dict(sub_scores),
        rationale=rationale,
    )
