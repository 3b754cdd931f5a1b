"""`insight_rouge`: InsightBench's own score, as its published code computes it, with no model.

- ROUGE-1 F of a predicted insight against a ground-truth one: `rouge-score`'s RougeScorer(["rouge1"]), no stemmer,
  its default tokenizer (lower-cased, every run of characters other than a-z and 0-9 a separator, so non-ASCII text
  is dropped). The published code calls `evaluate`'s `rouge` with one pair and its bootstrap aggregator, whose
  middle value for one pair is that pair's F.
- The flag-level score (`compute_rouge`): for each ground-truth insight the best ROUGE-1 F over the answer's
  insights (the first best when several tie), averaged over the ground-truth insights (an empty one scores 0).
- The summary score: ROUGE-1 F of the whole answer against the flag's summary.

An insight question is scored as a flag with one ground-truth insight; the answer's insights are its JSON list, its
bullets or its sentences (`biarena.judges.insight_list`).
"""

from dataclasses import dataclass
from functools import cache
from typing import Any

from biarena.errors import UsageError
from biarena.judges.base import Judgement, JudgeScorer, ScorerContext
from biarena.judges.insight_list import answer_insights, reference_insights, reference_summary
from biarena.options import NoOptions
from biarena.records import Answer, Question
from biarena.scoring.score_info import ScoreInfo


@cache
def _scorer() -> Any:
    try:
        from rouge_score import rouge_scorer
    except ImportError:
        raise UsageError("InsightBench's ROUGE score needs: pip install 'biarena[insightbench]'") from None
    return rouge_scorer.RougeScorer(["rouge1"], use_stemmer=False)


def rouge1(prediction: str, reference: str) -> float:
    """ROUGE-1 F of `prediction` against `reference`, as `evaluate`'s rouge gives it (rouge-score, no stemmer)."""
    return float(_scorer().score(reference, prediction)["rouge1"].fmeasure)


@dataclass(frozen=True)
class Match:
    """A ground-truth insight and the answer's insight that scored best against it."""

    reference: str
    prediction: str | None
    score: float


def flag_rouge(predictions: list[str], references: list[str]) -> tuple[float | None, list[Match]]:
    """The published `compute_rouge`: the mean over `references` of the best ROUGE-1 F over `predictions`; 0 when
    there are no predictions (the published code fails there), None when there are no references."""
    matches = []
    for reference in references:
        scores = [rouge1(p, reference) for p in predictions]
        best = max(range(len(scores)), key=lambda i: (scores[i], -i)) if scores else None
        matches.append(Match(reference, None if best is None else predictions[best], scores[best] if scores else 0.0))
    if not matches:
        return None, []
    return sum(m.score for m in matches) / len(matches), matches


class InsightRougeScorer(JudgeScorer):
    """InsightBench's ROUGE-1: each ground-truth insight against the answer's best-matching insight, averaged."""

    name = "insight_rouge"
    version = "1"
    infos = (
        ScoreInfo(
            "insight_rouge",
            "ROUGE-1",
            "InsightBench's score: mean over ground-truth insights of the best ROUGE-1 F over the answer's insights",
            needs=frozenset({"reference"}),
            headline=True,
            kind="judge",
        ),
        ScoreInfo(
            "insight_rouge.summary",
            "ROUGE-1 sum",
            "ROUGE-1 F of the whole answer against the flag's summary (a flag's open-ended question)",
            needs=frozenset({"reference"}),
            kind="judge",
        ),
    )
    needs_model = False
    default_rubric = None
    Options = NoOptions

    def applies(self, question: Question) -> bool:
        """InsightBench's questions (their evidence carries the ground-truth insights)."""
        return bool(reference_insights(question))

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """Match each ground-truth insight with the answer's best insight."""
        predictions = answer_insights(answer.text)
        value, matches = flag_rouge(predictions, reference_insights(question))
        scores: dict[str, float | None] = {"insight_rouge": value}
        summary = reference_summary(question)
        if summary is not None:
            scores["insight_rouge.summary"] = rouge1(answer.text or "", summary)
        metrics = {
            f"insight {i}": {"score": m.score, "reason": f"best match: {m.prediction!r}" if m.prediction else "none"}
            for i, m in enumerate(matches, start=1)
        }
        return Judgement(
            scores=scores,
            sub_scores={"answer_insights": len(predictions), "sub_metrics": metrics},
            rationale=f"{len(matches)} ground-truth insight(s) against {len(predictions)} of the answer's",
        )
