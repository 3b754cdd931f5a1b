"""execute_demo: the demo workflow (`biarena demo`, `biarena.demo(...)`): the main job on small defaults, in four
steps (a benchmark's questions, a model, agents answering and scored, a report), each phase's cost measured."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biarena.agents import System
from biarena.benchmarks import resolve_benchmark
from biarena.db import DatabasePool
from biarena.events import EventHandler, Message, ignore
from biarena.llm.model_options import resolve_model
from biarena.metrics import ScoringContext
from biarena.metrics.summary import overall
from biarena.options import value_pairs
from biarena.records import Benchmark, Question, outcome_of
from biarena.report.demo_phases import Phase, timed, write_phases
from biarena.report.demo_settings import DemoSettings
from biarena.report.html_report import write_report
from biarena.report.run_data import RunData
from biarena.runner import RunStore
from biarena.runner.build_system import build_system
from biarena.runner.execute import answer_questions
from biarena.runner.run import RunSummary
from biarena.scoring import ScoreInfos, default_scorers, score_run, setup_scorers

STEPS = 4
"""The demo's steps: the benchmark, the model, the agents (one step, each in turn), the report."""


@dataclass(frozen=True)
class DemoStep(Message):
    """A step of the demo begins; `text` starts with `step`/`STEPS` (the step's number of four)."""

    step: int


@dataclass(frozen=True)
class QuestionsChosen(Message):
    """The questions every agent answers, said in `text`."""

    questions: list[Question]


@dataclass(frozen=True)
class AgentRow:
    """One agent's line of the demo's summary."""

    agent: str
    answered: int
    ran: int
    """Answers whose SQL ran."""
    means: dict[str, float | None]
    """The headline scores' means, by score name."""
    calls: int
    """Model calls."""


@dataclass(frozen=True)
class DemoResult:
    """What the demo wrote and found: its runs and report, the agents' headline scores, and each phase's cost."""

    out: Path
    report: Path
    runs: list[Path]
    benchmark: str
    """The benchmark's name."""
    model: str
    """The model as it was given."""
    questions: list[Question]
    scores: list[str]
    """The headline scores, by name, in the summary's order."""
    labels: dict[str, str]
    """Each headline score's short label."""
    descriptions: dict[str, str]
    """What each headline score measures."""
    rows: list[AgentRow]
    phases: list[Phase]
    """Each phase's wall time, peak memory and model usage (also in `demo-phases.json` beside the report)."""


def demo_questions(benchmark: Benchmark, per_category: int) -> list[Question]:
    """`per_category` questions of each category, alternating languages so every language appears; grouped by
    database so that consecutive prompts share the schema the model has already read."""
    groups: dict[str, list[Question]] = {}
    for question in benchmark.questions:
        groups.setdefault(question.labels[0] if question.labels else "", []).append(question)
    languages = sorted({q.language for q in benchmark.questions})
    chosen: list[Question] = []
    turn = 0
    for key in sorted(groups):
        members = groups[key]
        for _ in range(min(per_category, len(members))):
            wanted = languages[turn % len(languages)]
            turn += 1
            pick = next((q for q in members if q.language == wanted and q not in chosen), None)
            pick = pick or next(q for q in members if q not in chosen)
            chosen.append(pick)
    order = {q.id: i for i, q in enumerate(benchmark.questions)}
    return sorted(chosen, key=lambda q: (q.database, order[q.id]))


def execute_demo(settings: DemoSettings, on_event: EventHandler = ignore) -> DemoResult:
    """Choose the questions, make the agents with the model, answer and score into `out/AGENT.run`, write
    `out/report.html` and `out/demo-phases.json`, reporting `DemoStep`s, `QuestionsChosen`, each run's events and
    messages through `on_event`. Bad input is a BiarenaError before the step that needs it."""
    names, out = settings.agents, settings.out
    phases: list[Phase] = []
    out.mkdir(parents=True, exist_ok=True)
    with timed(phases, "benchmark"):
        on_event(DemoStep(f"1/{STEPS} loading benchmark {settings.benchmark} (built on first use) ...", 1))
        benchmark = resolve_benchmark(settings.benchmark)
        questions = demo_questions(benchmark, settings.per_category)
        languages = ", ".join(sorted({q.language for q in questions}))
        said = f"{len(questions)} questions: {settings.per_category} per category ({languages})"
        on_event(QuestionsChosen(f"      {said} from {len(benchmark.questions)}", questions))
    with timed(phases, "model load"):
        on_event(DemoStep(f"2/{STEPS} preparing model {settings.model} (assembled and checked on first use) ...", 2))
        given = settings.model_options
        pairs = given if isinstance(given, list) else value_pairs(given)
        chosen = resolve_model(settings.model, pairs, settings.models_file, flag="-M")
        systems = [build_system(n, model_options=chosen, **_agent_options(n, settings)) for n in names]
        for system in systems:
            _warm_up(system)
    runs = []
    for index, (name, system) in enumerate(zip(names, systems, strict=True), start=1):
        path = out / f"{name}.run"
        with timed(phases, f"agent {name}") as phase:
            on_event(DemoStep(f"3/{STEPS} agent {index}/{len(names)}: {name} → {path}", 3))
            usage = _answer_and_score(settings.benchmark, benchmark, system, questions, path, on_event).usage
            phase.calls, phase.prompt_tokens, phase.completion_tokens = (
                usage.calls,
                usage.prompt_tokens,
                usage.completion_tokens,
            )
        runs.append(RunData.read(path))
    with timed(phases, "report"):
        on_event(DemoStep(f"4/{STEPS} writing the report ...", 4))
        title = f"biarena demo: {', '.join(names)} on {benchmark.name}"
        report = write_report(runs, out / "report.html", title=title)
    write_phases(phases, out)
    return _result(settings, benchmark, questions, runs, report, phases)


def _agent_options(name: str, settings: DemoSettings) -> dict[str, Any]:
    """The sequential agent is asked for a few queries and a short answer, so that the demo stays quick."""
    if name != "sequential":
        return {}
    return {"max_queries": settings.max_queries, "answer_words": settings.answer_words, "short_answer": True}


def _warm_up(system: System) -> None:
    """Load an in-process model now, so its load time is its own phase."""
    provider = getattr(getattr(system, "model", None), "provider", None)
    if provider is not None and hasattr(provider, "llama"):
        _ = provider.llama


def _answer_and_score(
    benchmark_arg: str,
    benchmark: Benchmark,
    system: System,
    questions: list[Question],
    path: Path,
    on_event: EventHandler,
) -> RunSummary:
    """Answer the questions into `path` as `biarena run` does (resuming it), reporting the run's events, and score
    the run with the default scorers."""
    pool = DatabasePool(benchmark)
    try:
        summary = answer_questions(benchmark_arg, benchmark, system, questions, pool, path, on_event=on_event)
        on_event(Message(f"      scoring {len(questions)} answers ..."))
        with RunStore(path) as store:
            context = ScoringContext(benchmark=benchmark, databases=pool)
            score_run(store, setup_scorers(default_scorers(), context))
        return summary
    finally:
        pool.close()


def _result(
    settings: DemoSettings,
    benchmark: Benchmark,
    questions: list[Question],
    runs: list[RunData],
    report: Path,
    phases: list[Phase],
) -> DemoResult:
    """The demo's result: each agent's answers, the headline scores' means and its model calls."""
    infos = ScoreInfos.of(s for run in runs for s in run.scores)
    names = infos.headlines([s.name for run in runs for s in run.scores], judges=False)
    rows = [
        AgentRow(
            agent=run.spec.system,
            answered=len(run.answers),
            ran=sum(1 for a in run.answers if outcome_of(a).ok),
            means=overall(run.questions, run.scores, names, answers=run.answers).means,
            calls=sum(a.usage.calls for a in run.answers),
        )
        for run in runs
    ]
    return DemoResult(
        out=settings.out,
        report=report,
        runs=[settings.out / f"{name}.run" for name in settings.agents],
        benchmark=benchmark.name,
        model=settings.model,
        questions=questions,
        scores=names,
        labels={n: infos.label(n) for n in names},
        descriptions={n: infos.info(n).description for n in names},
        rows=rows,
        phases=phases,
    )
