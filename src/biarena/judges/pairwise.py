"""`pairwise`: a judge model compares two answers to the same question (arena-hard style), twice with the sides
swapped; a verdict that follows the position rather than the answer is a tie, and counted as position bias.

Verdicts are written as the arena's votes are (`biarena.records.vote.Vote`, annotator `judge:pairwise:MODEL`), so the
same Bradley-Terry leaderboard fits them.
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from biarena.judges.base import JudgeReplyError, ScorerContext, TraceEntry
from biarena.judges.corgi import answer_for_judge
from biarena.judges.judge_prompts import steps_text
from biarena.llm import ModelError
from biarena.records import Answer, Question
from biarena.records.vote import Vote

VERSION = "1"
SYSTEM = (
    "You are an impartial senior data analyst comparing two answers to the same business question. Judge which "
    "answer is better: correct and faithful to its own query results, specific, and useful to act on. Length and "
    "formatting are not merits. Do not let the order of the answers influence you."
)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reason": {"type": "string", "maxLength": 240},
        "verdict": {"type": "string", "enum": ["A", "B", "tie"]},
    },
    "required": ["reason", "verdict"],
    "additionalProperties": False,
}
REPLY_TOKENS = 200


@dataclass
class PairVerdict:
    """Two judgements of one pair (as given, then swapped) and what they add up to."""

    first: str | None
    """The verdict with `a` shown first: `a`, `b` or `tie` (None when the model gave none)."""
    second: str | None
    """The verdict with `b` shown first, read back onto `a` and `b`."""
    winner: str | None
    """`a`, `b` or `tie`; None when a judgement failed."""
    flipped: bool
    """The two orders picked opposite sides: the verdict followed the position, so it counts as a tie."""
    reasons: list[str] = field(default_factory=list)
    trace: list[TraceEntry] = field(default_factory=list)
    failed: str | None = None


def combine(first: str | None, second: str | None) -> tuple[str | None, bool]:
    """The pair's winner from its two orders, and whether they picked opposite sides (position bias)."""
    if first is None or second is None:
        return None, False
    if first == second:
        return first, False
    flipped = {first, second} == {"a", "b"}
    return "tie", flipped


def _prompt(question: Question, first: Answer, second: Answer) -> str:
    def shown(answer: Answer) -> str:
        text = answer_for_judge(answer)
        if answer.steps:
            text += f"\n\nIts queries and their results:\n{steps_text(answer.steps)}"
        return text

    return (
        f"Question: {question.text.strip()}\n\n[Answer A]\n{shown(first)}\n[End of answer A]\n\n"
        f"[Answer B]\n{shown(second)}\n[End of answer B]\n\n"
        'Which answer is better? Reply with a one-sentence reason and a verdict: "A", "B" or "tie".'
    )


class PairwiseJudge:
    """Compares two answers to one question with a model, in both orders."""

    name = "pairwise"
    version = VERSION
    needs_model = True
    default_rubric = None

    def applies(self, question: Question) -> bool:
        """Any question two systems answered."""
        return True

    def _ask(self, question: Question, first: Answer, second: Answer, context: ScorerContext, trace: list) -> Any:
        prompt = _prompt(question, first, second)
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]
        return context.ask(trace, "pairwise", messages, SCHEMA, max_tokens=REPLY_TOKENS)

    def compare(self, question: Question, a: Answer, b: Answer, context: ScorerContext) -> PairVerdict:
        """`a` against `b`, asked with `a` first and then with `b` first."""
        trace: list[TraceEntry] = []
        verdicts: list[str | None] = []
        reasons: list[str] = []
        failed = None
        for first, second, sides in ((a, b, {"A": "a", "B": "b"}), (b, a, {"A": "b", "B": "a"})):
            try:
                reply = self._ask(question, first, second, context, trace)
            except (JudgeReplyError, ModelError) as error:
                verdicts.append(None)
                failed = failed or str(error)
                continue
            verdict = reply.get("verdict") if isinstance(reply, dict) else None
            verdicts.append(sides.get(verdict, "tie" if verdict == "tie" else None))
            reasons.append(str(reply.get("reason", "")) if isinstance(reply, dict) else "")
        winner, flipped = combine(verdicts[0], verdicts[1])
        if winner is None and failed is None:
            failed = "the model gave no verdict"
        return PairVerdict(verdicts[0], verdicts[1], winner, flipped, reasons, trace, failed)


def as_vote(
    number: int,
    verdict: PairVerdict,
    *,
    model: str,
    benchmark: str,
    question_id: str,
    systems: tuple[str, str],
    runs: tuple[str | None, str | None],
) -> Vote:
    """A verdict as the arena stores a vote: `a` on the left, `b` on the right."""
    choice = {"a": "left", "b": "right"}.get(verdict.winner or "", "tie")
    why = " | ".join(r for r in verdict.reasons if r)
    if verdict.flipped:
        why = "position bias: the verdict followed the order (counted as a tie). " + why
    return Vote(
        id=number,
        annotator=f"judge:pairwise:{model}",
        benchmark=benchmark,
        question_id=question_id,
        left_system=systems[0],
        right_system=systems[1],
        choice=choice,
        rationale=why,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        left_run=runs[0],
        right_run=runs[1],
    )
