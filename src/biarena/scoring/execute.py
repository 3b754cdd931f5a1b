"""execute_score: the scoring workflow (`biarena score`, `biarena.score(...)`): scorers applied to every answer of a
run file, reported through events; and failed_results, the failures a run holds."""

from dataclasses import dataclass
from pathlib import Path

from biarena.benchmarks import resolve_benchmark
from biarena.db import DatabasePool
from biarena.db.overrides import db_overrides, sandbox_limits
from biarena.errors import FormatError, UsageError
from biarena.events import EventHandler, Message, ignore
from biarena.llm import DEFAULT_MODEL, Model, get_model
from biarena.llm.model_options import resolve_model
from biarena.llm.notices import listening
from biarena.options import value_pairs
from biarena.records.runspec import BenchmarkFingerprint
from biarena.runner import RunStore, benchmark_fingerprint
from biarena.scoring import ScoringBudget, ScoringContext, Tolerance
from biarena.scoring.contract_names import split_contract_names
from biarena.scoring.events import ScoreEnded, ScoreStarted, ScoreStopped
from biarena.scoring.gold_health import gold_metric, scored_gold_health
from biarena.scoring.infos import ScoreInfos, is_judge
from biarena.scoring.loop import ScoreProgress, ScoreSummary, score_run
from biarena.scoring.registry import default_scorers, get_scorer
from biarena.scoring.score_settings import ScoreSettings
from biarena.scoring.scorer_options import scorer_options
from biarena.scoring.setup import setup_scorers

SHOWN_FAILURES = 10
"""Failed results a scoring pass names after it; `failed_results` lists them all."""


@dataclass(frozen=True)
class ScoreOutcome:
    """What a scoring pass did (None when it stopped for an outage) and the scorers it applied."""

    run: Path
    summary: ScoreSummary | None
    scorers: list[str]

    @property
    def stopped(self) -> bool:
        """The judges' model's server stopped answering before scoring was done."""
        return self.summary is None


def execute_score(settings: ScoreSettings, on_event: EventHandler = ignore) -> ScoreOutcome:
    """Score the run file `settings.run` with its scorers, reporting through `on_event`: messages, `ScoreStarted`,
    a `ScoreProgress` per result, model notices, `ScoreEnded` (or `ScoreStopped` when the judges' model's server
    stops answering). Results already stored are not made again unless `rescore`."""
    run_path = settings.run
    # each name with the word an unknown one is called by (the option that named it)
    named = [(n, "scorer") for n in settings.scorers or []]
    named += [(n.strip(), "metric") for n in (settings.metrics or "").split(",") if n.strip()]
    judges = settings.judges or []
    asked = dict([*(named or [(n, "scorer") for n in default_scorers()]), *((n, "judge") for n in judges)])
    names = list(asked)
    given = settings.options
    if isinstance(given, list):
        chosen = scorer_options(names, given, settings.options_file)
    else:
        chosen = scorer_options(names, None, settings.options_file, given=given)
    made = [get_scorer(name, noun, **_given(chosen, name)) for name, noun in asked.items()]
    made += contract_scorers(settings.contract, settings.suite, {s.name for s in made})
    names = [s.name for s in made]
    model_pairs = settings.judge_model_options
    pairs = model_pairs if isinstance(model_pairs, list) else value_pairs(model_pairs)
    _check_judge_options(made, settings.judge_model, settings.rubric, settings.max_calls, pairs)
    model_options = resolve_model(settings.judge_model or DEFAULT_MODEL, pairs, settings.models_file, flag="--judge-M")
    built: list[Model] = []

    def make_model() -> Model:
        model = get_model(model_options.spec(), options=model_options, concurrency=settings.concurrency)
        built.append(model)
        return model

    with RunStore(run_path, lock=True) as store:
        store.check()  # a damaged file is refused before scoring writes a result into it
        spec = store.spec()
        if spec is None:
            raise FormatError(f"{run_path}: the run has no answers yet")
        benchmark = resolve_benchmark(settings.benchmark or spec.benchmark)
        overrides = db_overrides(settings.db_url, benchmark) or spec.options.get("db_urls")
        limits = sandbox_limits(settings.sandbox, settings.timeout)
        pool = DatabasePool(benchmark, overrides=overrides, limits=limits, allow_superuser=settings.allow_superuser)
        try:
            pool.open_all()
            if settings.benchmark is None and not settings.db_url and spec.fingerprint is not None:
                _check_same_databases(run_path, spec.fingerprint, benchmark_fingerprint(benchmark, pool, []))
            budget = ScoringBudget() if settings.score_budget is None else ScoringBudget(seconds=settings.score_budget)
            context = ScoringContext(
                benchmark=benchmark,
                databases=pool,
                kept=store,
                tolerance=Tolerance(max_decimals=settings.decimals),
                budget=budget,
            )
            setups = setup_scorers(
                list(made),
                context,
                model=make_model,
                rubric_files=settings.rubric,
                temperature=settings.judge_temperature,
            )
            shown = next((s.model_spec for s in setups if s.model_spec), None)
            on_event(
                Message(f"scoring {run_path} with {', '.join(names)}" + (f" (judge model {shown})" if shown else ""))
            )
            calling = frozenset(s.scorer.name for s in setups if is_judge(s.scorer.name) or s.scorer.needs_model)
            on_event(ScoreStarted(calling))

            def progress(p: ScoreProgress) -> None:
                on_event(p)
                if built and built[0].health.down:
                    raise _ServerDown(built[0])

            try:
                with listening(on_event):
                    summary: ScoreSummary | None = score_run(
                        store,
                        setups,
                        concurrency=settings.concurrency,
                        max_calls=settings.max_calls,
                        rescore=settings.rescore,
                        on_progress=progress,
                    )
            except _ServerDown as down:
                summary, stopped = None, down.model
            on_event(ScoreEnded())
            gold = _gold_health_line(store, spec.benchmark if settings.benchmark is None else settings.benchmark)
        finally:
            pool.close()
    if summary is None:
        health = stopped.health
        on_event(ScoreStopped(stopped.spec, health.in_a_row, health.last_error, health.answered))
        return ScoreOutcome(run_path, None, names)
    lines = [_done_line(summary, any(s.scorer.needs_model for s in setups)) + f"; next: biarena show {run_path}"]
    if summary.stopped_by_budget:
        lines.append(
            f"stopped at the --max-calls budget with {summary.pending} judgements left; run the same command again"
        )
    if summary.unreached:
        lines.append(
            f"{summary.unreached} judgements not made: the model's server did not answer; run the same command again"
        )
    if summary.failed:
        lines += _failure_lines(summary.failures, run_path)
    if gold is not None:
        lines.append(gold)
    for line in lines:
        on_event(Message(line))
    return ScoreOutcome(run_path, summary, names)


def failed_results(run_path: Path) -> list[tuple[str, str, str]]:
    """Every failed result the run file holds: (question id, scorer, why)."""
    with RunStore(run_path) as store:
        if store.spec() is None:
            raise FormatError(f"{run_path}: the run has no answers yet")
        return [(r.question_id, r.scorer, r.failed) for r in store.results() if r.failed is not None]


def failure_line(question_id: str, scorer: str, why: str) -> str:
    """A failed result in one line: `  q0001 (scorer): why` (why's first line, cut at 200 characters)."""
    lines = why.strip().splitlines()
    return f"  {question_id} ({scorer}): {(lines[0] if lines else why)[:200]}"


def _failure_lines(failures: list[tuple[str, str, str]], run_path: Path) -> list[str]:
    """The results that failed in this pass: the first few with why, and how to see the rest and each one's trace."""
    lines = [f"{len(failures)} failed:", *(failure_line(*failure) for failure in failures[:SHOWN_FAILURES])]
    rest = len(failures) - SHOWN_FAILURES
    if rest > 0:
        lines.append(f"  ... and {rest} more: list them all with biarena score {run_path} --failed")
    lines.append(f"a question's scoring in full: biarena show {run_path} --trace QUESTION_ID")
    return lines


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


def _check_same_databases(run_path: Path, made_on: BenchmarkFingerprint, now: BenchmarkFingerprint) -> None:
    """Refuse to score against databases that changed since the run: the scores would mix two datasets."""
    changed = [name for name, checksum in made_on.databases.items() if now.databases.get(name) != checksum]
    if changed:
        raise UsageError(
            f"{run_path}: database '{changed[0]}' is not the one the run was made on (its checksum changed); "
            "score with --benchmark DIR to use the benchmark as it is now"
        )
