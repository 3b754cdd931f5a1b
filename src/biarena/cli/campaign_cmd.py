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
    from biarena.campaign import CampaignProgress, parse_shard, run_campaign

    share = parse_shard(shard)

    def progress(p: CampaignProgress) -> None:
        cell = p.last
        if cell is None:
            return
        unit = cell.units[0]
        group_done, group_total = p.groups[(unit.benchmark, unit.system)]
        _say(
            f"  [{p.done}/{p.total} units] {unit.benchmark} × {unit.system} (seed {unit.seed}): "
            f"{group_done}/{group_total} of its units done"
        )

    def start(p: CampaignProgress, units: int) -> None:
        where = (
            f"share {share.index}/{share.count}: {p.total} of its {units} units"
            if share.count > 1
            else f"{units} units"
        )
        plural = "s" if p.workers > 1 else ""
        on = f" at {address}" if address else ""
        _say(
            f"campaign {plan} into {out}: {where} ({p.done} done before) in {len(p.groups)} benchmark x system "
            f"groups; {engine} engine{on}, {p.workers} worker{plural}"
        )

    try:
        summary = run_campaign(
            plan,
            out,
            shard=share,
            engine=engine,
            workers=workers,
            address=address,
            on_progress=progress,
            on_start=start,
        )
    except KeyboardInterrupt:
        _say(f"interrupted: the units done so far are kept; run the same command again to resume {out}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    _say(
        f"done: {summary.now} units now, {summary.before} before, of {summary.share} in this share "
        f"({summary.units} in the plan); results: {summary.results}; next: biarena show {out}"
    )


def _say(text: str) -> None:
    err.print(text, markup=False, highlight=False)
