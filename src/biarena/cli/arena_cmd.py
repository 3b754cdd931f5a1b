"""`biarena arena serve | invite | export | simulate`: the human-evaluation arena."""

import sys
from pathlib import Path

import typer
from rich.text import Text

from biarena.arena.store import ROLES, ArenaStore
from biarena.benchmarks.archive import format_size, parse_size
from biarena.cli.console import err, out
from biarena.cli.model_flags import judge_model_flag
from biarena.cli.options import HOST
from biarena.cli.settings_from import settings_from
from biarena.errors import NotFoundError, UsageError, did_you_mean
from biarena.files import writable_target
from biarena.votes.export import export_votes

app = typer.Typer(
    help="Blind pairwise human evaluation of runs, with a Bradley-Terry leaderboard.", no_args_is_help=True
)

DB = typer.Option(..., "--db", help="The arena's SQLite file (users, votes, submitted systems).")


def _missing_extra(error: ImportError) -> UsageError:
    return UsageError(
        f"the arena web app needs the arena extra ({error.name} is missing): pip install 'biarena[arena]'"
    )


AUTO_METRIC = typer.Option(
    "execution_accuracy",
    "--auto-metric",
    help="Automatic score (0-1) the combined score uses: execution_accuracy, ser, result_f1, semantic_similarity.",
)
SIGN_IN_FAILURES = typer.Option(
    10,
    "--sign-in-failures",
    min=1,
    help="Failed sign-ins one address, or one token's first characters, may make per window before waiting.",
)
TRUSTED_PROXIES = typer.Option(
    None,
    "--trusted-proxy",
    metavar="ADDRESS",
    help="A reverse proxy (address or network) whose X-Forwarded-For names the client (repeatable; "
    "by default the header is ignored).",
)


@app.command("serve")
def serve(
    runs: list[Path] = typer.Option(..., "--runs", help="Run files (scored) to compare: --runs A B C, or repeated."),
    more_runs: list[Path] | None = typer.Argument(None, metavar="RUN", hidden=True),
    db: Path = typer.Option(..., "--db", help="The arena's SQLite file (created when absent)."),
    host: str = HOST,
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port to listen on."),
    daily_cap: int = typer.Option(200, "--daily-cap", min=1, help="Votes one annotator may cast per day (UTC)."),
    min_votes: int = typer.Option(
        20, "--min-votes", min=1, help="Votes a system needs before its combined (automatic and human) score shows."
    ),
    auto_metric: str = AUTO_METRIC,
    max_upload: str = typer.Option("64MiB", "--max-upload", help="Largest run file a submitter may upload."),
    daily_submissions: int = typer.Option(
        20, "--daily-submissions", min=1, help="Uploads one submitter may make per day (UTC), refused ones included."
    ),
    address_votes_per_hour: int = typer.Option(
        2000, "--address-votes-per-hour", min=1, help="Votes one client address may send per rolling hour."
    ),
    address_votes_per_day: int = typer.Option(
        10_000, "--address-votes-per-day", min=1, help="Votes one client address may send per rolling 24 hours."
    ),
    bootstrap: int = typer.Option(500, "--bootstrap", min=0, help="Bootstrap resamples behind the 95% intervals."),
    judges: list[str] | None = typer.Option(
        None, "--judge", metavar="NAME", help="Also judge each submitted run with this judge (repeatable)."
    ),
    judge_model: str | None = judge_model_flag("The judges' model (default: local)."),
    sign_in_failures: int = SIGN_IN_FAILURES,
    sign_in_window: int = typer.Option(
        600, "--sign-in-window", min=1, help="Seconds failed sign-ins are counted over (and held back for)."
    ),
    trusted_proxies: list[str] | None = TRUSTED_PROXIES,
) -> None:
    """Serve the arena: annotators sign in with invite tokens and vote on two systems' answers, blind."""
    try:
        import uvicorn

        from biarena.arena.app import create_app
    except ImportError as error:
        raise _missing_extra(error) from None
    from biarena.arena.client_address import trusted_networks
    from biarena.arena.config import ArenaConfig

    _check_scorers(judges or [], auto_metric, judge_model)
    trusted_networks(trusted_proxies or [])
    config = settings_from(
        ArenaConfig,
        locals(),
        runs=[*runs, *(more_runs or [])],
        max_upload_bytes=parse_size(max_upload),
        judges=tuple(judges or ()),
        sign_in_window=float(sign_in_window),
        trusted_proxies=tuple(trusted_proxies or ()),
    )
    application = create_app(config)
    systems = application.state.arena.catalog.systems
    err.print(Text(f"arena: {len(systems)} systems from {len(config.runs)} runs; votes in {db}"))
    err.print(Text(f"open http://{host}:{port}/login (invite people with: biarena arena invite NAME --db {db})"))
    # uvicorn would otherwise take X-Forwarded-For from any loopback peer; the app reads it from --trusted-proxy only.
    uvicorn.run(application, host=host, port=port, log_level="warning", proxy_headers=False)


def _check_scorers(judges: list[str], auto_metric: str, judge_model: str | None) -> None:
    """Refuse an unknown judge or automatic score, and a judge model without a judge."""
    from biarena.report.auto_scores import AUTO_SCORES
    from biarena.scoring import SCORERS

    for judge in judges:
        if judge not in SCORERS:
            known = list(SCORERS)
            raise NotFoundError(f"unknown judge '{judge}'{did_you_mean(judge, known)} (known: {', '.join(known)})")
    if auto_metric not in AUTO_SCORES:
        raise NotFoundError(
            f"unknown automatic score '{auto_metric}'{did_you_mean(auto_metric, list(AUTO_SCORES))} "
            f"(known: {', '.join(AUTO_SCORES)})"
        )
    if judge_model and not judges:
        raise UsageError("--judge-model applies to judges: name one with --judge NAME")


@app.command("invite")
def invite(
    name: str = typer.Argument(..., help="The person's name, as the admin page and exports show it."),
    role: str = typer.Option("annotator", "--role", help=f"One of: {', '.join(ROLES)}."),
    db: Path = DB,
) -> None:
    """Create a user and print their sign-in token (shown once; the arena keeps only its hash)."""
    if role not in ROLES:
        raise UsageError(f"unknown role '{role}' (known: {', '.join(ROLES)})")
    with ArenaStore(db) as store:
        token = store.invite(name, role)
    err.print(Text(f"invited {name} as {role}; their sign-in token (shown only now):"))
    out.print(token, markup=False)


@app.command("export")
def export(
    db: Path = DB,
    fmt: str = typer.Option("jsonl", "--format", help="jsonl or csv."),
    output: Path = typer.Option(Path("-"), "-o", "--out", help="File to write; - (the default) writes to stdout."),
) -> None:
    """Write every vote with the systems revealed: vote_id, annotator, question, system_a (left), system_b, winner."""
    if fmt not in ("jsonl", "csv"):
        raise UsageError(f"unknown format '{fmt}' (known: jsonl, csv)")
    with ArenaStore(db, create=False) as store:
        votes = store.votes()
    chunks = export_votes(votes, fmt)
    if str(output) == "-":
        for chunk in chunks:
            sys.stdout.write(chunk)
        return
    writable_target(output)
    with output.open("w", encoding="utf-8", newline="") as handle:
        for chunk in chunks:
            handle.write(chunk)
    err.print(Text(f"wrote {len(votes)} votes to {output} ({format_size(output.stat().st_size)})"))


try:
    from biarena.cli.arena_simulate import simulate
except ImportError:  # the statistics command ships with biarena.stats
    simulate = None

if simulate is not None:
    app.command("simulate")(simulate)
