"""`biarena score RUN`: apply scorers (the deterministic metrics unless others are named) to every answer of a run."""

import sys
from contextlib import closing
from pathlib import Path

import typer

from biarena.cli.model_flags import JUDGE_MODEL_PAIRS, JUDGE_TEMPERATURE, MODELS_FILE, judge_model_flag
from biarena.cli.options import ALLOW_SUPERUSER, DB_URL, SANDBOX, TIMEOUT, flag
from biarena.cli.score_view import ScoreView, say
from biarena.cli.settings_from import settings_from
from biarena.metrics import ScoringBudget
from biarena.scoring import SCORERS
from biarena.scoring.execute import execute_score, failed_results, failure_line
from biarena.scoring.score_settings import ScoreSettings

SCORER_NAMES = typer.Option(
    None,
    "--scorer",
    metavar="NAME",
    help=f"A scorer to apply (repeatable; default: the deterministic metrics): {', '.join(SCORERS)}.",
)
SCORER_OPTIONS = typer.Option(
    None,
    "-O",
    metavar="SCORER.NAME=VALUE",
    help="Set a scorer's option (repeatable; SCORER. may be left out when one scorer asked for takes NAME); "
    "`biarena describe scorer NAME` lists them with their defaults.",
)
CONTRACTS = typer.Option(
    None,
    "--contract",
    metavar="NAME",
    help="Also score execution accuracy under this result contract (repeatable or comma-separated): "
    "biarena (the default), spider, spider-keep-distinct, bird, bird-f1, spider2, strict; stored as "
    "execution_accuracy[NAME].",
)
SUITE = typer.Option(
    None,
    "--suite",
    metavar="K",
    min=1,
    max=100,
    help="Also score test-suite accuracy: the answer must match the gold on the database and on K neighbour "
    "databases (built once and cached), under each --contract (default biarena); stored as test_suite_accuracy "
    "(test_suite_accuracy[NAME] under another contract).",
)
SCORE_BUDGET = typer.Option(
    ScoringBudget().seconds,
    "--score-budget",
    min=0.01,
    help="Seconds of comparison work per answer besides running its SQL; an answer over it, or too large "
    "to compare, scores 0 with the reason.",
)
MAX_JUDGE_CALLS = typer.Option(
    None,
    "--max-calls",
    min=1,
    help="Start no new judgement after N judge model calls (replies from the cache "
    "are free; the scorers without a model go on); run again to continue.",
)


def score(
    run: Path = typer.Argument(..., metavar="RUN", help="Run file."),
    scorers: list[str] | None = SCORER_NAMES,
    metrics: str | None = typer.Option(None, "--metrics", help="Comma-separated scorers (the same as --scorer)."),
    option: list[str] | None = SCORER_OPTIONS,
    options_file: Path | None = typer.Option(
        None, "--options", metavar="FILE.yaml", help="Scorers' options: a mapping SCORER: {NAME: VALUE} (-O wins)."
    ),
    contract: list[str] | None = CONTRACTS,
    suite: int | None = SUITE,
    rescore: bool = flag("--rescore", "Score again answers already scored."),
    benchmark: str | None = typer.Option(
        None, "--benchmark", help="Benchmark to use instead of the run's own (its databases are then not checked)."
    ),
    decimals: int = typer.Option(6, "--decimals", min=0, max=15, help="Numbers equal to this many decimals are equal."),
    db_url: list[str] | None = DB_URL,
    timeout: float = TIMEOUT,
    sandbox: list[str] | None = SANDBOX,
    allow_superuser: bool = ALLOW_SUPERUSER,
    score_budget: float = SCORE_BUDGET,
    judges: list[str] | None = typer.Option(
        None, "--judge", metavar="NAME", help="Also apply this scorer, a judge (repeatable): see --scorer."
    ),
    judge_model: str | None = judge_model_flag(
        "The judges' model, independent of the agent's: local (default), openai:MODEL or openai:MODEL@URL, or a "
        "model named in --models."
    ),
    judge_model_option: list[str] | None = JUDGE_MODEL_PAIRS,
    models_file: Path | None = MODELS_FILE,
    rubric: list[Path] | None = typer.Option(
        None, "--rubric", metavar="FILE", help="A rubric YAML replacing the built-in one of its kind (repeatable)."
    ),
    concurrency: int = typer.Option(
        1, "--concurrency", min=1, help="Results made at once (scorers without a model take turns)."
    ),
    max_calls: int | None = MAX_JUDGE_CALLS,
    judge_temperature: float = JUDGE_TEMPERATURE,
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
        _list_failed(run)
        return
    settings = settings_from(
        ScoreSettings, locals(), options=list(option or []), judge_model_options=list(judge_model_option or [])
    )
    with closing(ScoreView()) as view:
        outcome = execute_score(settings, view)
    if outcome.stopped:
        raise typer.Exit(4)


def _list_failed(run_path: Path) -> None:
    """Print every failed result the run holds, one a line, to stdout."""
    failures = failed_results(run_path)
    for failure in failures:
        sys.stdout.write(failure_line(*failure).strip() + "\n")
    say(f"{len(failures)} failed results in {run_path}")
