"""`biarena demo`: the main job on the embedded defaults, offline: build, run, score, report."""

from contextlib import closing
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.text import Text

from biarena.cli.console import err, fmt, new_table, out, print_table, row
from biarena.cli.model_flags import MODEL_PAIRS, MODELS_FILE
from biarena.cli.run_view import RunView
from biarena.cli.settings_from import settings_from
from biarena.records import Answer, Question, outcome_of
from biarena.report.demo_settings import DemoSettings
from biarena.report.execute_demo import STEPS, DemoResult, DemoStep, QuestionsChosen, execute_demo
from biarena.runner import RunProgress

__all__ = ["demo"]


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


class _DemoView:
    """The demo's events on stderr: its steps, then each run as `biarena run` shows it, every answer in full."""

    def __init__(self) -> None:
        self.questions: dict[str, Question] = {}
        self.run = RunView(on_answer=self._answer)

    def __call__(self, event: Any) -> None:
        if isinstance(event, DemoStep):
            line = Text(event.text)
            line.stylize("bold", 0, len(f"{event.step}/{STEPS}"))  # the step's number, as in "3/4"
            err.print(line)
        elif isinstance(event, QuestionsChosen):
            self.questions = {q.id: q for q in event.questions}
            err.print(Text(event.text))
        else:
            self.run(event)

    def _answer(self, progress: RunProgress) -> None:
        if progress.answer is not None:
            question = self.questions[progress.answer.question_id]
            _print_answer(question, progress.answer, progress.done, progress.total)

    def close(self) -> None:
        """Take a run's progress bar off the screen."""
        self.run.close()


def demo(
    out_dir: Path = typer.Option(Path("biarena-demo"), "-o", "--out", help="Directory for runs and the report."),
    benchmark: str = typer.Option("bis-synth", "--benchmark", help="Benchmark directory or built-in name."),
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
    settings = settings_from(
        DemoSettings,
        locals(),
        out=out_dir,
        agents=[a.strip() for a in agents.split(",") if a.strip()],
        model_options=list(model_option or []),
    )
    with closing(_DemoView()) as view:
        result = execute_demo(settings, view)
    _print_summary(result)
    out.print(f"report: [bold]{escape(str(result.report.resolve()))}[/bold]  (open it in a browser)")


def _print_summary(result: DemoResult) -> None:
    names = result.scores
    table = new_table(
        f"{result.benchmark}: {len(result.questions)} questions, model {result.model}",
        [("agent", "name"), *((h, "number") for h in ("answered", "SQL ran", *result.labels.values(), "calls"))],
    )
    for agent in result.rows:
        row(table, agent.agent, agent.answered, agent.ran, *(fmt(agent.means.get(n)) for n in names), agent.calls)
    print_table(table)
    out.print("; ".join(f"{result.labels[n]}: {result.descriptions[n]}" for n in names) + ".", markup=False)
    timing = new_table(
        "where the time went",
        [
            ("phase", "name"),
            *((h, "number") for h in ("seconds", "peak MB", "calls", "prompt tok.", "output tok.", "output tok./s")),
        ],
    )
    for phase in result.phases:
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
