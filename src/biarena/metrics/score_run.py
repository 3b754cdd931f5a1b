"""score_run: apply scorers to every answer of a run, one transaction per answer, skipping done work."""

from collections.abc import Callable
from dataclasses import dataclass

from biarena.metrics.context import ScoringContext
from biarena.metrics.scorer import Scorer
from biarena.records import Score
from biarena.runner.store import RunStore


@dataclass(frozen=True)
class ScoreSummary:
    """What a call to score_run did."""

    answers: int
    scored_now: int
    skipped: int


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
    scored_now = skipped = 0
    for index, answer in enumerate(answers, start=1):
        question = questions[answer.question_id]
        pending = [s for s in scorers if (answer.question_id, s.name, s.version) not in done]
        if not pending:
            skipped += 1
        else:
            batch: list[Score] = []
            for scorer in pending:
                batch.extend(scorer(question, answer, context))
            store.put_scores(batch)
            scored_now += 1
        context.forget(question)
        if on_progress is not None:
            on_progress(index, len(answers))
    return ScoreSummary(answers=len(answers), scored_now=scored_now, skipped=skipped)
