"""`insight_match`: InsightBench's ground-truth insights matched with an answer's insights by the judge model, as
G-Eval scores: a rating read from the probabilities of its token.

For each ground-truth insight one call: the answer's insights (its JSON list, bullets or sentences) numbered, the
ground-truth insight, and the rubric's scale; the model replies with a rating of one digit first (1 nothing about
it, 5 the same finding with its figures), then the number of the matching insight. Where the endpoint gives
log-probabilities, the rating is G-Eval's: the mean of the scale's digits weighted by their probabilities in the
rating's place (the first token of the reply that is one of them), renormalised over those digits; elsewhere the
rating written. The score is the rating mapped onto 0-1 ((rating - 1) / 4), averaged over the ground-truth insights
(an empty ground truth, or an answer with no insight, scores 0 without a call, as in the published ROUGE score).
"""

import math
import re
from typing import Any

from pydantic import Field

from biarena.judges.base import Judgement, JudgeReplyError, JudgeScorer, ScorerContext, TraceEntry
from biarena.judges.insight_list import answer_insights, reference_insights
from biarena.judges.judge_prompts import failed, prompt_texts, render, rubric_data
from biarena.llm.types import Completion, Message, ModelError
from biarena.options import Options
from biarena.records import Answer, Question
from biarena.scoring.score_info import ScoreInfo

LOW, HIGH = 1, 5
"""The rating scale: one digit, so a rating is one token in every tokenizer and its probabilities sit in one place."""
MAX_INSIGHTS = 20
"""Most of an answer's insights shown to the judge (the first ones)."""
MAX_CHARS = 600
"""Longest insight shown to the judge (longer ones are cut), to keep the prompt short."""
_REPLY = re.compile(rf"^\D*?(?<!\d)([{LOW}-{HIGH}])(?!\d)(?:\D{{1,40}}?(\d{{1,3}}))?", re.DOTALL)
_AGAIN = f"Reply with the rating first: one digit from {LOW} to {HIGH}, then the finding's number."


class InsightMatchOptions(Options):
    """How the judge's reply is asked for and read."""

    max_tokens: int = Field(6, ge=1)
    """Tokens each reply may take (the rating, then the matching finding's number)."""
    logprobs: int = Field(5, ge=0, le=20)
    """Likeliest tokens read in the rating's place, to weight the rating by their probabilities (0: the rating as
    written)."""


def read_reply(text: str) -> tuple[int, int] | None:
    """The rating and the matching finding's number (0 when not given) a reply starts with; None without a rating."""
    found = _REPLY.match(text.strip())
    if found is None:
        return None
    return int(found[1]), int(found[2]) if found[2] else 0


def weighted_rating(completion: Completion) -> tuple[float | None, dict[str, float]]:
    """G-Eval's rating: the scale's digits weighted by their probabilities in the first place of the reply that holds
    one, renormalised over them; (None, {}) when the reply carries no log-probabilities there."""
    digits = {str(d) for d in range(LOW, HIGH + 1)}
    place = next((token for token in completion.logprobs if token.token.strip() in digits), None)
    if place is None:
        return None, {}
    probabilities: dict[str, float] = {}
    for text, logprob in place.top or ((place.token, place.logprob or 0.0),):
        if text.strip() in digits:
            probabilities[text.strip()] = probabilities.get(text.strip(), 0.0) + math.exp(logprob)
    total = sum(probabilities.values())
    if total <= 0:
        return None, {}
    shares = {digit: p / total for digit, p in sorted(probabilities.items())}
    return sum(int(digit) * share for digit, share in shares.items()), shares


class InsightMatchJudge(JudgeScorer):
    """Each ground-truth insight matched with the answer's best insight and rated 1-5 by the judge model, the rating
    weighted by its token's probabilities (G-Eval) where the endpoint gives them."""

    name = "insight_match"
    version = "1"
    infos = (
        ScoreInfo(
            "insight_match",
            "insight match",
            "mean over the ground-truth insights of the judge's 1-5 rating of the answer's best match (weighted by "
            "its token's probabilities where the model gives them), mapped onto 0-1",
            needs=frozenset({"reference", "model"}),
            headline=True,
            kind="judge",
        ),
    )
    needs_model = True
    default_rubric = "insight_match.yaml"
    Options = InsightMatchOptions
    options: InsightMatchOptions

    def applies(self, question: Question) -> bool:
        """InsightBench's questions (their evidence carries the ground-truth insights)."""
        return bool(reference_insights(question))

    def _rate(self, context: ScorerContext, trace: list[TraceEntry], role: str, messages: list[Message]) -> dict:
        """One rating: the reply read (asked once more when it does not start with a rating), recorded in `trace`."""
        if context.model is None:
            raise JudgeReplyError("this judge needs a model (--judge-model)")
        asked = list(messages)
        rejected: list[str] = []
        completions: list[Completion] = []
        for _ in range(2):
            try:
                completion = context.model.chat(
                    asked,
                    temperature=context.temperature,
                    max_tokens=self.options.max_tokens,
                    seed=context.seed,
                    logprobs=self.options.logprobs or None,
                )
            except ModelError as error:
                trace.append(TraceEntry(role=role, messages=asked, rejected=rejected, error=str(error)))
                raise JudgeReplyError(f"{role}: {error}") from None
            completions.append(completion)
            read = read_reply(completion.text)
            if read is not None:
                break
            rejected.append(completion.text)
            asked = [*messages, {"role": "assistant", "content": completion.text}, {"role": "user", "content": _AGAIN}]
        prompt = sum(c.prompt_tokens for c in completions)
        written = sum(c.completion_tokens for c in completions)
        if read is None:
            trace.append(
                TraceEntry(
                    role=role,
                    messages=asked,
                    reply=completion.text,
                    rejected=rejected[:-1],
                    error="no rating",
                    prompt_tokens=prompt,
                    completion_tokens=written,
                )
            )
            raise JudgeReplyError(f"{role}: the reply gives no rating from {LOW} to {HIGH}: {completion.text[:80]!r}")
        rating, match = read
        weighted, shares = weighted_rating(completion)
        parsed = {"rating": rating, "match": match, "weighted": weighted, "probabilities": shares}
        trace.append(
            TraceEntry(
                role=role,
                messages=asked,
                reply=completion.text,
                parsed=parsed,
                rejected=rejected,
                prompt_tokens=prompt,
                completion_tokens=written,
                cached=completion.cached,
            )
        )
        return parsed

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """One call per ground-truth insight; the mean rating mapped onto 0-1."""
        rubric = rubric_data(context, self.default_rubric or "", self.name)
        prompt = prompt_texts(rubric, ("match",))["match"]
        system = str(rubric.get("system") or "").strip()
        predictions = [_cut(text) for text in answer_insights(answer.text)[:MAX_INSIGHTS]]
        references = reference_insights(question)
        trace: list[TraceEntry] = []
        scores: list[float] = []
        weighted = 0
        metrics: dict[str, Any] = {}
        for index, reference in enumerate(references, start=1):
            if not reference.strip() or not predictions:
                scores.append(0.0)
                why = "empty ground truth" if not reference.strip() else "the answer states no insight"
                metrics[f"insight {index}"] = {"score": 0.0, "reason": why}
                continue
            text = render(prompt, "match", question=question.text, predictions=predictions, reference=reference)
            messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": text}]
            try:
                reply = self._rate(context, trace, f"match {index}", messages)
            except JudgeReplyError as error:
                return failed(str(error), self.produces, trace, {"sub_metrics": metrics})
            rating = reply["weighted"] if reply["weighted"] is not None else float(reply["rating"])
            weighted += reply["weighted"] is not None
            score = (rating - LOW) / (HIGH - LOW)
            scores.append(score)
            how = f"weighted {rating:.2f}" if reply["weighted"] is not None else "as written"
            metrics[f"insight {index}"] = {
                "score": score,
                "rating": reply["rating"],
                "weighted": reply["weighted"],
                "match": reply["match"],
                "reason": f"rated {reply['rating']} ({how}); best match: finding {reply['match'] or 'none'}",
            }
        value = sum(scores) / len(scores) if scores else None
        return Judgement(
            scores={"insight_match": value},
            sub_scores={"answer_insights": len(predictions), "weighted": weighted, "sub_metrics": metrics},
            rationale=f"{len(references)} ground-truth insight(s) rated against {len(predictions)} of the answer's"
            + (f", {weighted} weighted by log-probabilities" if weighted else ""),
            trace=trace,
        )


def _cut(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1].rstrip() + "…"
