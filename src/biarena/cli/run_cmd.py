"""`biarena run BENCH --agent NAME [--model MODEL] -o RUN`: answer a benchmark's questions into a run file."""

from pathlib import Path
from typing import Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from biarena.agents import MODEL_AGENTS, System, make_system
from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err
from biarena.cli.options import DB_URL, TIMEOUT, db_overrides
from biarena.db import DatabasePool
from biarena.errors import UsageError
from biarena.llm import DEFAULT_MODEL, get_model
from biarena.records import Benchmark, Question
from biarena.runner import RunProgress, RunStore, RunSummary, make_spec, open_run, run_benchmark, select_questions


def build_system(
    name: str,
    *,
    model: str | None = None,
    no_cache: bool = False,
    concurrency: int = 1,
    **options: Any,
) -> System:
    """Make the named system, with a model for the agents that need one."""
    given = {k: v for k, v in options.items() if v is not None}
    if name in MODEL_AGENTS:
        given["model"] = get_model(model or DEFAULT_MODEL, use_cache=not no_cache, concurrency=max(1, concurrency))
    elif model is not None:
        raise UsageError(f"system '{name}' does not use a model (--model)")
    return make_system(name, **given)


def run(
    benchmark_arg: str = typer.Argument(..., metavar="BENCH", help="Benchmark directory or built-in name."),
    agent: str | None = typer.Option(
        None,
        "--agent",
        help="text2sql, sequential, iterative, no_interaction, "
        "bibench_baseline, http, command, python, gold, predictions.",
    ),
    system: str | None = typer.Option(None, "--system", help="Same as --agent."),
    model: str | None = typer.Option(None, "--model", help="local (default), local:/path.gguf, openai:MODEL[@URL]."),
    out: Path = typer.Option(..., "-o", "--out", help="Run file to write (resumed when it exists)."),
    predictions: Path | None = typer.Option(None, "--predictions", help="JSONL of {question_id, sql} (predictions)."),
    url: str | None = typer.Option(None, "--url", help="Endpoint of the http system."),
    command: str | None = typer.Option(None, "--command", help="Command of the command system."),
    function: str | None = typer.Option(None, "--function", help="module:function of the python system."),
    max_queries: int | None = typer.Option(
        None, "--max-queries", min=1, help="Queries the sequential agent may write."
    ),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N questions."),
    per_category: int | None = typer.Option(None, "--per-category", min=1, help="A stratified sample: N per category."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Questions answered at once."),
    max_calls: int | None = typer.Option(None, "--max-calls", min=1, help="Stop after N model calls (not cached)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not use cached model replies."),
    db_url: list[str] | None = DB_URL,
    timeout: float = TIMEOUT,
) -> None:
    """Run a system over a benchmark; a killed run resumes where it stopped."""
    name = agent or system
    if name is None:
        raise UsageError("name the system to run: --agent NAME (e.g. text2sql, sequential, gold)")
    if agent and system and agent != system:
        raise UsageError("--agent and --system name the same thing; give one")
    benchmark = resolve_benchmark(benchmark_arg)
    options = {
        "predictions": predictions,
        "url": url,
        "command": command,
        "function": function,
        "max_queries": max_queries,
    }
    chosen = build_system(name, model=model, no_cache=no_cache, concurrency=concurrency, **options)
    questions = select_questions(benchmark, limit, per_category)
    overrides = db_overrides(db_url, benchmark)
    pool = DatabasePool(benchmark, overrides=overrides, timeout=timeout)
    try:
        execute_run(
            benchmark_arg,
            benchmark,
            chosen,
            questions,
            pool,
            out,
            overrides,
            concurrency=concurrency,
            max_calls=max_calls,
        )
    finally:
        pool.close()


def execute_run(
    benchmark_arg: str,
    benchmark: Benchmark,
    chosen: System,
    questions: list[Question],
    pool: DatabasePool,
    out: Path,
    overrides: dict[str, str] | None = None,
    *,
    concurrency: int = 1,
    max_calls: int | None = None,
) -> RunSummary:
    """Open (or resume) the run file and answer its questions with a progress bar."""
    pool.open_all()
    location = str(Path(benchmark_arg).resolve()) if Path(benchmark_arg).is_dir() else benchmark_arg
    spec = make_spec(location, benchmark, chosen, questions, {"db_urls": overrides} if overrides else None)
    unknown = getattr(chosen, "unknown_ids", None)
    if unknown is not None and (ids := unknown({q.id for q in benchmark.questions})):
        err.print(f"warning: {len(ids)} predictions name no question of '{benchmark.name}' (e.g. {ids[0]})")
    with RunStore(out, create=True) as store:
        open_run(store, spec, questions)
        answered = len(store.answered_ids() & {q.id for q in questions})
        if answered:
            err.print(f"resuming {out}: {answered} of {len(questions)} questions already answered")
        err.print(f"running '{chosen.name}' on {benchmark.name} ({len(questions)} questions) into {out}")
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "ok {task.fields[ok]} · errors {task.fields[errors]} · calls {task.fields[calls]} · "
                "tokens {task.fields[tokens]}"
            ),
            TimeRemainingColumn(),
            console=err,
            disable=not err.is_terminal,
        ) as bar:
            task = bar.add_task(
                chosen.name, total=len(questions), completed=answered, ok=answered, errors=0, calls=0, tokens=0
            )

            def progress(p: RunProgress) -> None:
                tokens = p.usage.prompt_tokens + p.usage.completion_tokens
                bar.update(task, completed=p.done, ok=p.ok, errors=p.errors, calls=p.usage.calls, tokens=tokens)
                if not err.is_terminal and p.answer is not None:
                    err.print(
                        f"  [{p.done}/{p.total}] {p.answer.question_id}: {p.answer.status}"
                        f" ({p.usage.calls} calls so far)"
                    )

            summary = run_benchmark(
                benchmark,
                chosen,
                store,
                pool,
                questions,
                concurrency=concurrency,
                max_calls=max_calls,
                on_progress=progress,
            )
    usage = summary.usage
    err.print(
        f"done: {summary.answered_now} answered now, {summary.already_answered} before, {summary.errors} with errors; "
        f"{usage.calls} model calls ({usage.cache_hits} cached), {usage.prompt_tokens + usage.completion_tokens} tokens"
    )
    if summary.stopped_by_budget:
        err.print(f"stopped at the --max-calls budget; run the same command again to continue {out}")
    return summary
