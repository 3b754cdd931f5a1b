"""run_benchmark: answer a benchmark's questions with a system into a run store, concurrently and resumably."""

import contextlib
import random
import threading
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import islice

from biarena.agents import AgentEnv, System
from biarena.db import DatabasePool
from biarena.errors import BiarenaError, UsageError
from biarena.llm.try_seed import asking_try
from biarena.records import Answer, Benchmark, Outcome, Question, RunSpec, SystemSpec, Usage, outcome_of
from biarena.records.runspec import BenchmarkFingerprint
from biarena.runner.fingerprint import questions_sha256
from biarena.runner.store import RunStore
from biarena.toolserver import serving_tools
from biarena.version import __version__

_USAGE_FIELDS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens")
STARTED_AHEAD = 4
"""The most databases whose engines a run starts ahead of their first statements (those of its first questions)."""
IDENTITY = "model_identity"
"""The run option that records what the model is (its server's word for it, or its weights' hash)."""


@dataclass
class OutcomeCounts:
    """How many questions of a run ran, failed in their SQL, or got no answer; and the errors behind them."""

    ran: int = 0
    sql_failed: int = 0
    no_answer: int = 0
    errors: Counter = field(default_factory=Counter)

    def add(self, outcome: Outcome) -> None:
        """Count one outcome."""
        if outcome.kind == "ran":
            self.ran += 1
        elif outcome.kind == "sql_failed":
            self.sql_failed += 1
        elif outcome.kind == "no_answer":
            self.no_answer += 1
        if outcome.error:
            self.errors[_error_key(outcome.error)] += 1

    @property
    def failed(self) -> int:
        """Answers whose SQL failed plus questions without an answer."""
        return self.sql_failed + self.no_answer

    def copy(self) -> "OutcomeCounts":
        """An independent copy."""
        return OutcomeCounts(self.ran, self.sql_failed, self.no_answer, Counter(self.errors))


@dataclass
class ToolFigures:
    """What a run's answers did through the database tools: calls, statements, failures, time in the database."""

    answers: int = 0
    """Answers that made at least one tool call."""
    calls: int = 0
    statements: int = 0
    failed_statements: int = 0
    database_seconds: float = 0.0

    def add(self, answer: Answer) -> None:
        """Count one answer's tool calls (an answer without any counts nothing)."""
        if not answer.tool_calls:
            return
        self.answers += 1
        self.calls += len(answer.tool_calls)
        self.statements += len(answer.steps)
        self.failed_statements += sum(1 for step in answer.steps if not step.ok)
        self.database_seconds += sum(step.elapsed for step in answer.steps)

    def line(self) -> str | None:
        """The figures as a run's summary says them (None when no answer used the tools)."""
        if not self.answers:
            return None
        return (
            f"tools: {self.calls} calls by {self.answers} answers; {self.statements / self.answers:.1f} statements "
            f"per answer, {self.failed_statements} failed, {self.database_seconds:.2f} s in the database"
        )


@dataclass(frozen=True)
class RunProgress:
    """Where a run stands after an answer."""

    done: int
    total: int
    counts: OutcomeCounts
    usage: Usage
    answer: Answer | None = None
    outcome: Outcome | None = None
    try_number: int = 0
    """The try the answer is of (`run --repeats`)."""

    @property
    def ok(self) -> int:
        """Questions answered with SQL that ran (or prose)."""
        return self.counts.ran

    @property
    def errors(self) -> int:
        """Questions whose SQL failed or that got no answer."""
        return self.counts.failed


@dataclass(frozen=True)
class RunSummary:
    """What a call to run_benchmark did, and where the run's questions stand now."""

    total: int
    answered_now: int
    already_answered: int
    counts: OutcomeCounts
    usage: Usage
    retried: int = 0
    stopped_by_budget: bool = False
    stopped_by_outage: bool = False
    """The run stopped early because the model's server stopped answering."""
    tools: ToolFigures = field(default_factory=ToolFigures)
    """What the answers (recorded before and now) did through the database tools."""

    @property
    def errors(self) -> int:
        """Questions whose SQL failed or that got no answer."""
        return self.counts.failed

    @property
    def unanswered(self) -> int:
        """Questions of the selection still without an answer (a run stopped by its budget)."""
        return self.total - self.counts.ran - self.counts.failed


@dataclass(frozen=True)
class RunOpening:
    """What opening a run file did: started a run, resumed one, or grew it by new questions."""

    started: bool
    restarted: bool = False
    added: int = 0
    spec: RunSpec | None = None


def select_questions(
    benchmark: Benchmark, limit: int | None = None, per_category: int | None = None, seed: int = 0
) -> list[Question]:
    """The questions a run covers: a stratified sample of `per_category` per first label, then the first `limit`."""
    questions = list(benchmark.questions)
    if per_category is not None:
        groups: dict[str, list[Question]] = {}
        for question in questions:
            groups.setdefault(question.labels[0] if question.labels else "", []).append(question)
        rng = random.Random(seed)
        chosen = set()
        for key in sorted(groups):
            members = groups[key]
            chosen.update(q.id for q in rng.sample(members, min(per_category, len(members))))
        questions = [q for q in questions if q.id in chosen]
    return questions[:limit] if limit is not None else questions


def make_spec(
    benchmark_arg: str,
    benchmark: Benchmark,
    system: System,
    questions: list[Question],
    extra_options: dict | None = None,
    *,
    label: str | None = None,
    fingerprint: BenchmarkFingerprint | None = None,
) -> RunSpec:
    """The spec of a run of `system` over `questions`."""
    options = dict(system.spec_options())
    options.update(extra_options or {})
    return RunSpec(
        benchmark=benchmark_arg,
        benchmark_name=benchmark.name,
        system=system.name,
        model=options.get("model"),
        options=options,
        question_ids=[q.id for q in questions],
        label=label,
        fingerprint=fingerprint,
        biarena_version=__version__,
    )


def open_run(
    store: RunStore,
    spec: RunSpec,
    questions: list[Question],
    *,
    force: bool = False,
    order: list[str] | None = None,
) -> RunOpening:
    """Start a new run, or resume an existing one for the same work, growing it by newly selected questions.

    A run whose system, options or benchmark differ is refused with what differs; `force` starts it over.
    `order` (the benchmark's question ids) places new questions among the stored ones.
    """
    existing = store.spec()
    restarted = existing is not None and force
    if restarted:
        store.reset()
        existing = None
    if existing is None:
        started = spec.model_copy(update={"label": spec.label or spec.default_label(store.path.stem)})
        store.start(started, questions)
        return RunOpening(started=True, restarted=restarted, spec=started)
    stored = {q.id: q for q in store.questions()}
    original = existing
    if IDENTITY not in existing.options and IDENTITY in spec.options:
        # a run recorded before what the model is was recorded: adopt it rather than call the run a different one
        existing = existing.model_copy(update={"options": {**existing.options, IDENTITY: spec.options[IDENTITY]}})
    elif IDENTITY in existing.options and IDENTITY not in spec.options:
        # what the model is cannot be told now (its server does not answer): not a reason to refuse the run
        spec = spec.model_copy(update={"options": {**spec.options, IDENTITY: existing.options[IDENTITY]}})
    differences = existing.differences(spec) + _question_differences(stored, questions)
    if differences:
        shown = "; ".join(differences[:4]) + (f"; and {len(differences) - 4} more" if len(differences) > 4 else "")
        raise UsageError(
            f"{store.path} holds a different run: {shown}. Add --force to start it over (its answers are deleted), "
            "or choose another -o"
        )
    added = [q for q in questions if q.id not in stored]
    ids = list(existing.question_ids)
    known = set(ids)
    ids += [q.id for q in added if q.id not in known]
    if order is not None:
        rank = {qid: i for i, qid in enumerate(order)}
        ids.sort(key=lambda qid: rank.get(qid, len(rank)))
    fingerprint = spec.fingerprint
    if fingerprint is not None:
        fingerprint = fingerprint.model_copy(update={"questions": questions_sha256([*stored.values(), *added])})
    updated = existing.model_copy(
        update={
            "question_ids": ids,
            "benchmark": spec.benchmark,
            "label": spec.label or existing.label or existing.default_label(store.path.stem),
            "fingerprint": fingerprint or existing.fingerprint,
        }
    )
    if updated != original:
        store.update(updated, added)
    return RunOpening(started=False, added=len(added), spec=updated)


def _question_differences(stored: dict[str, Question], questions: list[Question]) -> list[str]:
    changed = []
    for question in questions:
        old = stored.get(question.id)
        if old is not None and old != question:
            fields = [name for name in type(question).model_fields if getattr(old, name) != getattr(question, name)]
            changed.append((question.id, fields))
    if not changed:
        return []
    qid, fields = changed[0]
    more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
    return [f"question '{qid}'{more} differ{'s' if not more else ''} in the benchmark ({', '.join(fields)})"]


def _safe_answer(system: System, question: Question, env: AgentEnv, try_number: int = 0) -> Answer:
    try:
        with asking_try(try_number):
            return system.answer(question, env)
    except (Exception, SystemExit) as error:  # a system's own bug must not stop the run
        return Answer(
            question_id=question.id,
            system=SystemSpec(agent=system.name),
            status="error",
            error=(str(error) if isinstance(error, BiarenaError) else f"{type(error).__name__}: {error}")[:1000],
        )


def run_benchmark(
    benchmark: Benchmark,
    system: System,
    store: RunStore,
    databases: DatabasePool,
    questions: list[Question],
    *,
    concurrency: int = 1,
    max_calls: int | None = None,
    retry_errors: bool = False,
    on_progress: Callable[[RunProgress], None] | None = None,
    outage: Callable[[], bool] | None = None,
    repeats: int = 1,
) -> RunSummary:
    """Answer each question not yet in `store` (and, with `retry_errors`, each recorded without an answer).

    With `repeats` K each question is asked K times, try by try (try t's model calls move their seed, see
    `biarena.llm.try_seed`), and every try not yet recorded is asked; counts and totals are of answers, K a question.
    Failures are recorded, not fatal; stops at `max_calls` model calls, and asks no more questions once `outage()`
    says the model's server has stopped answering.
    """
    with contextlib.ExitStack() as stack:
        tools = None
        if getattr(system, "uses_tools", False):  # a system that queries the database itself: its tool server
            options = system.options  # type: ignore[attr-defined]
            tools = stack.enter_context(serving_tools(options.tools_host, options.tools_port))
        env = AgentEnv(benchmark=benchmark, databases=databases, tools=tools)
        return _answer_all(
            env, system, store, questions, concurrency, max_calls, retry_errors, on_progress, outage, repeats
        )


def _answer_all(
    env: AgentEnv,
    system: System,
    store: RunStore,
    questions: list[Question],
    concurrency: int,
    max_calls: int | None,
    retry_errors: bool,
    on_progress: Callable[[RunProgress], None] | None,
    outage: Callable[[], bool] | None,
    repeats: int,
) -> RunSummary:
    databases = env.databases
    selected = {q.id for q in questions}
    views = {number: store.at_try(number) for number in range(max(1, repeats))}
    recorded = {
        (number, a.question_id): a
        for number, view in views.items()
        for a in view.answers()
        if a.question_id in selected
    }
    retry = {key for key, a in recorded.items() if a.status == "error"} if retry_errors else set()
    pending = [
        (number, q) for number in views for q in questions if (number, q.id) not in recorded or (number, q.id) in retry
    ]
    total = len(questions) * len(views)
    counts = OutcomeCounts()
    tools = ToolFigures()
    for key, answer in recorded.items():
        if key not in retry:
            counts.add(outcome_of(answer))
            tools.add(answer)
    already = len(recorded) - len(retry)
    usage = Usage()
    done = {"done": already, "now": 0}
    lock = threading.Lock()
    stopped = False
    down = False

    def record(number: int, answer: Answer) -> None:
        views[number].add_answer(answer, replace=(number, answer.question_id) in retry)
        outcome = outcome_of(answer)
        with lock:
            done["done"] += 1
            done["now"] += 1
            counts.add(outcome)
            tools.add(answer)
            for name in _USAGE_FIELDS:
                setattr(usage, name, getattr(usage, name) + getattr(answer.usage, name))
            if answer.usage.cost is not None:
                usage.cost = (usage.cost or 0.0) + answer.usage.cost
            snapshot = RunProgress(done["done"], total, counts.copy(), usage.model_copy(), answer, outcome, number)
        if on_progress is not None:
            on_progress(snapshot)

    def over_budget(unrecorded: int) -> bool:
        with lock:
            return max_calls is not None and usage.calls + unrecorded >= max_calls

    queue = deque(pending)
    workers = max(1, concurrency)
    # The engines of the first questions' databases start while those questions are with the system (a model call
    # comes before any statement), rather than at the first statement, which every other worker would wait for.
    first = dict.fromkeys(question.database for _, question in islice(queue, workers))
    databases.start(list(first)[:STARTED_AHEAD])
    pool = ThreadPoolExecutor(max_workers=workers)
    running: dict[Future, int] = {}

    def submit(unrecorded: int = 0) -> None:
        nonlocal stopped, queue
        while queue and len(running) < workers:
            if over_budget(unrecorded):
                stopped, queue = True, deque()
                break
            number, question = queue.popleft()
            running[pool.submit(_safe_answer, system, question, env, number)] = number

    try:
        while queue or running:
            submit()
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            answered = [(running.pop(future), future.result()) for future in finished]
            if queue and outage is not None and outage():
                down, queue = True, deque()
            # The free workers get their next questions before these answers are written (a store transaction
            # each), counting the calls they made against the budget already.
            submit(sum(answer.usage.calls for _, answer in answered))
            for number, answer in answered:
                record(number, answer)
    except BaseException:
        # interrupted (or the store failed): stop what the system is doing rather than wait for its deadline
        cancel = getattr(system, "cancel", None)
        if callable(cancel):
            cancel()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return RunSummary(
        total=total,
        answered_now=done["now"],
        already_answered=already,
        counts=counts,
        usage=usage,
        retried=len(retry),
        stopped_by_budget=stopped,
        stopped_by_outage=down,
        tools=tools,
    )


def _error_key(error: str) -> str:
    """An error as it is grouped with others: its first line, clipped."""
    line = error.strip().splitlines()[0] if error.strip() else error
    return line if len(line) <= 160 else line[:159] + "…"
