"""Judges: scorers that read an answer (most with a model) and conclude with named scores and a trace.

A judge subclasses `JudgeScorer` (a Scorer) and implements `judge(question, answer, context) -> Judgement`: the
scorer's `score` turns the judgement into Score records stamped with rubric and model.
"""

from dataclasses import dataclass, field
from typing import Any

from biarena.errors import NotFoundError
from biarena.records import Answer, Question, Score, TraceEntry
from biarena.scoring.configured import Configured
from biarena.scoring.context import JudgeReplyError, ScorerContext
from biarena.scoring.rubric import LoadedRubric
from biarena.scoring.score_info import ScoreInfo
from biarena.scoring.scorer import ScoreResult, trace_usage

__all__ = ["JudgeReplyError", "JudgeScorer", "Judgement", "ScorerContext", "TraceEntry", "to_scores"]


@dataclass
class Judgement:
    """What a judge concluded about one answer."""

    scores: dict[str, float | None]
    """Named scores (each one the judge declares); None where the judgement could not be made."""
    sub_scores: dict[str, Any] = field(default_factory=dict)
    """Parts of the scores: dimensions, sub-metrics with reasons, votes, counts."""
    rationale: str | None = None
    """Why, in a sentence or two."""
    trace: list[TraceEntry] = field(default_factory=list)
    """Every model call made, in order."""
    failed: str | None = None
    """Why the judgement failed (a reply that stayed invalid, a model error); its scores are then None."""


class JudgeScorer(Configured):
    """What makes a judge a scorer: its judgement, made safely, as Score records stamped with rubric and model.

    A judge leaves answers the system failed to give (status `error`) unjudged.
    """

    name: str
    version: str
    infos: tuple[ScoreInfo, ...]
    needs_model: bool = True
    default_rubric: str | None = None
    """Package resource name of its default YAML rubric (under biarena/judges/rubrics/), if it has one."""
    error_answers = False

    def builtin_rubric(self) -> LoadedRubric:
        """Its default rubric as packaged (`setup_scorers` asks a scorer with a `default_rubric` for it)."""
        from biarena.judges.rubric import load_builtin_rubric

        if not self.default_rubric:
            raise NotFoundError(f"judge '{self.name}' has no built-in rubric")
        return load_builtin_rubric(self.default_rubric)

    @property
    def produces(self) -> tuple[str, ...]:
        """The names of the scores it gives, in its order."""
        return tuple(info.name for info in self.infos)

    def applies(self, question: Question) -> bool:
        """Every question, unless the judge says otherwise."""
        return True

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """Judge one answer (each judge implements it)."""
        raise NotImplementedError

    def score(self, question: Question, answer: Answer, context: ScorerContext) -> ScoreResult:
        """The judgement as a ScoreResult; a judge's own bug becomes a failed judgement, never a crash."""
        try:
            judgement = self.judge(question, answer, context)
        except Exception as error:
            reason = f"the judge failed ({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})"
            judgement = Judgement(scores=dict.fromkeys(self.produces), failed=reason)
        return ScoreResult(to_scores(self, context, question, judgement), judgement.trace, judgement.failed)


def to_scores(judge: JudgeScorer, context: ScorerContext, question: Question, judgement: Judgement) -> list[Score]:
    """The judgement as Score records: one per named score, stamped with judge, version, rubric hash and model.

    The headline score (named like the judge, else the first) carries every part of the judgement; the others carry
    the provenance and, where the parts name a dimension, that dimension's sub-metrics.
    """
    usage = trace_usage(judgement.trace)
    model = context.model.spec if context.model is not None and judge.needs_model else None
    stamp = {
        "rubric_hash": context.rubric_hash,
        "judge_model": model,
        "judge_temperature": context.temperature if judge.needs_model else None,
        "failed": judgement.failed,
    }
    names = list(judgement.scores) or list(judge.produces)
    headline = judge.name if judge.name in names else names[0]
    metrics = judgement.sub_scores.get("sub_metrics")
    records = []
    for name in names:
        value = None if judgement.failed else judgement.scores.get(name)
        why = judgement.failed or judgement.rationale
        if name == headline:
            parts = {**judgement.sub_scores, **stamp}
        else:
            parts = dict(stamp)
            dimension = name.removeprefix(judge.name + ".")
            if isinstance(metrics, dict):
                mine = {k: v for k, v in metrics.items() if isinstance(v, dict) and v.get("dimension") == dimension}
                if mine:
                    parts["sub_metrics"] = mine
                    why = "; ".join(
                        f"{k} {v.get('score')}: {v.get('reason') or ''}".rstrip(": ") for k, v in mine.items()
                    )
        records.append(
            Score(
                question_id=question.id,
                name=name,
                scorer=judge.name,
                scorer_version=judge.version,
                value=None if value is None else float(value),
                sub_scores=parts,
                rationale=judgement.failed or why,
                usage=usage if name == headline else None,
            )
        )
    return records
