"""`biarena run BENCH --agent NAME [--model MODEL] -o RUN`: answer a benchmark's questions into a run file."""

import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from biarena.agents import MODEL_AGENTS, SYSTEMS, System, system_factory
from biarena.agents.predictions import PredictionsSystem
from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err
from biarena.cli.legacy_flags import LEGACY, legacy_command, legacy_flags
from biarena.cli.model_flags import MODEL_PAIRS, MODELS_FILE, model_options
from biarena.cli.notice_line import notice_listener
from biarena.cli.options import (
    ALLOW_SUPERUSER,
    DB_URL,
    OPTIONS_FILE,
    SANDBOX,
    TIMEOUT,
    db_overrides,
    flag,
    gather_options,
    option_pairs,
    sandbox_limits,
)
from biarena.db import DatabasePool
from biarena.errors import UsageError
from biarena.llm import DEFAULT_MODEL, Model, ModelOptions, get_model
from biarena.llm.notices import listening
from biarena.llm.prices import load_prices, prices_for
from biarena.llm.structured import check_level
from biarena.options import Options, options_model
from biarena.records import Benchmark, Question
from biarena.runner import (
    RunProgress,
    RunStore,
    RunSummary,
    benchmark_fingerprint,
    make_spec,
    open_run,
    run_benchmark,
    select_questions,
)

_SHOWN_ERRORS = 3

EXIT_NONE_RAN = 1
EXIT_UNANSWERED = 3
EXIT_SERVER_DOWN = 4
EXIT_INTERRUPTED = 130
_REPLAYS = frozenset({"gold", "predictions"})
"""Systems that replay fixed SQL: asking them again gives the same answer."""


RUN_FLAGS = {
    "--predictions": "predictions",
    "--format": "format",
    "--url": "url",
    "--command": "command",
    "--function": "function",
    "--max-queries": "max_queries",
    "--system-timeout": "system_timeout",
    "--max-reply-bytes": "max_reply_bytes",
    "--max-tokens": "max_tokens",
    "--answer-words": "answer_words",
    "--step-limit": "step_limit",
    "--sample-rows": "sample_rows",
    "--context-tokens": "context_tokens",
}
"""The agent options `run` once took as flags: still accepted, hidden, as spellings of `-O NAME=VALUE`."""
RUN_SWITCHES = {"--short-answer": "short_answer"}


def build_system(
    name: str,
    *,
    model: str | None = None,
    no_cache: bool = False,
    concurrency: int = 1,
    prices: Path | None = None,
    structured: str | None = None,
    options: Options | None = None,
    model_options: ModelOptions | None = None,
    **values: Any,
) -> System:
    """Make the named system with its options (an options object or keywords), with a model for the agents that
    need one: `model_options` (a model as data) or the model string `model` (priced from the `prices` table file)."""
    factory = system_factory(name)
    given: dict[str, Any] = {}
    if name in MODEL_AGENTS:
        if model_options is not None:
            built = get_model(model_options.spec(), options=model_options, concurrency=max(1, concurrency))
        else:
            built = get_model(
                model or DEFAULT_MODEL, use_cache=not no_cache, concurrency=max(1, concurrency), structured=structured
            )
        if prices is not None:
            built.prices = prices_for(load_prices(prices), model or DEFAULT_MODEL, built.spec, source=str(prices))
        given["model"] = built
    elif model is not None or prices is not None:
        raise UsageError(f"agent '{name}' does not use a model ({'--model' if model is not None else '--prices'})")
    elif structured is not None:
        raise UsageError(f"agent '{name}' does not use a model (--structured)")
    elif model_options is not None:
        raise UsageError(f"agent '{name}' does not use a model (-M)")
    return factory(**given, options=options, **values)


def agent_options(name: str, pairs: list[str] | None, file: Path | None, legacy: list[str] | None) -> Options:
    """The options of agent `name` from an options file, the old flags and `-O` pairs (each wins over the one before).

    The old `--max-queries` of an external system is its `max_reply_queries`."""
    model = options_model(system_factory(name))
    renamed = []
    for pair in legacy or []:
        key, _, value = pair.partition("=")
        if key == "max_queries" and "max_reply_queries" in model.model_fields:
            key = "max_reply_queries"
        renamed.append(f"{key}={value}")
    return gather_options(model, f"agent '{name}'", [*renamed, *(pairs or [])], file)


def run(
    benchmark_arg: str = typer.Argument(..., metavar="BENCH", help="Benchmark directory or built-in name."),
    agent: str | None = typer.Option(None, "--agent", metavar="NAME", help=f"The system to run: {', '.join(SYSTEMS)}."),
    model: str | None = typer.Option(
        None,
        "--model",
        help="local (default), local:/path.gguf, openai:MODEL or openai:MODEL@URL, or a model named in --models.",
    ),
    model_option: list[str] | None = MODEL_PAIRS,
    models_file: Path | None = MODELS_FILE,
    out: Path = typer.Option(..., "-o", "--out", help="Run file to write (resumed when it exists)."),
    option: list[str] | None = option_pairs("biarena describe agent NAME"),
    options_file: Path | None = OPTIONS_FILE,
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N questions."),
    per_category: int | None = typer.Option(None, "--per-category", min=1, help="A stratified sample: N per category."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Questions answered at once."),
    repeats: int | None = typer.Option(
        None,
        "--repeats",
        min=1,
        metavar="K",
        help="Ask every question K times (tries sampled at the model's temperature, each with its own seed); "
        "a larger K on a resumed run adds the missing tries. Default: as the run was started, else 1.",
    ),
    max_calls: int | None = typer.Option(None, "--max-calls", min=1, help="Stop after N model calls (not cached)."),
    no_cache: bool = typer.Option(False, "--no-cache", hidden=True, help="The same as -M cache=false."),
    structured: str | None = typer.Option(None, "--structured", hidden=True, help="The same as -M structured=LEVEL."),
    prices: Path | None = typer.Option(None, "--prices", hidden=True, help="The same as -M prices=FILE."),
    label: str | None = typer.Option(
        None, "--label", help="How reports name this run (default: agent · model, e.g. 'sequential · qwen2.5-coder')."
    ),
    retry_errors: bool = flag("--retry-errors", "Ask again the questions the run holds no answer for (errors)."),
    partial: bool = flag(
        "--partial",
        "Accept a predictions file that covers only some questions or names others (they are listed; a question "
        "without a prediction counts 0).",
    ),
    accepted_only: bool = flag("--accepted-only", "Only the questions accepted in validation (edits applied)."),
    force: bool = flag("--force", "Start the run file over when it holds a different run (its answers are deleted)."),
    db_url: list[str] | None = DB_URL,
    timeout: float = TIMEOUT,
    sandbox: list[str] | None = SANDBOX,
    allow_superuser: bool = ALLOW_SUPERUSER,
    system: str | None = typer.Option(None, "--system", hidden=True, help="The old name of --agent."),
    legacy: list[str] | None = LEGACY,
) -> None:
    """Run a system over a benchmark; a killed run resumes where it stopped, and a wider selection grows it.

    The agent's own options: -O NAME=VALUE or --options FILE.yaml (`biarena describe agent NAME` lists them).
    The model's: -M NAME=VALUE or a named model in models.yaml (`biarena describe model openai` lists them).
    When max_outage questions in a row (-M max_outage=N, default 3) get no reply from the model's server,
    the run stops and prints the command that resumes it.

    Exit codes:
    0 every question has an answer (right or wrong);
    1 no answer succeeded (none ran SQL);
    2 bad input (a predictions file that does not match the questions, unless --partial);
    3 model errors left questions without an answer (ask them again with --retry-errors);
    4 stopped early: the model's server does not answer;
    130 interrupted.
    """
    name = agent or system
    if name is None:
        raise UsageError("name the system to run: --agent NAME (e.g. text2sql, sequential, gold)")
    if agent and system and agent != system:
        raise UsageError("--agent and --system name the same thing; give one")
    if label is not None and not label.strip():
        raise UsageError("--label must not be empty")
    options = agent_options(name, option, options_file, legacy)
    benchmark = resolve_benchmark(benchmark_arg)
    if accepted_only:
        from biarena.generate.validation import accepted_only as only_accepted

        benchmark = only_accepted(benchmark)
    check_level(structured)
    # the old flags are spellings of model options (-M, given after them, wins)
    aliases = {"--structured": f"structured={structured}" if structured is not None else None}
    aliases["--prices"] = f"prices={prices}" if prices is not None else None
    aliases["--no-cache"] = "cache=false" if no_cache else None
    pairs = [pair for pair in aliases.values() if pair is not None] + list(model_option or [])
    chosen_model = None
    if name in MODEL_AGENTS:
        chosen_model = model_options(model or DEFAULT_MODEL, pairs, models_file)
    elif model is not None or pairs:
        given = ["--model"] if model is not None else [flag for flag, pair in aliases.items() if pair] or ["-M"]
        raise UsageError(f"agent '{name}' does not use a model ({given[0]})")
    chosen = build_system(name, concurrency=concurrency, options=options, model_options=chosen_model)
    questions = select_questions(benchmark, limit, per_category)
    overrides = db_overrides(db_url, benchmark)
    limits = sandbox_limits(sandbox, timeout)
    pool = DatabasePool(benchmark, overrides=overrides, limits=limits, allow_superuser=allow_superuser)
    try:
        summary = execute_run(
            benchmark_arg,
            benchmark,
            chosen,
            questions,
            pool,
            out,
            overrides,
            concurrency=concurrency,
            max_calls=max_calls,
            label=label,
            force=force,
            retry_errors=retry_errors,
            repeats=repeats,
            partial=partial,
        )
    except KeyboardInterrupt:
        _say(f"interrupted: the answers recorded so far are kept; run the same command again to resume {out}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        pool.close()
    if summary.stopped_by_outage:
        raise typer.Exit(EXIT_SERVER_DOWN)
    if summary.counts.ran == 0:
        raise typer.Exit(EXIT_NONE_RAN)
    if summary.counts.no_answer and isinstance(getattr(chosen, "model", None), Model):
        raise typer.Exit(EXIT_UNANSWERED)


command = legacy_command(run, "run", legacy_flags(RUN_FLAGS, RUN_SWITCHES))
"""`run` as the command line has it: the old agent flags accepted as hidden spellings of -O."""


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
    label: str | None = None,
    force: bool = False,
    retry_errors: bool = False,
    partial: bool = False,
    on_answer: Callable[[RunProgress], None] | None = None,
    repeats: int | None = None,
) -> RunSummary:
    """Open (start, resume or grow) the run file, answer its questions with a progress display, and summarize.

    A predictions file that does not match the questions is refused (UsageError) unless `partial`.
    `on_answer`, when given, prints each answer as it is recorded instead of the one-line progress log. `repeats`
    asks each question that many times (None: as many as the run file records, 1 for a new one).
    """
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
    with RunStore(out, create=True) as store:
        opening = open_run(store, spec, questions, force=force, order=[q.id for q in benchmark.questions])
        if mismatch is not None:  # said once the run file is known to be this run's
            _say(mismatch)
        selected = {q.id for q in questions}
        recorded = 1 if opening.started else store.repeats()
        asked = repeats or recorded
        if max(asked, recorded) > 1:  # a smaller --repeats asks fewer tries now; the run still holds its others
            store.set_repeats(max(asked, recorded))
        answered = sum(len(store.at_try(number).answered_ids() & selected) for number in range(asked))
        if opening.restarted:
            _say(f"--force: {out} started over")
        if opening.added and not opening.started:
            _say(f"growing {out} by {opening.added} questions")
        if answered:
            what = f"answers ({asked} tries of {len(questions)} questions)" if asked > 1 else "questions"
            _say(f"resuming {out}: {answered} of {len(questions) * asked} {what} already answered")
        each = f", {asked} tries each" if asked > 1 else ""
        _say(f"running '{chosen.name}' on {benchmark.name} ({len(questions)} questions{each}) into {out}")
        started = time.monotonic()
        with Progress(
            TextColumn("{task.description}", markup=False, style="bold"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "ran {task.fields[ran]} · SQL failed {task.fields[sql_failed]} · no answer {task.fields[no_answer]} · "
                "calls {task.fields[calls]} · tokens {task.fields[tokens]}",
                markup=False,
            ),
            TimeRemainingColumn(),
            TextColumn("{task.fields[waiting]}", markup=False, style="yellow"),
            console=err,
            disable=not err.is_terminal,
        ) as bar:
            task = bar.add_task(
                chosen.name,
                total=len(questions) * asked,
                completed=answered,
                ran=0,
                sql_failed=0,
                no_answer=0,
                calls=0,
                tokens=0,
                waiting="",
            )

            def progress(p: RunProgress) -> None:
                tokens = p.usage.prompt_tokens + p.usage.completion_tokens
                bar.update(
                    task,
                    waiting="",
                    completed=p.done,
                    ran=p.counts.ran,
                    sql_failed=p.counts.sql_failed,
                    no_answer=p.counts.no_answer,
                    calls=p.usage.calls,
                    tokens=tokens,
                )
                if on_answer is not None:
                    on_answer(p)
                elif not err.is_terminal and p.answer is not None and p.outcome is not None:
                    said = p.outcome.label + (f": {_first_line(p.outcome.error)}" if p.outcome.error else "")
                    calls = f" ({p.usage.calls} calls so far)" if p.usage.calls or p.usage.cache_hits else ""
                    tried = f" (try {p.try_number})" if asked > 1 else ""
                    left = _time_left(time.monotonic() - started, p.done - answered, p.total - p.done)
                    _say(f"  [{p.done}/{p.total}] {p.answer.question_id}{tried}: {said}{calls}{left}")

            notice = notice_listener(err.is_terminal, lambda text: bar.update(task, waiting=text), _say)

            model = getattr(chosen, "model", None)
            with listening(notice):
                summary = run_benchmark(
                    benchmark,
                    chosen,
                    store,
                    pool,
                    questions,
                    concurrency=concurrency,
                    max_calls=max_calls,
                    retry_errors=retry_errors,
                    on_progress=progress,
                    outage=(lambda: model.health.down) if isinstance(model, Model) else None,
                    repeats=asked,
                )
    if summary.stopped_by_outage and isinstance(model, Model):
        _say_outage(model, summary)
        return summary
    _print_summary(summary, out, hint_retry=not retry_errors and chosen.name not in _REPLAYS)
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


def resume_command() -> str:
    """The command line that resumes this run after an outage: the same one, asking again what failed."""
    args = sys.argv[1:]
    return shlex.join(["biarena", *args, *([] if "--retry-errors" in args else ["--retry-errors"])])


def _say_outage(model: Model, summary: RunSummary) -> None:
    """The one line a run stopped by its model's server says."""
    health = model.health
    answered = summary.counts.ran + summary.counts.sql_failed
    _say(
        f"stopped: {model.spec} does not answer ({health.in_a_row} questions in a row got no reply: "
        f"{_clip(health.last_error, 120)}); {answered} of {summary.total} questions answered; "
        f"resume when it is back: {resume_command()}"
    )


def _print_summary(summary: RunSummary, out: Path, hint_retry: bool) -> None:
    usage, counts = summary.usage, summary.counts
    retried = f" ({summary.retried} asked again)" if summary.retried else ""
    unanswered = f", {summary.unanswered} not run yet" if summary.unanswered > 0 else ""
    _say(
        f"done: {summary.answered_now} answered now{retried}, {summary.already_answered} before; "
        f"{counts.ran} ran, {counts.sql_failed} SQL failed, {counts.no_answer} no answer{unanswered}"
        + (
            f"; {usage.calls} model calls ({usage.cache_hits} cached), "
            f"{usage.prompt_tokens + usage.completion_tokens} tokens"
            if usage.calls or usage.cache_hits
            else ""
        )
    )
    if counts.errors:
        _say("most common errors:")
        for error, count in counts.errors.most_common(_SHOWN_ERRORS):
            _say(f"  {count} × {error}")
        if len(counts.errors) > _SHOWN_ERRORS:
            others = len(counts.errors) - _SHOWN_ERRORS
            _say(f"  … and {others} other error{'s' if others > 1 else ''} (see them with: biarena export {out})")
    if summary.stopped_by_budget:
        _say(f"stopped at the --max-calls budget; run the same command again to continue {out}")
    if counts.no_answer and hint_retry:
        many = counts.no_answer > 1
        _say(
            f"{counts.no_answer} question{'s have' if many else ' has'} no answer: "
            f"run the same command with --retry-errors to ask {'them' if many else 'it'} again"
        )
    if counts.ran == 0:
        _say(f"no answer succeeded: none of the {summary.total} questions was answered with SQL that ran")


def _time_left(elapsed: float, done: int, left: int) -> str:
    """`, about 4 min left` from the pace so far; empty before the first answer, after the last, and under 10 s."""
    if done <= 0 or left <= 0:
        return ""
    seconds = elapsed / done * left
    if seconds < 10:
        return ""
    return f", about {seconds / 60:.0f} min left" if seconds >= 90 else f", about {seconds:.0f} s left"


def _say(text: str) -> None:
    """Print a message line as it is (names and errors may hold `[` and `]`, which are not markup here)."""
    err.print(text, markup=False, highlight=False)


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return _clip(lines[0] if lines else text, 200)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
