"""`biarena score RUN`: apply the deterministic metrics, and any judges asked for, to every answer of a run."""

from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err
from biarena.cli.options import ALLOW_SUPERUSER, DB_URL, SANDBOX, TIMEOUT, db_overrides, flag, sandbox_limits
from biarena.db import DatabasePool
from biarena.errors import FormatError, NotFoundError, UsageError, did_you_mean
from biarena.judges import JUDGE_CLASSES
from biarena.judges.judge_run import JudgeProgress, JudgeSetup, JudgeSummary, judge_run, setup_judges
from biarena.llm import DEFAULT_MODEL, get_model
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
    judges: list[str] | None = typer.Option(
        None, "--judge", metavar="NAME", help=f"Also judge the answers (repeatable): {', '.join(JUDGE_CLASSES)}."
    ),
    judge_model: str | None = typer.Option(
        None,
        "--judge-model",
        help="The judges' model, independent of the agent's: local (default), openai:MODEL or openai:MODEL@URL.",
    ),
    rubric: list[Path] | None = typer.Option(
        None, "--rubric", metavar="FILE", help="A rubric YAML replacing the built-in one of its kind (repeatable)."
    ),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Judgements made at once."),
    max_calls: int | None = typer.Option(
        None,
        "--max-calls",
        min=1,
        help="Start no new judgement after N judge model calls (replies from the cache "
        "are free); run again to continue.",
    ),
    judge_temperature: float = typer.Option(
        0.0, "--judge-temperature", min=0.0, max=2.0, help="The judge model's temperature."
    ),
) -> None:
    """Score a run (execution, SER, execution accuracy, semantic and result similarity), and judge it with --judge.

    A judgement is stored with every model request and reply (`biarena show RUN --trace ID`); scoring again makes
    no model call for judgements already stored with the same judge, rubric and judge model.
    """
    if not judges:
        for option, given in (("--judge-model", judge_model), ("--rubric", rubric), ("--max-calls", max_calls)):
            if given:
                raise UsageError(f"{option} applies to judges: name one with --judge NAME")
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
            setups = []
            if judges:
                setups = setup_judges(
                    judges,
                    context,
                    model=lambda: get_model(judge_model or DEFAULT_MODEL, concurrency=concurrency),
                    rubric_files=rubric,
                    temperature=judge_temperature,
                )
            scorers = [SCORERS[n]() for n in names]
            err.print(f"scoring {run_path} with {', '.join(names)}", markup=False)
            summary = score_run(store, context, scorers, rescore=rescore)
            if summary.failed:
                _say(f"warning: {summary.failed} scorer calls failed on an answer; those scores are 0 with the error")
            if setups:
                _say(
                    f"scored: {summary.scored_now} answers now, {summary.skipped} already scored; "
                    f"judging with {', '.join(s.judge.name for s in setups)}"
                    + (f" (judge model {model})" if (model := _model_of(setups)) else "")
                )
                judged = _judge(store, setups, concurrency, max_calls, rescore)
        finally:
            pool.close()
    if not setups:
        _say(
            f"done: {summary.scored_now} answers scored now, {summary.skipped} already scored; "
            f"next: biarena show {run_path}"
        )
        return
    _say(
        f"done: {judged.judged_now} judgements now ({judged.failed} failed), {judged.skipped} already made, "
        f"{judged.not_applicable} not applicable; {judged.usage.calls} model calls ({judged.usage.cache_hits} from "
        f"the cache), {judged.usage.prompt_tokens + judged.usage.completion_tokens} tokens; "
        f"next: biarena show {run_path}"
    )
    if judged.stopped_by_budget:
        _say(f"stopped at the --max-calls budget with {judged.pending} judgements left; run the same command again")
    if judged.failed:
        _say(f"{judged.failed} judgements failed: see why with biarena show {run_path} --trace QUESTION_ID")


def _say(text: str) -> None:
    err.print(text, markup=False, highlight=False)


def _model_of(setups: list[JudgeSetup]) -> str | None:
    return next((s.model_spec for s in setups if s.model_spec), None)


def _judge(
    store: RunStore, setups: list[JudgeSetup], concurrency: int, max_calls: int | None, rescore: bool
) -> JudgeSummary:
    """Run the judges with a progress bar on a terminal, one line per judgement otherwise."""
    with Progress(
        TextColumn("{task.description}", markup=False, style="bold"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            "failed {task.fields[failed]} · calls {task.fields[calls]} · tokens {task.fields[tokens]}", markup=False
        ),
        TimeRemainingColumn(),
        console=err,
        disable=not err.is_terminal,
    ) as bar:
        task = bar.add_task("judging", total=None, failed=0, calls=0, tokens=0)

        def progress(p: JudgeProgress) -> None:
            tokens = p.usage.prompt_tokens + p.usage.completion_tokens
            bar.update(task, total=p.total, completed=p.done, failed=p.failed, calls=p.usage.calls, tokens=tokens)
            if not err.is_terminal:
                _say(f"  [{p.done}/{p.total}] {p.question_id} {p.judge}: {_verdict(p)}")

        return judge_run(
            store, setups, concurrency=concurrency, max_calls=max_calls, rescore=rescore, on_progress=progress
        )


def _verdict(p: JudgeProgress) -> str:
    """A judgement in a few words: its headline score, or why it failed."""
    judgement = p.judgement
    if judgement.failed:
        return f"failed: {judgement.failed.splitlines()[0][:200]}"
    head = judgement.scores.get(p.judge)
    shown = f"{head:.3g}" if head is not None else judgement.rationale or "no score"
    spent = sum(1 + len(e.rejected) for e in judgement.trace if not e.cached)
    return shown + (f" ({spent} model calls)" if spent else "")


def _check_same_databases(run_path: Path, made_on: BenchmarkFingerprint, now: BenchmarkFingerprint) -> None:
    """Refuse to score against databases that changed since the run: the scores would mix two datasets."""
    changed = [name for name, checksum in made_on.databases.items() if now.databases.get(name) != checksum]
    if changed:
        raise UsageError(
            f"{run_path}: database '{changed[0]}' is not the one the run was made on (its checksum changed); "
            "score with --benchmark DIR to use the benchmark as it is now"
        )
