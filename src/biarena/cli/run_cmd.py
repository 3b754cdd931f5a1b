"""`biarena run BENCH --system NAME -o RUN`: answer a benchmark's questions into a resumable run file."""

from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from biarena.agents import System, make_system
from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err
from biarena.cli.options import DB_URL, TIMEOUT, db_overrides
from biarena.db import DatabasePool
from biarena.records import Benchmark, Question
from biarena.runner import (
    RunProgress,
    RunStore,
    make_spec,
    open_run,
    run_benchmark,
    select_questions,
)


def run(
    benchmark_arg: str = typer.Argument(..., metavar="BENCH", help="Benchmark directory or built-in name."),
    system: str = typer.Option(..., "--system", help="System to run: gold, predictions."),
    predictions: Path | None = typer.Option(None, "--predictions", help="JSONL of {question_id, sql} (predictions)."),
    out: Path = typer.Option(..., "-o", "--out", help="Run file to write (resumed when it exists)."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N questions."),
    db_url: list[str] | None = DB_URL,
    timeout: float = TIMEOUT,
) -> None:
    """Run a system over a benchmark; a killed run resumes where it stopped."""
    benchmark = resolve_benchmark(benchmark_arg)
    options = {"predictions": predictions} if predictions is not None else {}
    chosen = make_system(system, **options)
    questions = select_questions(benchmark, limit)
    overrides = db_overrides(db_url, benchmark)
    pool = DatabasePool(benchmark, overrides=overrides, timeout=timeout)
    try:
        _run(benchmark_arg, benchmark, chosen, questions, pool, out, overrides)
    finally:
        pool.close()


def _run(
    benchmark_arg: str,
    benchmark: Benchmark,
    chosen: System,
    questions: list[Question],
    pool: DatabasePool,
    out: Path,
    overrides: dict[str, str] | None,
) -> None:
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
            TextColumn("ok {task.fields[ok]} · errors {task.fields[errors]}"),
            TimeRemainingColumn(),
            console=err,
            disable=not err.is_terminal,
        ) as bar:
            task = bar.add_task(chosen.name, total=len(questions), completed=answered, ok=answered, errors=0)

            def progress(p: RunProgress) -> None:
                bar.update(task, completed=p.done, ok=p.ok, errors=p.errors)

            summary = run_benchmark(benchmark, chosen, store, pool, questions, on_progress=progress)
    err.print(
        f"done: {summary.answered_now} answered now, {summary.already_answered} before, "
        f"{summary.errors} with errors; next: biarena score {out}"
    )
