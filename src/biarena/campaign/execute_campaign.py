"""execute_campaign: the campaign workflow (`biarena campaign PLAN.yaml -o DIR`): the plan's units not done yet,
run on an engine, with what happens reported as messages."""

from pathlib import Path

from pydantic import Field

from biarena.campaign.run import CampaignProgress, CampaignSummary, parse_shard, run_campaign
from biarena.events import EventHandler, Message, ignore
from biarena.settings import Settings


class CampaignSettings(Settings):
    """A campaign: a plan run into a folder (resumed when it exists), on one engine."""

    plan: Path
    out: Path
    shard: str | None = None
    """K/N: run share K of N (default: the Slurm array task's share when SLURM_ARRAY_TASK_ID is set, else all)."""
    engine: str = "local"
    """local (a process pool) or ray (Ray tasks)."""
    workers: int = Field(default=1, ge=1, json_schema_extra={"flag": "--workers"})
    address: str | None = None
    """A Ray cluster to run on (engine ray; default: start one here)."""


def execute_campaign(settings: CampaignSettings, on_event: EventHandler = ignore) -> CampaignSummary:
    """Do the plan's units the folder does not hold yet (this shard's share), reporting the start, each cell's
    units done and the end as messages through `on_event`."""
    share = parse_shard(settings.shard)

    def progress(p: CampaignProgress) -> None:
        cell = p.last
        if cell is None:
            return
        unit = cell.units[0]
        group_done, group_total = p.groups[(unit.benchmark, unit.system)]
        on_event(
            Message(
                f"  [{p.done}/{p.total} units] {unit.benchmark} × {unit.system} (seed {unit.seed}): "
                f"{group_done}/{group_total} of its units done"
            )
        )

    def start(p: CampaignProgress, units: int) -> None:
        where = (
            f"share {share.index}/{share.count}: {p.total} of its {units} units"
            if share.count > 1
            else f"{units} units"
        )
        plural = "s" if p.workers > 1 else ""
        on = f" at {settings.address}" if settings.address else ""
        on_event(
            Message(
                f"campaign {settings.plan} into {settings.out}: {where} ({p.done} done before) in {len(p.groups)} "
                f"benchmark x system groups; {settings.engine} engine{on}, {p.workers} worker{plural}"
            )
        )

    summary = run_campaign(
        settings.plan,
        settings.out,
        shard=share,
        engine=settings.engine,
        workers=settings.workers,
        address=settings.address,
        on_progress=progress,
        on_start=start,
    )
    on_event(
        Message(
            f"done: {summary.now} units now, {summary.before} before, of {summary.share} in this share "
            f"({summary.units} in the plan); results: {summary.results}; next: biarena show {settings.out}"
        )
    )
    return summary
