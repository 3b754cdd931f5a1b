"""run_benchmark: answer a benchmark's questions with a system into a run store, concurrently and resumably."""

import random
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from biarena import __version__
from biarena.agents import AgentEnv, System
from biarena.db import DatabasePool
from biarena.errors import UsageError
from biarena.records import Answer, Benchmark, Question, RunSpec, SystemSpec, Usage
from biarena.runner.store import RunStore


@dataclass(frozen=True)
class RunProgress:
    """Where a run stands after an answer."""

    done: int
    total: int
    ok: int
    errors: int
    usage: Usage
    answer: Answer | None = None


@dataclass(frozen=True)
class RunSummary:
    """What a call to run_benchmark did."""

    total: int
    answered_now: int
    already_answered: int
    errors: int
    usage: Usage
    stopped_by_budget: bool = False


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
        biarena_version=__version__,
    )


def open_run(store: RunStore, spec: RunSpec, questions: list[Question]) -> None:
    """Start a new run, or check that an existing one is the same work so it can be resumed."""
    existing = store.spec()
    if existing is None:
        store.start(spec, questions)
        return
    if not existing.same_work(spec):
        raise UsageError(
            f"{store.path} holds a different run (system '{existing.system}' on '{existing.benchmark_name}', "
            f"{len(existing.question_ids)} questions); choose another -o to start a new one"
        )


def _safe_answer(system: System, question: Question, env: AgentEnv) -> Answer:
    try:
        return system.answer(question, env)
    except Exception as error:  # a system's own bug must not stop the run
        return Answer(
            question_id=question.id,
            system=SystemSpec(agent=system.name),
            status="error",
            error=f"{type(error).__name__}: {error}",
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
    on_progress: Callable[[RunProgress], None] | None = None,
) -> RunSummary:
    """Answer each question not yet in `store`; failures are recorded, not fatal; stops at `max_calls` model calls."""
    env = AgentEnv(benchmark=benchmark, databases=databases)
    answered = store.answered_ids()
    pending = [q for q in questions if q.id not in answered]
    already = len(questions) - len(pending)
    usage = Usage()
    counts = {"done": already, "ok": already, "errors": 0, "now": 0}
    lock = threading.Lock()
    stopped = False

    def record(answer: Answer) -> None:
        store.add_answer(answer)
        with lock:
            counts["done"] += 1
            counts["now"] += 1
            counts["ok" if answer.status == "ok" else "errors"] += 1
            for name in ("calls", "cache_hits", "prompt_tokens", "completion_tokens"):
                setattr(usage, name, getattr(usage, name) + getattr(answer.usage, name))
            snapshot = usage.model_copy()
        if on_progress is not None:
            on_progress(RunProgress(counts["done"], len(questions), counts["ok"], counts["errors"], snapshot, answer))

    def over_budget() -> bool:
        with lock:
            return max_calls is not None and usage.calls >= max_calls

    queue = list(pending)
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        running: set[Future] = set()
        while queue or running:
            while queue and len(running) < max(1, concurrency):
                if over_budget():
                    stopped, queue = True, []
                    break
                running.add(pool.submit(_safe_answer, system, queue.pop(0), env))
            if not running:
                break
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                record(future.result())
    return RunSummary(
        total=len(questions),
        answered_now=counts["now"],
        already_answered=already,
        errors=counts["errors"],
        usage=usage,
        stopped_by_budget=stopped,
    )
