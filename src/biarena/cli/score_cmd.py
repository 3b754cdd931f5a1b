"""`biarena score RUN`: apply the deterministic metrics to every answer of a run."""

from pathlib import Path

import typer

from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err
from biarena.cli.options import ALLOW_SUPERUSER, DB_URL, SANDBOX, TIMEOUT, db_overrides, flag, sandbox_limits
from biarena.db import DatabasePool
from biarena.errors import FormatError, NotFoundError, UsageError, did_you_mean
from biarena.metrics import SCORERS, ScoringBudget, ScoringContext, Tolerance
from biarena.metrics.score_run import score_run
from biarena.records.runspec import BenchmarkFingerprint
from biarena.runner import RunStore, benchmark_fingerprint


def score(
    run_path: Path = typer.Argument(..., metavar="RUN", help="Run file."),
    metrics: str | None = typer.Option(
        None, "--metrics", help=f"Comma-separated scorers (default all: {', '.join(SCORERS)})."
    ),
    rescore: bool = flag("--rescore", "Score again answers already scored."),
    benchmark_arg: str | None = typer.Option(
        None, "--benchmark", help="Benchmark to use instead of the run's own (its databases are then not checked)."
    ),
    decimals: int = typer.Option(6, "--decimals", min=0, max=15, help="Numbers equal to this many decimals are equal."),
    db_url: list[str] | None = DB_URL,
    timeout: float = TIMEOUT,
    sandbox: list[str] | None = SANDBOX,
    allow_superuser: bool = ALLOW_SUPERUSER,
    score_budget: float = typer.Option(
        ScoringBudget().seconds,
        "--score-budget",
        min=0.01,
        help="Seconds of comparison work per answer besides running its SQL; an answer over it, or too large "
        "to compare, scores 0 with the reason.",
    ),
) -> None:
    """Score a run (execution, SER, execution accuracy, semantic and result similarity)."""
    names = [n.strip() for n in metrics.split(",") if n.strip()] if metrics else list(SCORERS)
    for name in names:
        if name not in SCORERS:
            raise NotFoundError(
                f"unknown metric '{name}'{did_you_mean(name, list(SCORERS))} (known: {', '.join(SCORERS)})"
            )
    with RunStore(run_path, lock=True) as store:
        spec = store.spec()
        if spec is None:
            raise FormatError(f"{run_path}: the run has no answers yet")
        benchmark = resolve_benchmark(benchmark_arg or spec.benchmark)
        overrides = db_overrides(db_url, benchmark) or spec.options.get("db_urls")
        limits = sandbox_limits(sandbox, timeout)
        pool = DatabasePool(benchmark, overrides=overrides, limits=limits, allow_superuser=allow_superuser)
        try:
            pool.open_all()
            if benchmark_arg is None and not db_url and spec.fingerprint is not None:
                _check_same_databases(run_path, spec.fingerprint, benchmark_fingerprint(benchmark, pool, []))
            context = ScoringContext(
                benchmark=benchmark,
                databases=pool,
                tolerance=Tolerance(max_decimals=decimals),
                budget=ScoringBudget(seconds=score_budget),
            )
            scorers = [SCORERS[n]() for n in names]
            err.print(f"scoring {run_path} with {', '.join(names)}", markup=False)
            summary = score_run(store, context, scorers, rescore=rescore)
        finally:
            pool.close()
    if summary.failed:
        err.print(f"warning: {summary.failed} scorer calls failed on an answer; those scores are 0 with the error")
    err.print(
        f"done: {summary.scored_now} answers scored now, {summary.skipped} already scored; "
        f"next: biarena show {run_path}",
        markup=False,
    )


def _check_same_databases(run_path: Path, made_on: BenchmarkFingerprint, now: BenchmarkFingerprint) -> None:
    """Refuse to score against databases that changed since the run: the scores would mix two datasets."""
    changed = [name for name, checksum in made_on.databases.items() if now.databases.get(name) != checksum]
    if changed:
        raise UsageError(
            f"{run_path}: database '{changed[0]}' is not the one the run was made on (its checksum changed); "
            "score with --benchmark DIR to use the benchmark as it is now"
        )
