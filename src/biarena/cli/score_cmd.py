"""`biarena score RUN`: apply scorers (the deterministic metrics unless others are named) to every answer of a run."""

import shlex
import sys
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err
from biarena.cli.model_flags import JUDGE_MODEL_PAIRS, MODELS_FILE, judge_model_options
from biarena.cli.notice_line import notice_listener
from biarena.cli.options import (
    ALLOW_SUPERUSER,
    DB_URL,
    SANDBOX,
    TIMEOUT,
    db_overrides,
    flag,
    sandbox_limits,
)
from biarena.cli.scorer_options import scorer_options
from biarena.db import DatabasePool
from biarena.errors import FormatError, UsageError
from biarena.llm import DEFAULT_MODEL, Model, get_model
from biarena.llm.notices import listening
from biarena.metrics import ScoringBudget, ScoringContext, Tolerance
from biarena.metrics.contracts import split_contract_names
from biarena.metrics.gold_health import gold_metric, scored_gold_health
from biarena.records.runspec import BenchmarkFingerprint
from biarena.runner import RunStore, benchmark_fingerprint
from biarena.scoring import (
    SCORERS,
    ScoreProgress,
    ScorerSetup,
    ScoreSummary,
    default_scorers,
    get_scorer,
    score_run,
    setup_scorers,
)
from biarena.scoring.infos import ScoreInfos, is_judge


def score(
    run_path: Path = typer.Argument(..., metavar="RUN", help="Run file."),
    scorers: list[str] | None = typer.Option(
        None,
        "--scorer",
        metavar="NAME",
        help=f"A scorer to apply (repeatable; default: the deterministic metrics): {', '.join(SCORERS)}.",
    ),
    metrics: str | None = typer.Option(None, "--metrics", help="Comma-separated scorers (the same as --scorer)."),
    option: list[str] | None = typer.Option(
        None,
        "-O",
        metavar="SCORER.NAME=VALUE",
        help="Set a scorer's option (repeatable; SCORER. may be left out when one scorer asked for takes NAME); "
        "`biarena describe scorer NAME` lists them with their defaults.",
    ),
    options_file: Path | None = typer.Option(
        None, "--options", metavar="FILE.yaml", help="Scorers' options: a mapping SCORER: {NAME: VALUE} (-O wins)."
    ),
    contract: list[str] | None = typer.Option(
        None,
        "--contract",
        metavar="NAME",
        help="Also score execution accuracy under this result contract (repeatable or comma-separated): "
        "biarena (the default), spider, spider-keep-distinct, bird, bird-f1, spider2, strict; stored as "
        "execution_accuracy[NAME].",
    ),
    suite: int | None = typer.Option(
        None,
        "--suite",
        metavar="K",
        min=1,
        max=100,
        help="Also score test-suite accuracy: the answer must match the gold on the database and on K neighbour "
        "databases (built once and cached), under each --contract (default biarena); stored as test_suite_accuracy "
        "(test_suite_accuracy[NAME] under another contract).",
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
        None, "--judge", metavar="NAME", help="Also apply this scorer, a judge (repeatable): see --scorer."
    ),
    judge_model: str | None = typer.Option(
        None,
        "--judge-model",
        help="The judges' model, independent of the agent's: local (default), openai:MODEL or openai:MODEL@URL, "
        "or a model named in --models.",
    ),
    judge_model_option: list[str] | None = JUDGE_MODEL_PAIRS,
    models_file: Path | None = MODELS_FILE,
    rubric: list[Path] | None = typer.Option(
        None, "--rubric", metavar="FILE", help="A rubric YAML replacing the built-in one of its kind (repeatable)."
    ),
    concurrency: int = typer.Option(
        1, "--concurrency", min=1, help="Results made at once (scorers without a model take turns)."
    ),
    max_calls: int | None = typer.Option(
        None,
        "--max-calls",
        min=1,
        help="Start no new judgement after N judge model calls (replies from the cache "
        "are free; the scorers without a model go on); run again to continue.",
    ),
    judge_temperature: float = typer.Option(
        0.0, "--judge-temperature", min=0.0, max=2.0, help="The judge model's temperature."
    ),
    failed: bool = flag(
        "--failed", "List every result the run holds that failed (question, scorer, why); score nothing."
    ),
) -> None:
    """Score a run (execution, SER, execution accuracy, semantic and result similarity), and judge it with --judge.

    --scorer NAME applies the named scorers instead of those metrics (any scorer: a metric, a judge, interaction);
    -O SCORER.NAME=VALUE sets a scorer's option. Answers scored with other options are scored again.

    A judgement is stored with every model request and reply (`biarena show RUN --trace ID`); scoring again makes
    no model call for results already stored with the same scorer, rubric and model.

    When max_outage judgements in a row (--judge-M max_outage=N, default 3) get no reply from the judge's server,
    scoring stops (exit code 4) and prints the command that scores the rest.
    """
    if failed:
        _list_failed(run_path)
        return
    # each name with the word an unknown one is called by (the option that named it)
    named = [(n, "scorer") for n in scorers or []]
    named += [(n.strip(), "metric") for n in (metrics or "").split(",") if n.strip()]
    asked = dict([*(named or [(n, "scorer") for n in default_scorers()]), *((n, "judge") for n in judges or [])])
    names = list(asked)
    chosen = scorer_options(names, option, options_file)
    made = [get_scorer(name, noun, **_given(chosen, name)) for name, noun in asked.items()]
    made += contract_scorers(contract, suite, {s.name for s in made})
    names = [s.name for s in made]
    _check_judge_options(made, judge_model, rubric, max_calls, judge_model_option)
    model_options = judge_model_options(judge_model, judge_model_option, models_file, DEFAULT_MODEL)
    built: list[Model] = []

    def make_model() -> Model:
        model = get_model(model_options.spec(), options=model_options, concurrency=concurrency)
        built.append(model)
        return model

    with RunStore(run_path, lock=True) as store:
        store.check()  # a damaged file is refused before scoring writes a result into it
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
                kept=store,
                tolerance=Tolerance(max_decimals=decimals),
                budget=ScoringBudget(seconds=score_budget),
            )
            setups = setup_scorers(
                list(made),
                context,
                model=make_model,
                rubric_files=rubric,
                temperature=judge_temperature,
            )
            shown = next((s.model_spec for s in setups if s.model_spec), None)
            _say(f"scoring {run_path} with {', '.join(names)}" + (f" (judge model {shown})" if shown else ""))
            try:
                summary = _score(store, setups, concurrency, max_calls, rescore, built[0] if built else None)
            except _ServerDown as down:
                stopped: Model | None = down.model
            else:
                stopped = None
            gold = _gold_health_line(store, spec.benchmark if benchmark_arg is None else benchmark_arg)
        finally:
            pool.close()
    if stopped is not None:
        health = stopped.health
        _say(
            f"stopped: {stopped.spec} does not answer ({health.in_a_row} judgements in a row got no reply: "
            f"{health.last_error[:120]}); {health.answered} model calls answered; "
            f"score the rest when it is back: {_resume_command()}"
        )
        raise typer.Exit(4)
    _say(_done_line(summary, any(s.scorer.needs_model for s in setups)) + f"; next: biarena show {run_path}")
    if summary.stopped_by_budget:
        _say(f"stopped at the --max-calls budget with {summary.pending} judgements left; run the same command again")
    if summary.unreached:
        _say(f"{summary.unreached} judgements not made: the model's server did not answer; run the same command again")
    if summary.failed:
        _say_failures(summary.failures, run_path)
    if gold is not None:
        _say(gold)


def _gold_health_line(store: RunStore, benchmark: str) -> str | None:
    """`gold: ...`: how many questions the gold metric counts, and why it leaves the others out (None when it
    counts every question, or the run has no gold metric)."""
    scores = store.scores()
    name = gold_metric({s.name for s in scores}, ScoreInfos.of(scores))
    if name is None:
        return None
    health = scored_gold_health(store.questions(), scores, name)
    if health.healthy and not health.without_gold:
        return None
    examples = ", ".join(qid for qid, _ in (health.failing + health.undetermined)[:5])
    audit = f"; see them with biarena audit {benchmark}" if not health.healthy else ""
    return (
        f"gold: {name} counts {health.usable} of {health.questions} questions ({health.problems()}"
        + (f"; e.g. {examples}" if examples else "")
        + f"){audit}"
    )


SHOWN_FAILURES = 10
"""Failed results `score` names after a pass; `score RUN --failed` lists them all."""


def _failure_line(question_id: str, scorer: str, why: str) -> str:
    lines = why.strip().splitlines()
    return f"  {question_id} ({scorer}): {(lines[0] if lines else why)[:200]}"


def _say_failures(failures: list[tuple[str, str, str]], run_path: Path) -> None:
    """The results that failed in this pass: the first few with why, and how to see the rest and each one's trace."""
    _say(f"{len(failures)} failed:")
    for failure in failures[:SHOWN_FAILURES]:
        _say(_failure_line(*failure))
    rest = len(failures) - SHOWN_FAILURES
    if rest > 0:
        _say(f"  ... and {rest} more: list them all with biarena score {run_path} --failed")
    _say(f"a question's scoring in full: biarena show {run_path} --trace QUESTION_ID")


def _list_failed(run_path: Path) -> None:
    """Print every failed result the run holds, one a line, to stdout."""
    with RunStore(run_path) as store:
        if store.spec() is None:
            raise FormatError(f"{run_path}: the run has no answers yet")
        failures = [(r.question_id, r.scorer, r.failed) for r in store.results() if r.failed is not None]
    for failure in failures:
        sys.stdout.write(_failure_line(*failure).strip() + "\n")
    _say(f"{len(failures)} failed results in {run_path}")


def contract_scorers(contracts: list[str] | None, suite: int | None, present: set[str]) -> list:
    """The scorers --contract and --suite ask for: execution accuracy under each contract, and test-suite accuracy
    of size `suite` under each (biarena when none is named); those already asked for are left out."""
    names = split_contract_names(contracts)
    made = [get_scorer(f"execution_accuracy[{name}]") for name in names]
    if suite is not None:
        made += [get_scorer(f"test_suite_accuracy[{name}]", k=suite) for name in names or ["biarena"]]
    return [scorer for scorer in made if scorer.name not in present]


def _given(chosen: dict, name: str) -> dict:
    """The keyword that hands a scorer the options the user set (none when the user set none)."""
    return {"options": chosen[name]} if name in chosen else {}


class _ServerDown(Exception):
    """Scoring stops: the judge's server does not answer."""

    def __init__(self, model: Model) -> None:
        super().__init__(model.spec)
        self.model = model


def _resume_command() -> str:
    """The command that scores what is left after an outage: the same one (judgements the outage stopped were not
    stored, so they are made then)."""
    return shlex.join(["biarena", *sys.argv[1:]])


def _check_judge_options(
    made: list, judge_model: str | None, rubric: list[Path] | None, max_calls: int | None, pairs: list[str] | None
) -> None:
    """Refuse the judges' options when no judge (nor any scorer that calls a model) is asked for."""
    if any(s.needs_model or is_judge(s.name) for s in made):
        return
    given = (("--judge-model", judge_model), ("--judge-M", pairs), ("--rubric", rubric), ("--max-calls", max_calls))
    for option, value in given:
        if value:
            raise UsageError(f"{option} applies to judges: name one with --judge NAME")


def _done_line(summary: ScoreSummary, with_model: bool) -> str:
    """What the pass did, in one line."""
    line = (
        f"done: {summary.answers_scored} answers scored now, {summary.answers_skipped} already scored; "
        f"{summary.scored_now} results now ({summary.failed} failed), {summary.skipped} already made, "
        f"{summary.not_applicable} not applicable"
    )
    if with_model:
        usage = summary.usage
        line += (
            f"; {usage.calls} model calls ({usage.cache_hits} from the cache), "
            f"{usage.prompt_tokens + usage.completion_tokens} tokens"
        )
    return line


def _say(text: str) -> None:
    err.print(text, markup=False, highlight=False)


def _score(
    store: RunStore,
    setups: list[ScorerSetup],
    concurrency: int,
    max_calls: int | None,
    rescore: bool,
    model: Model | None = None,
) -> ScoreSummary:
    """Run the scorers with a progress bar on a terminal; otherwise one line per judgement. Raises _ServerDown
    when the judges' model's server stops answering."""
    judges = {s.scorer.name for s in setups if is_judge(s.scorer.name) or s.scorer.needs_model}
    with Progress(
        TextColumn("{task.description}", markup=False, style="bold"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            "failed {task.fields[failed]} · calls {task.fields[calls]} · tokens {task.fields[tokens]}", markup=False
        ),
        TimeRemainingColumn(),
        TextColumn("{task.fields[waiting]}", markup=False, style="yellow"),
        console=err,
        disable=not err.is_terminal,
    ) as bar:
        task = bar.add_task("scoring", total=None, failed=0, calls=0, tokens=0, waiting="")

        def progress(p: ScoreProgress) -> None:
            tokens = p.usage.prompt_tokens + p.usage.completion_tokens
            bar.update(
                task, total=p.total, completed=p.done, failed=p.failed, calls=p.usage.calls, tokens=tokens, waiting=""
            )
            if not err.is_terminal and p.scorer in judges:
                _say(f"  [{p.done}/{p.total}] {p.question_id} {p.scorer}: {_verdict(p)}")
            if model is not None and model.health.down:
                raise _ServerDown(model)

        notice = notice_listener(err.is_terminal, lambda text: bar.update(task, waiting=text), _say)

        with listening(notice):
            return score_run(
                store, setups, concurrency=concurrency, max_calls=max_calls, rescore=rescore, on_progress=progress
            )


def _verdict(p: ScoreProgress) -> str:
    """A result in a few words: its headline score, or why it failed."""
    record = p.record
    if record.failed:
        return f"failed: {record.failed.splitlines()[0][:200]}"
    values = {s.name: s for s in record.scores}
    head = values.get(p.scorer)
    if head is not None and head.value is not None:
        shown = f"{head.value:.3g}"
    else:
        first = head or next(iter(values.values()), None)
        shown = (first.rationale if first is not None else None) or "no score"
    spent = sum(1 + len(e.rejected) for e in record.trace if not e.cached)
    return shown + (f" ({spent} model calls)" if spent else "")


def _check_same_databases(run_path: Path, made_on: BenchmarkFingerprint, now: BenchmarkFingerprint) -> None:
    """Refuse to score against databases that changed since the run: the scores would mix two datasets."""
    changed = [name for name, checksum in made_on.databases.items() if now.databases.get(name) != checksum]
    if changed:
        raise UsageError(
            f"{run_path}: database '{changed[0]}' is not the one the run was made on (its checksum changed); "
            "score with --benchmark DIR to use the benchmark as it is now"
        )
