"""execute_run: the run workflow (`biarena run`, `biarena.run(...)`): a system over a benchmark into a run file,
reported through events; and answer_questions, its part that answers into an open pool with a made system."""

from dataclasses import dataclass
from pathlib import Path

from biarena.agents import MODEL_AGENTS, System, system_factory
from biarena.agents.predictions import NO_PREDICTION, PredictionsSystem
from biarena.benchmarks import resolve_benchmark
from biarena.benchmarks.options_file import read_options_file
from biarena.db import DatabasePool
from biarena.db.overrides import db_overrides, sandbox_limits
from biarena.errors import UsageError
from biarena.events import EventHandler, Message, ignore
from biarena.llm import DEFAULT_MODEL, Model
from biarena.llm.model_options import ModelOptions, resolve_model
from biarena.llm.notices import listening
from biarena.llm.redact import masked_replies_line, replies_masked
from biarena.llm.structured import check_level
from biarena.options import Options, options_model, parse_option_pairs, validate_options, value_pairs
from biarena.records import Benchmark, Question
from biarena.runner.build_system import build_system
from biarena.runner.events import RunEnded, RunStarted, RunStopped
from biarena.runner.fingerprint import benchmark_fingerprint
from biarena.runner.run import RunSummary, make_spec, open_run, run_benchmark, select_questions
from biarena.runner.run_settings import RunSettings
from biarena.runner.store import RunStore

SHOWN_ERRORS = 3
"""The most common errors a run's summary names."""
REPLAYS = frozenset({"gold", "predictions"})
"""Systems that replay fixed SQL: asking them again gives the same answer."""


@dataclass(frozen=True)
class RunResult:
    """What a run did: its summary, and whether its system asked a model (whose errors may be asked again)."""

    out: Path
    summary: RunSummary
    uses_model: bool


def agent_options(name: str, values: dict | list[str], file: Path | None = None) -> Options:
    """The options of agent `name`: an options file's, then `values` (a mapping, or `NAME=VALUE` texts) over them."""
    model = options_model(system_factory(name))
    given = read_options_file(file) if file is not None else {}
    given.update(parse_option_pairs(model, values, "-O") if isinstance(values, list) else dict(values))
    return validate_options(model, given, f"agent '{name}'", "-O")


def run_model(settings: RunSettings) -> ModelOptions | None:
    """The model the run's agent asks (None for an agent without one, which is refused a model setting)."""
    pairs = [f"structured={settings.structured}"] if settings.structured is not None else []
    pairs += [f"prices={settings.prices}"] if settings.prices is not None else []
    pairs += ["cache=false"] if settings.no_cache else []
    given = settings.model_options
    pairs += given if isinstance(given, list) else value_pairs(given)
    if settings.agent in MODEL_AGENTS:
        return resolve_model(settings.model or DEFAULT_MODEL, pairs, settings.models_file)
    if settings.model is not None or pairs:
        aliases = (
            ("--model", settings.model is not None),
            ("--structured", settings.structured is not None),
            ("--prices", settings.prices is not None),
            ("--no-cache", settings.no_cache),
        )
        said = next((flag for flag, given in aliases if given), "-M")
        raise UsageError(f"agent '{settings.agent}' does not use a model ({said})")
    return None


def execute_run(settings: RunSettings, on_event: EventHandler = ignore) -> RunResult:
    """Run `settings.agent` over the benchmark into `settings.out`: start, resume or grow the run file, answer its
    questions and summarize, reporting through `on_event`. Bad input is a BiarenaError before anything is asked.

    Stops early (the summary says `stopped_by_outage`) when the model's server stops answering; an interrupt
    (KeyboardInterrupt) keeps the answers recorded so far."""
    if settings.label is not None and not settings.label.strip():
        raise UsageError("--label must not be empty")
    options = agent_options(settings.agent, settings.options, settings.options_file)
    benchmark = resolve_benchmark(settings.benchmark)
    if settings.accepted_only:
        from biarena.generate.validation import accepted_only

        benchmark = accepted_only(benchmark)
    check_level(settings.structured)
    chosen_model = run_model(settings)
    chosen = build_system(settings.agent, concurrency=settings.concurrency, options=options, model_options=chosen_model)
    questions = select_questions(benchmark, settings.limit, settings.per_category)
    overrides = db_overrides(settings.db_url, benchmark)
    limits = sandbox_limits(settings.sandbox, settings.timeout)
    pool = DatabasePool(benchmark, overrides=overrides, limits=limits, allow_superuser=settings.allow_superuser)
    try:
        summary = answer_questions(
            settings.benchmark,
            benchmark,
            chosen,
            questions,
            pool,
            settings.out,
            overrides,
            concurrency=settings.concurrency,
            max_calls=settings.max_calls,
            label=settings.label,
            force=settings.force,
            retry_errors=settings.retry_errors,
            repeats=settings.repeats,
            partial=settings.partial,
            on_event=on_event,
        )
    finally:
        pool.close()
    return RunResult(settings.out, summary, isinstance(getattr(chosen, "model", None), Model))


def answer_questions(
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
    label: str | None = None,
    force: bool = False,
    retry_errors: bool = False,
    partial: bool = False,
    repeats: int | None = None,
    on_event: EventHandler = ignore,
) -> RunSummary:
    """Open (start, resume or grow) the run file, answer its questions and summarize, reporting through `on_event`:
    messages, `RunStarted`, a `RunProgress` per answer, model notices, then `RunEnded` (or `RunStopped`).

    A predictions file that does not match the questions is refused (UsageError) unless `partial`. `repeats`
    asks each question that many times (None: as many as the run file records, 1 for a new one)."""

    def say(text: str) -> None:
        on_event(Message(text))

    masked_before = replies_masked()
    pool.open_all()
    location = str(Path(benchmark_arg).resolve()) if Path(benchmark_arg).is_dir() else benchmark_arg
    fingerprint = benchmark_fingerprint(benchmark, pool, questions)
    spec = make_spec(
        location,
        benchmark,
        chosen,
        questions,
        {"db_urls": overrides} if overrides else None,
        label=label,
        fingerprint=fingerprint,
    )
    mismatch = _check_coverage(chosen, benchmark, questions, partial) if isinstance(chosen, PredictionsSystem) else None
    model = getattr(chosen, "model", None)
    with RunStore(out, create=True) as store:
        opening = open_run(store, spec, questions, force=force, order=[q.id for q in benchmark.questions])
        if mismatch is not None:  # said once the run file is known to be this run's
            say(mismatch)
        selected = {q.id for q in questions}
        recorded = 1 if opening.started else store.repeats()
        asked = repeats or recorded
        if max(asked, recorded) > 1:  # a smaller --repeats asks fewer tries now; the run still holds its others
            store.set_repeats(max(asked, recorded))
        answered = sum(len(store.at_try(number).answered_ids() & selected) for number in range(asked))
        if opening.restarted:
            say(f"--force: {out} started over")
        if opening.added and not opening.started:
            say(f"growing {out} by {opening.added} questions")
        if answered:
            what = f"answers ({asked} tries of {len(questions)} questions)" if asked > 1 else "questions"
            say(f"resuming {out}: {answered} of {len(questions) * asked} {what} already answered")
        each = f", {asked} tries each" if asked > 1 else ""
        say(f"running '{chosen.name}' on {benchmark.name} ({len(questions)} questions{each}) into {out}")
        on_event(RunStarted(chosen.name, len(questions) * asked, answered, asked))
        with listening(on_event):
            summary = run_benchmark(
                benchmark,
                chosen,
                store,
                pool,
                questions,
                concurrency=concurrency,
                max_calls=max_calls,
                retry_errors=retry_errors,
                on_progress=on_event,
                outage=(lambda: model.health.down) if isinstance(model, Model) else None,
                repeats=asked,
            )
    on_event(RunEnded(summary))
    if masked := replies_masked() - masked_before:
        say(masked_replies_line(masked))
    if summary.stopped_by_outage and isinstance(model, Model):
        health = model.health
        answered_now = summary.counts.ran + summary.counts.sql_failed
        on_event(RunStopped(model.spec, health.in_a_row, health.last_error, answered_now, summary.total))
        return summary
    hint_retry = not retry_errors and chosen.name not in REPLAYS
    replays_predictions = isinstance(chosen, PredictionsSystem)
    for line in summary_lines(summary, out, hint_retry, tries=asked, predictions=replays_predictions):
        say(line)
    return summary


def _check_coverage(
    chosen: PredictionsSystem, benchmark: Benchmark, questions: list[Question], partial: bool
) -> str | None:
    """Refuse a predictions file that names unknown questions or leaves some without a prediction, in one line
    with the counts and first ids; with `partial`, return that line as a warning (None when the file matches)."""
    coverage = chosen.coverage(benchmark, questions)
    if coverage.complete:
        return None
    line = f"predictions {chosen.path.name} do not match: " + coverage.summary(chosen.count, benchmark.name)
    if not partial:
        raise UsageError(line + "; run with --partial to score the questions they cover")
    return f"warning (--partial): {line}"


def summary_lines(
    summary: RunSummary, out: Path, hint_retry: bool, *, tries: int = 1, predictions: bool = False
) -> list[str]:
    """What a run did, as the lines its end reports: counts, usage, the most common errors and what to do next.

    The first line splits the selection (questions, or tries of them with `tries` > 1) once: answered (their SQL ran or
    failed), no answer (`predictions`: no prediction for the question, apart from other failures), not run yet;
    then how many were asked now and how many were answered before."""
    usage, counts = summary.usage, summary.counts
    noun = "questions" if tries <= 1 else "tries"
    no_prediction = counts.errors.get(NO_PREDICTION, 0) if predictions else 0
    missing = [f"{no_prediction} no prediction"] if no_prediction else []
    if counts.no_answer - no_prediction or not no_prediction:
        missing.append(f"{counts.no_answer - no_prediction} no answer")
    if summary.unanswered > 0:
        missing.append(f"{summary.unanswered} not run yet")
    retried = f" ({summary.retried} again)" if summary.retried else ""
    lines = [
        f"done: {counts.ran + counts.sql_failed} of {summary.total} {noun} answered "
        f"({counts.ran} ran, {counts.sql_failed} SQL failed), {', '.join(missing)}; "
        f"{summary.answered_now} asked now{retried}, {summary.already_answered} before"
        + (
            f"; {usage.calls} model calls ({usage.cache_hits} cached), "
            f"{usage.prompt_tokens + usage.completion_tokens} tokens"
            if usage.calls or usage.cache_hits
            else ""
        )
    ]
    if tools := summary.tools.line():
        lines.append(tools)
    if counts.errors:
        lines.append("most common errors:")
        lines += [f"  {count} × {error}" for error, count in counts.errors.most_common(SHOWN_ERRORS)]
        if len(counts.errors) > SHOWN_ERRORS:
            others = len(counts.errors) - SHOWN_ERRORS
            lines.append(
                f"  … and {others} other error{'s' if others > 1 else ''} (see them with: biarena export {out})"
            )
    if summary.stopped_by_budget:
        lines.append(f"stopped at the --max-calls budget; run the same command again to continue {out}")
    if counts.no_answer and hint_retry:
        many = counts.no_answer > 1
        lines.append(
            f"{counts.no_answer} question{'s have' if many else ' has'} no answer: "
            f"run the same command with --retry-errors to ask {'them' if many else 'it'} again"
        )
    if counts.ran == 0:
        lines.append(f"no answer succeeded: none of the {summary.total} questions was answered with SQL that ran")
    return lines
