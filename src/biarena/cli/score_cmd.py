"""`biarena score RUN`: apply the deterministic metrics to every answer of a run."""

from pathlib import Path

import typer

from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err
from biarena.cli.options import DB_URL, TIMEOUT, db_overrides
from biarena.db import DatabasePool
from biarena.errors import FormatError, NotFoundError, did_you_mean
from biarena.metrics import SCORERS, ScoringContext, Tolerance
from biarena.metrics.score_run import score_run
from biarena.runner import RunStore


def score(
    run_path: Path = typer.Argument(..., metavar="RUN", help="Run file."),
    metrics: str | None = typer.Option(
        None, "--metrics", help=f"Comma-separated scorers (default all: {', '.join(SCORERS)})."
    ),
    rescore: bool = typer.Option(False, "--rescore", help="Score again answers already scored."),
    benchmark_arg: str | None = typer.Option(None, "--benchmark", help="Benchmark to use instead of the run's own."),
    decimals: int = typer.Option(6, "--decimals", min=0, max=15, help="Numbers equal to this many decimals are equal."),
    db_url: list[str] | None = DB_URL,
    timeout: float = TIMEOUT,
) -> None:
    """Score a run (execution, SER, execution accuracy, semantic and result similarity)."""
    names = [n.strip() for n in metrics.split(",") if n.strip()] if metrics else list(SCORERS)
    for name in names:
        if name not in SCORERS:
            raise NotFoundError(
                f"unknown metric '{name}'{did_you_mean(name, list(SCORERS))} (known: {', '.join(SCORERS)})"
            )
    with RunStore(run_path) as store:
        spec = store.spec()
        if spec is None:
            raise FormatError(f"{run_path}: the run has no answers yet")
        benchmark = resolve_benchmark(benchmark_arg or spec.benchmark)
        overrides = db_overrides(db_url, benchmark) or spec.options.get("db_urls")
        pool = DatabasePool(benchmark, overrides=overrides, timeout=timeout)
        pool.open_all()
        context = ScoringContext(benchmark=benchmark, databases=pool, tolerance=Tolerance(max_decimals=decimals))
        scorers = [SCORERS[n]() for n in names]
        err.print(f"scoring {run_path} with {', '.join(names)}")
        summary = score_run(store, context, scorers, rescore=rescore)
        pool.close()
    err.print(
        f"done: {summary.scored_now} answers scored now, {summary.skipped} already scored; "
        f"next: biarena show {run_path}"
    )
