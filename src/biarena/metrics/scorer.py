"""MetricScorer: what makes a deterministic metric a scorer: `__call__(question, answer, scoring) -> [Score]`,
made safe against whatever the answer holds."""

from biarena.metrics.context import ScoringContext
from biarena.records import Answer, Question, Score
from biarena.scoring.configured import Configured
from biarena.scoring.context import ScorerContext
from biarena.scoring.score_info import ScoreInfo
from biarena.scoring.scorer import ScoreResult, make_score

__all__ = ["MetricScorer", "make_score"]


class MetricScorer(Configured):
    """A metric scores every answer (those the system failed to give too) without a model."""

    name: str
    version: str
    infos: tuple[ScoreInfo, ...]
    needs_model = False
    error_answers = True

    @property
    def produces(self) -> tuple[str, ...]:
        """The names of the scores it gives, in its order."""
        return tuple(info.name for info in self.infos)

    def applies(self, question: Question) -> bool:
        """Every question: a score without what it needs (no gold) is recorded as None with the reason."""
        return True

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Score one answer (each metric implements it)."""
        raise NotImplementedError

    def score(self, question: Question, answer: Answer, context: ScorerContext) -> ScoreResult:
        """The metric's scores; when it fails on the answer, each score is 0 with the error as the reason.

        An answer is untrusted input: whatever it makes a metric do (recurse too deep, run out of memory, hit a
        bug), the scoring of the other answers goes on.
        """
        try:
            return ScoreResult(self(question, answer, context.scoring))
        except Exception as error:
            kind = (
                "the answer is too large or too deep to score"
                if isinstance(error, RecursionError | MemoryError)
                else "scoring failed"
            )
            detail = str(error).splitlines()[0] if str(error) else ""
            why = f"{kind} ({type(error).__name__}{': ' + detail if detail else ''})"
            scores = [make_score(self, question, name, 0.0, rationale=why, error=True) for name in self.produces]
            return ScoreResult(scores, failed=why)
