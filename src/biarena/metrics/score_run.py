"""score_run: apply scorers to every answer of a run, one transaction per answer, skipping done work."""

from collections.abc import Callable
from dataclasses import dataclass

from biarena.metrics.context import ScoringContext
from biarena.metrics.scorer import Scorer, make_score
from biarena.records import Answer, Question, Score
from biarena.runner.store import RunStore


@dataclass(frozen=True)
class ScoreSummary:
    """What a call to score_run did."""

    answers: int
    scored_now: int
    skipped: int
    failed: int = 0
    """Scorer calls that raised on an answer; those scores are 0 with the error as the reason."""


def score_answer(
    scorer: Scorer, question: Question, answer: Answer, context: ScoringContext
) -> tuple[list[Score], bool]:
    """The scorer's scores for one answer, and whether it failed (then each score is 0 with the error as reason).

    An answer is untrusted input: whatever it makes a scorer do (recurse too deep, run out of memory, hit a
    bug), the scoring of the other answers goes on.
    """
    try:
        return scorer(question, answer, context), False
    except Exception as error:
        kind = "the answer is too large or too deep to score" if isinstance(error, RecursionError | MemoryError) else (
            "scoring failed"
        )
        detail = str(error).splitlines()[0] if str(error) else ""
        why = f"{kind} ({type(error).__name__}{': ' + detail if detail else ''})"
        return [make_score(scorer, question, name, 0.0, rationale=why, error=True) for name in scorer.produces], True


def score_run(
    store: RunStore,
    context: ScoringContext,
    scorers: list[Scorer],
    *,
    rescore: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
) -> ScoreSummary:
    """Score every answer with every scorer whose (name, version) it lacks (all of them with `rescore`)."""
    questions = {q.id: q for q in store.questions()}
    done = set() if rescore else store.scored()
    answers = store.answers()
    scored_now = skipped = failed = 0
    for index, answer in enumerate(answers, start=1):
        question = questions[answer.question_id]
        pending = [s for s in scorers if (answer.question_id, s.name, s.version) not in done]
        if not pending:
            skipped += 1
        else:
            batch: list[Score] = []
            for scorer in pending:
                scores, broke = score_answer(scorer, question, answer, context)
                batch.extend(scores)
                failed += broke
            store.put_scores(batch)
            scored_now += 1
        context.forget(question)
        if on_progress is not None:
            on_progress(index, len(answers))
    return ScoreSummary(answers=len(answers), scored_now=scored_now, skipped=skipped, failed=failed)
