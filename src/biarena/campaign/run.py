"""run_campaign: a plan's units (or one shard's share of them) done on an engine, each result written into the
campaign's run files by this process alone, as it arrives."""

import os
from collections.abc import Callable, Generator
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biarena.campaign.folder import CampaignFolder
from biarena.campaign.plan import load_plan
from biarena.campaign.run_cell import CellResult, CellTask, raise_again
from biarena.campaign.units import Cell, expand_plan
from biarena.errors import UsageError, did_you_mean
from biarena.records import Question
from biarena.registry import Registry

ENGINES: Registry[Any] = Registry(
    "campaign engine",
    {
        "local": ("biarena.campaign.engines:LocalCells", {"cluster": False}),
        "ray": ("biarena.campaign.engines:RayCells", {"cluster": True}),
    },
)
"""What runs a campaign's cells (`--engine`), each imported when used: `prepare()` before any work,
`session(workers, address)` held while cells run (yields how many run at once), `run(tasks, workers, out)` yields
their results; `cluster` says whether it takes a cluster's `--address`."""
SLURM_ID = "SLURM_ARRAY_TASK_ID"
SLURM_COUNT = "SLURM_ARRAY_TASK_COUNT"
SLURM_MIN = "SLURM_ARRAY_TASK_MIN"


@dataclass(frozen=True)
class Shard:
    """Share `index` (1-based) of `count`."""

    index: int = 1
    count: int = 1

    def takes(self, position: int) -> bool:
        """Whether the cell at `position` in key order is this shard's."""
        return position % self.count == self.index - 1


def parse_shard(text: str | None, environ: dict[str, str] | None = None) -> Shard:
    """A --shard K/N, else the Slurm array task's share (SLURM_ARRAY_TASK_ID, _COUNT and _MIN), else all."""
    environ = dict(os.environ) if environ is None else environ
    if text is None:
        if SLURM_ID not in environ or SLURM_COUNT not in environ:
            return Shard()
        try:
            first = int(environ.get(SLURM_MIN, "0"))
            index, count = int(environ[SLURM_ID]) - first + 1, int(environ[SLURM_COUNT])
        except ValueError:
            raise UsageError(f"{SLURM_ID}, {SLURM_COUNT} and {SLURM_MIN} must be whole numbers") from None
        if count < 1 or not 1 <= index <= count:
            raise UsageError(f"{SLURM_ID}={environ[SLURM_ID]} is not one of the {count} tasks of the array")
        return Shard(index, count)
    index_text, sep, count_text = text.partition("/")
    if not sep or not index_text.strip().isdigit() or not count_text.strip().isdigit():
        raise UsageError(f"--shard {text}: give K/N, e.g. 1/3 (the first of three shares)")
    index, count = int(index_text), int(count_text)
    if count < 1 or not 1 <= index <= count:
        raise UsageError(f"--shard {text}: K must be between 1 and N")
    return Shard(index, count)


@dataclass
class CampaignProgress:
    """Units done of the campaign's share, overall and per benchmark x system."""

    done: int
    total: int
    groups: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    """(benchmark, system) -> [done, total]."""
    last: Cell | None = None
    workers: int = 1
    """Cells the engine runs at once: the local pool's processes, or the CPUs of the Ray cluster."""


@dataclass(frozen=True)
class CampaignSummary:
    """What a campaign call did."""

    units: int
    """Units of the plan."""
    share: int
    """Units of this shard."""
    before: int
    """Of the share, units done before this call."""
    now: int
    """Units done by this call."""
    cells_now: int
    results: Path


def run_campaign(
    plan_path: Path,
    out: Path,
    *,
    shard: Shard = Shard(),
    engine: str = "local",
    workers: int = 1,
    address: str | None = None,
    on_progress: Callable[[CampaignProgress], None] | None = None,
    on_start: Callable[[CampaignProgress, int], None] | None = None,
) -> CampaignSummary:
    """Do the plan's units that `out` does not hold yet (this shard's share of them) and write its results table.

    `on_start` is told the share's progress before any work and the number of units in the plan; `on_progress`
    each time a cell's results are written."""
    if engine not in ENGINES:
        hint = did_you_mean(engine, list(ENGINES))
        raise UsageError(f"unknown engine '{engine}'{hint} (known: {', '.join(ENGINES)})")
    if address is not None and not ENGINES.meta(engine, "cluster", False):
        raise UsageError("--address names a Ray cluster: give --engine ray")
    runner = ENGINES[engine]
    runner.prepare()
    plan = load_plan(plan_path)
    cells, questions = expand_plan(plan, plan_path.parent, str(plan_path))
    folder = CampaignFolder(out)
    _refuse_foreign(out)
    folder.add_units([unit for cell in cells for unit in cell.units])
    mine = [cell for position, cell in enumerate(cells) if shard.takes(position)]
    done = folder.done()
    progress = CampaignProgress(0, 0)
    for cell in mine:
        for unit in cell.units:
            group = progress.groups.setdefault((unit.benchmark, unit.system), [0, 0])
            group[1] += 1
            progress.total += 1
            if unit.id in done:
                group[0] += 1
                progress.done += 1
    before = progress.done
    tasks = [task for cell in mine if (task := _task(folder, cell, done)) is not None]
    by_key = {cell.key: cell for cell in mine}
    cells_now = 0
    with ExitStack() as session:
        progress.workers = workers
        if tasks:
            progress.workers = session.enter_context(runner.session(workers, address))
        if on_start is not None:
            on_start(progress, sum(len(c.units) for c in cells))
        # closed before the session ends: the engine lets go of what it holds on the cluster while joined to it
        with closing(_results(runner, tasks, workers, out)) as results:
            for result in results:
                raise_again(result)
                cell = by_key[result.cell]
                write_result(folder, cell, questions[cell.key], result)
                cells_now += 1
                for unit in cell.units:
                    if unit.id in result.units:
                        progress.groups[(unit.benchmark, unit.system)][0] += 1
                        progress.done += 1
                progress.last = cell
                if on_progress is not None:
                    on_progress(progress)
    results = folder.write_results()
    return CampaignSummary(
        units=sum(len(c.units) for c in cells),
        share=progress.total,
        before=before,
        now=progress.done - before,
        cells_now=cells_now,
        results=results,
    )


def _refuse_foreign(out: Path) -> None:
    """A folder that holds other things than a campaign is not written into."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"-o {out}: is a file, not a campaign folder")
    if out.is_dir() and any(out.iterdir()) and not (out / "campaign.json").is_file():
        raise UsageError(f"-o {out}: the folder holds other files; give a new or a campaign folder")


def _task(folder: CampaignFolder, cell: Cell, done: set[str]) -> CellTask | None:
    """The work left of a cell: its units not done, with the answers its run file already holds."""
    from biarena.runner import RunStore

    left = [unit for unit in cell.units if unit.id not in done]
    if not left:
        return None
    answers = []
    path = folder.runs / cell.run
    if path.is_file():
        with RunStore(path) as store:
            answers = [a for a in store.answers() if a.question_id in set(cell.question_ids)]
    return CellTask(cell=cell, answers=answers, units=left)


def write_result(folder: CampaignFolder, cell: Cell, questions: list[Question], result: CellResult) -> None:
    """Write a worker's result into the cell's run file (answers, results, kept statement results), then mark its
    units done; an answer or result already there is not written twice."""
    from biarena.runner import RunStore, open_run

    with RunStore(folder.runs / cell.run, create=True, lock=True) as store:
        open_run(store, result.spec, questions)
        for answer in result.answers:
            store.add_answer(answer)
        if result.results:
            store.put_results(result.results)
        for database, role, sql, body in result.kept:
            store.keep_result(database, role, sql, body)
    folder.mark_done(result.units)


def _results(runner: Any, tasks: list[CellTask], workers: int, out: Path) -> Generator[CellResult, None, None]:
    """The tasks' results as the engine `runner` yields them (nothing started when there is no task)."""
    if tasks:
        yield from runner.run(tasks, workers, out)
