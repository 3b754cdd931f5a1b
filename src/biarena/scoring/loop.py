"""score_run, the one run loop: apply scorers to every answer of a run: concurrent, budgeted, resumable, one
transaction per result.

A result is done once stored for its (question, scorer, version, rubric hash, model): a re-score skips it, and a
result made again finds its model replies in the response cache, so neither makes a model call. A scorer that does
not apply to a question gets a row saying so, which is what displays read.
"""

from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from biarena.records import Answer, Question, ScoreRecord, Usage
from biarena.runner.store import RunStore
from biarena.scoring.scorer import ScoreResult, make_score, trace_usage
from biarena.scoring.scoring_context import ScoringContext
from biarena.scoring.setup import ScorerSetup


@dataclass
class ScoreProgress:
    """Where scoring stands, after one result."""

    done: int
    """Results made so far in this pass."""
    total: int
    """Results this pass set out to make."""
    failed: int
    usage: Usage
    question_id: str
    scorer: str
    record: ScoreRecord


@dataclass
class ScoreSummary:
    """What a call to score_run did."""

    answers: int = 0
    """Answers in the run."""
    answers_scored: int = 0
    """Answers that got at least one result now."""
    answers_skipped: int = 0
    """Answers with nothing left to score."""
    scored_now: int = 0
    """Results made and stored now."""
    failed: int = 0
    """Of those, results that failed (a judgement without a value, a metric that broke on the answer)."""
    skipped: int = 0
    """Results already stored for the same scorer, version, rubric and model."""
    not_applicable: int = 0
    """(question, scorer) pairs the scorer does not score (e.g. `corgi` on a descriptive question)."""
    pending: int = 0
    """Results left when the --max-calls budget stopped the pass."""
    unreached: int = 0
    """Results not made because the scorer's model server did not answer (not stored: the next pass makes them)."""
    stopped_by_budget: bool = False
    usage: Usage = field(default_factory=Usage)
    """Model calls and tokens spent now."""
    failures: list[tuple[str, str, str]] = field(default_factory=list)
    """(question id, scorer, why) of each result that failed now, in the order they were made."""


def not_applicable(setup: ScorerSetup, question: Question) -> ScoreRecord:
    """The record saying the scorer does not score answers to the question."""
    return _record(setup, question, ScoreResult([]), applies=False)


def _record(setup: ScorerSetup, question: Question, result: ScoreResult, *, applies: bool = True) -> ScoreRecord:
    scorer = setup.scorer
    return ScoreRecord(
        question_id=question.id,
        scorer=scorer.name,
        scorer_version=scorer.version,
        rubric_hash=setup.context.rubric_hash,
        model=setup.model_spec,
        applies=applies,
        failed=result.failed,
        scores=result.scores,
        trace=result.trace,
    )


def score_one(setup: ScorerSetup, question: Question, answer: Answer) -> ScoreRecord:
    """One scorer's record of one answer; a scorer that raises gives a failed record, never a crash of the pass.

    A scorer without a model runs holding the scoring context's lock: its statements and caches are not shared
    across threads.
    """
    scorer = setup.scorer
    try:
        if scorer.needs_model:
            result = scorer.score(question, answer, setup.context)
        else:
            with setup.context.scoring.lock:
                result = scorer.score(question, answer, setup.context)
    except Exception as error:
        why = f"the scorer failed ({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})"
        scores = [make_score(scorer, question, info.name, None, rationale=why) for info in scorer.infos]
        result = ScoreResult(scores, failed=why)
    return _record(setup, question, result)


def score_run(
    store: RunStore,
    setups: list[ScorerSetup],
    *,
    concurrency: int = 1,
    max_calls: int | None = None,
    rescore: bool = False,
    on_progress: Callable[[ScoreProgress], None] | None = None,
) -> ScoreSummary:
    """Score every answer (of every try) with every scorer that applies and has not scored it yet (all again with
    `rescore`).

    `max_calls` stops starting results that need a model once that many model calls were made (replies from the
    cache are free); the others go on.
    """
    summary = ScoreSummary()
    tasks: list[_Task] = []
    questions = store.questions()
    for number in sorted({0, *store.tries()}):
        tasks += _tasks(store.at_try(number), questions, setups, summary, rescore, counted=number == 0)
    _run(tasks, summary, concurrency, max_calls, on_progress)
    return summary


_Task = tuple[ScorerSetup, Question, Answer, RunStore]
"""A result to make: the scorer, the question, the answer and the run seen at the answer's try."""


def _tasks(
    store: RunStore,
    questions: list[Question],
    setups: list[ScorerSetup],
    summary: ScoreSummary,
    rescore: bool,
    *,
    counted: bool,
) -> list[_Task]:
    """The results to make of one try's answers; stores the not-applicable notes (counted once, at try 0)."""
    answers = {a.question_id: a for a in store.answers()}
    stored = store.result_keys()
    summary.answers += len(answers)
    notes: list[ScoreRecord] = []
    tasks: list[_Task] = []
    for question in questions:
        answer = answers.get(question.id)
        work = 0
        for setup in setups:
            key = setup.key(question.id)
            if not setup.scorer.applies(question):
                summary.not_applicable += counted
                if stored.get(key) is not False and (counted or answer is not None):
                    notes.append(not_applicable(setup, question))
            elif answer is None or (answer.status == "error" and not setup.scorer.error_answers):
                continue
            elif stored.get(key) and not rescore:
                summary.skipped += 1
            else:
                tasks.append((setup, question, answer, store))
                work += 1
        if answer is not None:
            summary.answers_scored += work > 0
            summary.answers_skipped += work == 0
    if notes:
        store.put_results(notes)
    return tasks


def _run(
    tasks: list[_Task],
    summary: ScoreSummary,
    concurrency: int,
    max_calls: int | None,
    on_progress: Callable[[ScoreProgress], None] | None,
) -> None:
    """Make the results, a few at once, and store them: a model's at once, the others with the rest of their
    answer's (one transaction per answer: cheap to make again after a kill, many to write). Once an answer is done,
    its cached statement results are forgotten."""
    total = len(tasks)
    left = Counter((store.try_number, question.id) for _, question, _, store in tasks)
    contexts: dict[int, ScoringContext] = {id(s.context.scoring): s.context.scoring for s, _, _, _ in tasks}
    waiting: dict[tuple[int, str], list[ScoreRecord]] = {}

    def finished(question: Question, store: RunStore) -> None:
        key = (store.try_number, question.id)
        left[key] -= 1
        if left[key] == 0:
            if key in waiting:
                store.put_results(waiting.pop(key))
            for scoring in contexts.values():
                with scoring.lock:
                    scoring.forget(question)

    def record(setup: ScorerSetup, question: Question, store: RunStore, made: ScoreRecord) -> None:
        if made.failed is not None and _server_failing(setup):
            summary.unreached += 1  # the server's outage, not the judge's verdict: left for the next pass
        elif setup.scorer.needs_model:
            store.put_results([made])
        else:
            waiting.setdefault((store.try_number, question.id), []).append(made)
        spent = trace_usage(made.trace)
        summary.scored_now += 1
        summary.failed += made.failed is not None
        if made.failed is not None:
            summary.failures.append((question.id, setup.scorer.name, made.failed))
        for name in ("calls", "cache_hits", "prompt_tokens", "completion_tokens"):
            setattr(summary.usage, name, getattr(summary.usage, name) + getattr(spent, name))
        finished(question, store)
        if on_progress is not None:
            usage = summary.usage.model_copy()
            on_progress(
                ScoreProgress(summary.scored_now, total, summary.failed, usage, question.id, setup.scorer.name, made)
            )

    queue = deque(tasks)
    workers = max(1, concurrency)
    running: dict[Future, tuple[ScorerSetup, Question, RunStore]] = {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        # one at a time, the scorers run on this thread: no hand-over to a worker for each result
        submit = pool.submit if workers > 1 else _done_now
        try:
            while queue or running:
                while queue and len(running) < workers:
                    setup, question, answer, store = queue.popleft()
                    if setup.scorer.needs_model and max_calls is not None and summary.usage.calls >= max_calls:
                        summary.stopped_by_budget = True
                        summary.pending += 1
                        finished(question, store)
                        continue
                    running[submit(score_one, setup, question, answer)] = (setup, question, store)
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    setup, question, store = running.pop(future)
                    record(setup, question, store, future.result())
        finally:
            for future in running:
                future.cancel()


def _server_failing(setup: ScorerSetup) -> bool:
    """True when the scorer's model has just failed to get a reply from its server (an outage, a timeout)."""
    health = getattr(setup.context.model, "health", None)
    return bool(health is not None and setup.scorer.needs_model and health.failing)


def _done_now(function: Callable[..., ScoreRecord], *args: object) -> Future:
    """`function(*args)` called now, as a finished future."""
    future: Future = Future()
    try:
        future.set_result(function(*args))
    except BaseException as error:
        future.set_exception(error)
    return future
