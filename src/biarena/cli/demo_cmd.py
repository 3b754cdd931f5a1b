"""`biarena demo`: the main job on the embedded defaults, offline: build, run, score, report."""

import json
import resource
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from biarena.agents import System
from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err, fmt, new_table, out, print_table, row
from biarena.cli.model_flags import MODEL_PAIRS, MODELS_FILE, model_options
from biarena.cli.run_view import RunView
from biarena.db import DatabasePool
from biarena.metrics import ScoringContext
from biarena.metrics.summary import overall
from biarena.records import Answer, Benchmark, Question, outcome_of
from biarena.report import RunData, write_report
from biarena.runner import RunProgress, RunStore
from biarena.runner.build_system import build_system
from biarena.runner.execute import answer_questions
from biarena.scoring import ScoreInfos, default_scorers, score_run, setup_scorers

PHASES_FILE = "demo-phases.json"
"""Per-phase wall time, peak memory and model tokens of the last demo, beside its report."""


@dataclass
class Phase:
    """What one phase of the demo cost."""

    name: str
    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    """Peak resident memory of the process so far, in MB."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0


def _peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


@contextmanager
def _phase(phases: list[Phase], name: str) -> Iterator[Phase]:
    phase = Phase(name)
    start = time.perf_counter()
    try:
        yield phase
    finally:
        phase.seconds = round(time.perf_counter() - start, 2)
        phase.peak_rss_mb = round(_peak_rss_mb(), 1)
        phases.append(phase)


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


def _one_line(text: str, width: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _print_answer(question: Question, answer: Answer, done: int, total: int) -> None:
    """Each step of an answer as it is recorded: the question, every query with its outcome, the answer."""
    label = question.labels[0] if question.labels else ""
    err.print(f"  [{done}/{total}] {escape(label)} ({question.language}): {escape(_one_line(question.text, 120))}")
    for number, step in enumerate(answer.steps, start=1):
        result = f"error: {_one_line(step.error, 100)}" if step.error else f"{step.row_count} rows"
        err.print(f"      query {number}: {escape(_one_line(step.sql, 120))}  → {escape(result)}")
    outcome = outcome_of(answer)
    if answer.text and answer.status == "ok":
        err.print(f"      answer: {escape(_one_line(answer.text, 140))}")
    detail = f": {_one_line(outcome.error, 120)}" if outcome.error else ""
    tokens = answer.usage.prompt_tokens + answer.usage.completion_tokens
    err.print(f"      {escape(outcome.label + detail)}  ({answer.usage.calls} calls, {tokens} tokens)")


def _warm_up(system: System) -> None:
    """Load an in-process model now, so its load time is its own phase."""
    provider = getattr(getattr(system, "model", None), "provider", None)
    if provider is not None and hasattr(provider, "llama"):
        _ = provider.llama


def demo(
    out_dir: Path = typer.Option(Path("biarena-demo"), "-o", "--out", help="Directory for runs and the report."),
    benchmark_arg: str = typer.Option("bis-synth", "--benchmark", help="Benchmark directory or built-in name."),
    model: str = typer.Option("local", "--model", help="local (embedded), local:/path.gguf, openai:MODEL[@URL]."),
    agents: str = typer.Option("text2sql,sequential", "--agents", help="Comma-separated agents to compare."),
    per_category: int = typer.Option(1, "--per-category", min=1, help="Questions per category (languages mixed)."),
    max_queries: int = typer.Option(2, "--max-queries", min=1, help="Queries the sequential agent may write."),
    answer_words: int = typer.Option(
        50, "--answer-words", min=10, help="Length of the sequential agent's answer (a concise answer, BIS style)."
    ),
    model_option: list[str] | None = MODEL_PAIRS,
    models_file: Path | None = MODELS_FILE,
) -> None:
    """Build the built-in benchmark, run agents with the local model, score them, and write report.html."""
    names = [a.strip() for a in agents.split(",") if a.strip()]
    phases: list[Phase] = []
    out_dir.mkdir(parents=True, exist_ok=True)
    with _phase(phases, "benchmark"):
        err.print(f"[bold]1/4[/bold] loading benchmark {escape(benchmark_arg)} (built on first use) ...")
        benchmark = resolve_benchmark(benchmark_arg)
        questions = demo_questions(benchmark, per_category)
        languages = ", ".join(sorted({q.language for q in questions}))
        err.print(
            f"      {len(questions)} questions: {per_category} per category ({languages}) "
            f"from {len(benchmark.questions)}"
        )
    with _phase(phases, "model load"):
        err.print(f"[bold]2/4[/bold] preparing model {escape(model)} (assembled and checked on first use) ...")
        chosen = model_options(model, model_option, models_file)
        systems = [build_system(n, model_options=chosen, **_agent_options(n, max_queries, answer_words)) for n in names]
        for system in systems:
            _warm_up(system)
    runs = []
    for index, (name, system) in enumerate(zip(names, systems, strict=True), start=1):
        path = out_dir / f"{name}.run"
        with _phase(phases, f"agent {name}") as phase:
            err.print(f"[bold]3/4[/bold] agent {index}/{len(names)}: {escape(name)} → {escape(str(path))}")
            usage = _run_agent(benchmark_arg, benchmark, system, questions, path)
            phase.calls, phase.prompt_tokens, phase.completion_tokens = (
                usage.calls,
                usage.prompt_tokens,
                usage.completion_tokens,
            )
        runs.append(RunData.read(path))
    with _phase(phases, "report"):
        err.print("[bold]4/4[/bold] writing the report ...")
        title = f"biarena demo: {', '.join(names)} on {benchmark.name}"
        report = write_report(runs, out_dir / "report.html", title=title)
    (out_dir / PHASES_FILE).write_text(json.dumps([asdict(p) for p in phases], indent=2) + "\n", encoding="utf-8")
    _print_summary(runs, benchmark, questions, model, phases)
    out.print(f"report: [bold]{escape(str(report.resolve()))}[/bold]  (open it in a browser)")


def _agent_options(name: str, max_queries: int, answer_words: int) -> dict[str, Any]:
    if name != "sequential":
        return {}
    return {"max_queries": max_queries, "answer_words": answer_words, "short_answer": True}


def _run_agent(benchmark_arg: str, benchmark: Benchmark, system: System, questions: list[Question], path: Path) -> Any:
    """Answer the questions into `path` as `biarena run` does (resuming it), print every answer's steps as it
    comes, and score it."""
    pool = DatabasePool(benchmark)
    by_id = {q.id: q for q in questions}

    def show(p: RunProgress) -> None:
        if p.answer is not None:
            _print_answer(by_id[p.answer.question_id], p.answer, p.done, p.total)

    view = RunView(on_answer=show)
    try:
        summary = answer_questions(benchmark_arg, benchmark, system, questions, pool, path, on_event=view)
        view.close()
        err.print(f"      scoring {len(questions)} answers ...")
        with RunStore(path) as store:
            context = ScoringContext(benchmark=benchmark, databases=pool)
            score_run(store, setup_scorers(default_scorers(), context))
        return summary.usage
    finally:
        view.close()
        pool.close()


def _print_summary(
    runs: list[RunData], benchmark: Benchmark, questions: list[Question], model: str, phases: list[Phase]
) -> None:
    infos = ScoreInfos.of(s for run in runs for s in run.scores)
    names = infos.headlines([s.name for run in runs for s in run.scores], judges=False)
    labels = [infos.label(n) for n in names]
    table = new_table(
        f"{benchmark.name}: {len(questions)} questions, model {model}",
        [("agent", "name"), *((h, "number") for h in ("answered", "SQL ran", *labels, "calls"))],
    )
    for run in runs:
        means = overall(run.questions, run.scores, names, answers=run.answers).means
        ran = sum(1 for a in run.answers if outcome_of(a).ok)
        calls = sum(a.usage.calls for a in run.answers)
        row(table, run.spec.system, len(run.answers), ran, *(fmt(means.get(n)) for n in names), calls)
    print_table(table)
    out.print("; ".join(f"{infos.label(n)}: {infos.info(n).description}" for n in names) + ".", markup=False)
    timing = new_table(
        "where the time went",
        [
            ("phase", "name"),
            *((h, "number") for h in ("seconds", "peak MB", "calls", "prompt tok.", "output tok.", "output tok./s")),
        ],
    )
    for phase in phases:
        rate = f"{phase.completion_tokens / phase.seconds:.1f}" if phase.calls and phase.seconds else ""
        row(
            timing,
            phase.name,
            f"{phase.seconds:.1f}",
            f"{phase.peak_rss_mb:.0f}",
            phase.calls,
            phase.prompt_tokens,
            phase.completion_tokens,
            rate,
        )
    print_table(timing)
