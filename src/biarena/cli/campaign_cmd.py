"""`biarena campaign PLAN.yaml -o DIR`: run a plan's matrix of benchmarks x systems x models x scorers x seeds."""

from pathlib import Path

import typer

from biarena.cli.console import err

EXIT_INTERRUPTED = 130


def campaign(
    plan: Path = typer.Argument(..., metavar="PLAN.yaml", help="The campaign plan (matrix, cells, limit)."),
    out: Path = typer.Option(..., "-o", "--out", help="Campaign folder (resumed when it exists)."),
    shard: str | None = typer.Option(
        None,
        "--shard",
        metavar="K/N",
        help="Run share K of N (default: the Slurm array task's share when SLURM_ARRAY_TASK_ID is set, else all).",
    ),
    engine: str = typer.Option("local", "--engine", help="local (a process pool) or ray (Ray tasks)."),
    workers: int = typer.Option(
        1, "--workers", min=1, help="Processes (local), or CPUs of a Ray instance started here."
    ),
    address: str | None = typer.Option(
        None, "--address", metavar="HOST:PORT", help="A Ray cluster to run on (--engine ray; default: start one here)."
    ),
) -> None:
    """Run a campaign: each cell of the plan's matrix is a run file, each scorer on it a work unit.

    Units are content-addressed (the benchmark's checksums, the system and model, the seed, the questions, the
    scorer), so running the plan again, or an overlapping plan, into the same folder repeats nothing. Shards of one
    plan (--shard K/N) are joined with `biarena merge`; `biarena show DIR` and `biarena report DIR` read all the
    campaign's runs. A model's `connections` option limits requests to its server across all workers.
    """
    from biarena.campaign.execute_campaign import CampaignSettings, execute_campaign
    from biarena.events import Message

    settings = CampaignSettings(plan=plan, out=out, shard=shard, engine=engine, workers=workers, address=address)
    try:
        execute_campaign(settings, lambda event: _say(event.text) if isinstance(event, Message) else None)
    except KeyboardInterrupt:
        _say(f"interrupted: the units done so far are kept; run the same command again to resume {out}")
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _say(text: str) -> None:
    err.print(text, markup=False, highlight=False)
