"""`biarena run BENCH --agent NAME [--model MODEL] -o RUN`: answer a benchmark's questions into a run file."""

from pathlib import Path

import typer

from biarena.agents import SYSTEMS, system_factory
from biarena.cli.legacy_flags import LEGACY, legacy_command, legacy_flags
from biarena.cli.model_flags import MODEL_CHOICES, MODEL_PAIRS, MODELS_FILE
from biarena.cli.options import (
    ALLOW_SUPERUSER,
    BENCHMARK,
    DB_URL,
    LIMIT,
    MAX_CALLS,
    OPTIONS_FILE,
    SANDBOX,
    TIMEOUT,
    flag,
    option_pairs,
)
from biarena.cli.run_view import RunView, say
from biarena.cli.settings_from import settings_from
from biarena.errors import UsageError
from biarena.options import Options, options_model
from biarena.runner.execute import agent_options as options_of_agent
from biarena.runner.execute import execute_run
from biarena.runner.run import RunSummary
from biarena.runner.run_settings import RunSettings

EXIT_NONE_RAN = 1
EXIT_UNANSWERED = 3
EXIT_SERVER_DOWN = 4
EXIT_INTERRUPTED = 130


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


def agent_options(name: str, pairs: list[str] | None, file: Path | None, legacy: list[str] | None) -> Options:
    """The options of agent `name` from an options file, the old flags and `-O` pairs (each wins over the one before).

    The old `--max-queries` of an external system is its `max_reply_queries`."""
    return options_of_agent(name, option_texts(name, pairs, legacy), file)


def option_texts(name: str, pairs: list[str] | None, legacy: list[str] | None) -> list[str]:
    """The `NAME=VALUE` texts that set agent `name`'s options: the old flags' (renamed), then the `-O` pairs."""
    model = options_model(system_factory(name))
    renamed = []
    for pair in legacy or []:
        key, _, value = pair.partition("=")
        if key == "max_queries" and "max_reply_queries" in model.model_fields:
            key = "max_reply_queries"
        renamed.append(f"{key}={value}")
    return [*renamed, *(pairs or [])]


REPEATS = typer.Option(
    None,
    "--repeats",
    min=1,
    metavar="K",
    help="Ask every question K times (tries sampled at the model's temperature, each with its own seed); "
    "a larger K on a resumed run adds the missing tries. Default: as the run was started, else 1.",
)
PARTIAL = flag(
    "--partial",
    "Accept a predictions file that covers only some questions or names others (they are listed; a question "
    "without a prediction counts 0).",
)


def run(
    benchmark: str = BENCHMARK,
    agent: str | None = typer.Option(None, "--agent", metavar="NAME", help=f"The system to run: {', '.join(SYSTEMS)}."),
    model: str | None = typer.Option(None, "--model", help=MODEL_CHOICES),
    model_option: list[str] | None = MODEL_PAIRS,
    models_file: Path | None = MODELS_FILE,
    out: Path = typer.Option(..., "-o", "--out", help="Run file to write (resumed when it exists)."),
    option: list[str] | None = option_pairs("biarena describe agent NAME"),
    options_file: Path | None = OPTIONS_FILE,
    limit: int | None = LIMIT,
    per_category: int | None = typer.Option(None, "--per-category", min=1, help="A stratified sample: N per category."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Questions answered at once."),
    repeats: int | None = REPEATS,
    max_calls: int | None = MAX_CALLS,
    no_cache: bool = typer.Option(False, "--no-cache", hidden=True, help="The same as -M cache=false."),
    structured: str | None = typer.Option(None, "--structured", hidden=True, help="The same as -M structured=LEVEL."),
    prices: Path | None = typer.Option(None, "--prices", hidden=True, help="The same as -M prices=FILE."),
    label: str | None = typer.Option(
        None, "--label", help="How reports name this run (default: agent · model, e.g. 'sequential · qwen2.5-coder')."
    ),
    retry_errors: bool = flag("--retry-errors", "Ask again the questions the run holds no answer for (errors)."),
    partial: bool = PARTIAL,
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
    name = _system_name(agent, system)
    settings = settings_from(
        RunSettings,
        locals(),
        agent=name,
        model_options=list(model_option or []),
        options=option_texts(name, option, legacy),
    )
    view = RunView()
    try:
        result = execute_run(settings, view)
    except KeyboardInterrupt:
        view.close()
        say(f"interrupted: the answers recorded so far are kept; run the same command again to resume {out}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        view.close()
    raise typer.Exit(exit_code(result.summary, result.uses_model))


def _system_name(agent: str | None, system: str | None) -> str:
    """The system `--agent` (or its old name `--system`) names."""
    name = agent or system
    if name is None:
        raise UsageError("name the system to run: --agent NAME (e.g. text2sql, sequential, gold)")
    if agent and system and agent != system:
        raise UsageError("--agent and --system name the same thing; give one")
    return name


def exit_code(summary: RunSummary, uses_model: bool) -> int:
    """The run's exit code: 4 stopped by an outage, 1 no answer ran, 3 a model left questions unanswered, else 0."""
    if summary.stopped_by_outage:
        return EXIT_SERVER_DOWN
    if summary.counts.ran == 0:
        return EXIT_NONE_RAN
    if summary.counts.no_answer and uses_model:
        return EXIT_UNANSWERED
    return 0


command = legacy_command(run, "run", legacy_flags(RUN_FLAGS, RUN_SWITCHES))
"""`run` as the command line has it: the old agent flags accepted as hidden spellings of -O."""
