"""The one scorer protocol: everything that scores an answer (metrics, judges, interaction) declares its scores and
scores one answer in a context into a ScoreResult."""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from biarena.records import Answer, Question, Score, TraceEntry, Usage
from biarena.scoring.score_info import ScoreInfo

if TYPE_CHECKING:
    from biarena.scoring.context import ScorerContext


@dataclass
class ScoreResult:
    """What a scorer concluded about one answer."""

    scores: list[Score]
    """One Score per named score: its value (None where it could not be made), sub-scores and rationale."""
    trace: list[TraceEntry] = field(default_factory=list)
    """Every model call made, in order."""
    failed: str | None = None
    """Why the scoring failed (a reply that stayed invalid, a model error, a scorer that broke)."""


class Scorer(Protocol):
    """Anything that scores an answer: a deterministic metric, an LLM judge, a measure of the interaction."""

    name: str
    """Registry name (`execution_accuracy`, `corgi`, ...)."""
    version: str
    """Bumped when the method changes (prompts, rubric handling, formulas): a re-score then scores again."""
    infos: tuple[ScoreInfo, ...]
    """Every score it gives, declared once."""
    needs_model: bool
    """True when it calls a model."""
    error_answers: bool
    """True when it also scores answers the system failed to give (status `error`); judges leave them."""

    def applies(self, question: Question) -> bool:
        """True when it scores answers to the question; the run stores `not applicable` otherwise."""
        ...

    def score(self, question: Question, answer: Answer, context: "ScorerContext") -> ScoreResult:
        """Score one answer. A failure becomes a ScoreResult with `failed` set rather than an exception."""
        ...


def score_names(scorer: Scorer) -> tuple[str, ...]:
    """The names of the scores a scorer gives, in its order."""
    return tuple(info.name for info in scorer.infos)


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


def trace_usage(trace: list[TraceEntry]) -> Usage:
    """Model calls and tokens of a trace (a reply asked again counts each call; cached replies are free)."""
    calls = hits = prompt = completion = 0
    for entry in trace:
        if entry.cached:
            hits += 1
        else:
            calls += 1 + len(entry.rejected)
            prompt += entry.prompt_tokens
            completion += entry.completion_tokens
    return Usage(calls=calls, cache_hits=hits, prompt_tokens=prompt, completion_tokens=completion)
