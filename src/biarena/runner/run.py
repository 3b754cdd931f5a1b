"""run_benchmark: answer every question of a benchmark with a system into a run store, resumably."""

from collections.abc import Callable
from dataclasses import dataclass

from biarena import __version__
from biarena.agents import AgentEnv, System
from biarena.db import DatabasePool
from biarena.errors import UsageError
from biarena.records import Answer, Benchmark, Question, RunSpec, SystemSpec
from biarena.runner.store import RunStore


@dataclass(frozen=True)
class RunProgress:
    """Where a run stands after an answer."""

    done: int
    total: int
    ok: int
    errors: int
    answer: Answer | None = None


@dataclass(frozen=True)
class RunSummary:
    """What a call to run_benchmark did."""

    total: int
    answered_now: int
    already_answered: int
    errors: int


def select_questions(benchmark: Benchmark, limit: int | None = None) -> list[Question]:
    """The questions a run covers, in benchmark order."""
    questions = list(benchmark.questions)
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


def run_benchmark(
    benchmark: Benchmark,
    system: System,
    store: RunStore,
    databases: DatabasePool,
    questions: list[Question],
    *,
    on_progress: Callable[[RunProgress], None] | None = None,
) -> RunSummary:
    """Answer each question not yet answered in `store`; a failing question is recorded, not fatal."""
    env = AgentEnv(benchmark=benchmark, databases=databases)
    answered = store.answered_ids()
    already = sum(1 for q in questions if q.id in answered)
    done, ok, errors, now = already, already, 0, 0
    for question in questions:
        if question.id in answered:
            continue
        try:
            answer = system.answer(question, env)
        except Exception as error:  # a system's own bug must not stop the run
            answer = Answer(
                question_id=question.id,
                system=SystemSpec(agent=system.name),
                status="error",
                error=f"{type(error).__name__}: {error}",
            )
        store.add_answer(answer)
        done += 1
        now += 1
        if answer.status == "ok":
            ok += 1
        else:
            errors += 1
        if on_progress is not None:
            on_progress(RunProgress(done, len(questions), ok, errors, answer))
    return RunSummary(total=len(questions), answered_now=now, already_answered=already, errors=errors)
