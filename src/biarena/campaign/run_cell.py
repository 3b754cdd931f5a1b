"""run_cell: a worker's share of a campaign: one cell's run answered and scored with the run and score cores
in a private run file, whose contents go back to the campaign's one writer."""

import tempfile
import warnings
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from biarena.campaign.units import Cell, WorkUnit
from biarena.errors import BiarenaWarning, NoteWarning
from biarena.records import Answer, RunSpec, ScoreRecord


class CellTask(BaseModel):
    """What a worker is given: a cell, the answers the campaign already holds for it, and the units to do."""

    model_config = ConfigDict(frozen=True)

    cell: Cell
    answers: list[Answer] = []
    """Answers recorded before (they are scored, not asked again)."""
    units: list[WorkUnit]
    """The units of the cell still to do."""


class CellResult(BaseModel):
    """What a worker sends back: the run's spec, its new answers, the scorers' results and kept statement results."""

    cell: str
    spec: RunSpec
    answers: list[Answer]
    results: list[ScoreRecord]
    kept: list[tuple[str, str, str, str]]
    """Statement results scoring kept: (database, role, sql, JSON)."""
    units: list[str]
    """The ids of the units done."""
    warnings: list[tuple[bool, str]] = []
    """The BiarenaWarnings raised while the worker ran, in order: (a model's note, its text); the campaign's
    process raises them again, where they are shown."""


_RAISED = {True: NoteWarning, False: BiarenaWarning}


def raise_again(result: CellResult) -> None:
    """Raise in this process the BiarenaWarnings a worker recorded (they are shown where the campaign runs)."""
    for note, text in result.warnings:
        warnings.warn(text, _RAISED[note], stacklevel=2)


def run_cell(task: CellTask, gate: Any = None) -> CellResult:
    """Answer the cell's unanswered questions and apply its units' scorers; nothing is written outside a temporary
    folder. `gate`, when given, holds model servers' `connections` limits across workers. BiarenaWarnings are
    recorded in the result rather than shown here (a worker may have no terminal to show them on)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BiarenaWarning)
        result = _run_cell(task, gate)
    for found in caught:
        if isinstance(found.message, BiarenaWarning):
            result.warnings.append((isinstance(found.message, NoteWarning), str(found.message)))
        else:
            warnings.showwarning(found.message, found.category, found.filename, found.lineno)
    return result


def _run_cell(task: CellTask, gate: Any) -> CellResult:
    from biarena.benchmarks import resolve_benchmark
    from biarena.db import DatabasePool, SandboxLimits
    from biarena.llm.shared_limit import share_limits
    from biarena.metrics import ScoringContext
    from biarena.runner import RunStore, make_spec, open_run, run_benchmark
    from biarena.scoring import score_run, setup_scorers

    cell = task.cell
    share_limits(gate)
    benchmark = resolve_benchmark(cell.benchmark)
    by_id = {q.id: q for q in benchmark.questions}
    questions = [by_id[qid] for qid in cell.question_ids]
    pool = DatabasePool(benchmark, limits=SandboxLimits(timeout=cell.timeout))
    system = _system(cell)
    recorded = {a.question_id for a in task.answers}
    try:
        pool.open_all()
        with (
            tempfile.TemporaryDirectory(prefix="biarena-cell-") as folder,
            RunStore(Path(folder) / cell.run, create=True) as store,
        ):
            spec = make_spec(
                cell.benchmark,
                benchmark,
                system,
                questions,
                {"seed": cell.seed},
                label=f"{cell.system} · {cell.benchmark_name}" + (f" · seed {cell.seed}" if cell.seed else ""),
                fingerprint=cell.fingerprint,
            )
            opened = open_run(store, spec, questions)
            for answer in task.answers:
                store.add_answer(answer)
            pending = [q for q in questions if q.id not in recorded]
            run_benchmark(benchmark, system, store, pool, pending)
            scorers = [_scorer(unit) for unit in task.units if unit.scorer is not None]
            if scorers:
                context = ScoringContext(benchmark=benchmark, databases=pool, kept=store)
                judge = next((u.scorer.model for u in task.units if u.scorer and u.scorer.model), None)
                setups = setup_scorers(scorers, context, model=lambda: _judge_model(judge))
                score_run(store, setups)
            kept = store.kept_results()
            return CellResult(
                cell=cell.key,
                spec=opened.spec or spec,
                answers=[a for a in store.answers() if a.question_id not in recorded],
                results=store.results(),
                kept=[tuple(row) for row in kept],
                units=[unit.id for unit in task.units],
            )
    finally:
        pool.close()
        cancel = getattr(system, "cancel", None)
        if callable(cancel):
            cancel()


def _system(cell: Cell) -> Any:
    """The cell's system, made as a run makes one (`biarena.runner.build_system`)."""
    from biarena.agents import system_factory
    from biarena.llm.model_options import ModelOptions
    from biarena.options import options_model
    from biarena.runner.build_system import build_system

    options = options_model(system_factory(cell.agent)).model_validate(cell.agent_options)
    model = ModelOptions.model_validate(cell.model) if cell.model is not None else None
    return build_system(cell.agent, options=options, model_options=model)


def _scorer(unit: WorkUnit) -> Any:
    from biarena.options import options_model
    from biarena.scoring import SCORERS, get_scorer

    spec = unit.scorer
    assert spec is not None
    factory = SCORERS.get(spec.name)
    if factory is None or not spec.options:
        return get_scorer(spec.name)
    model = options_model(factory)
    return get_scorer(spec.name, options=model.model_validate(spec.options))


def _judge_model(options: dict[str, Any] | None) -> Any:
    from biarena.errors import UsageError
    from biarena.llm import get_model
    from biarena.llm.model_options import ModelOptions

    if options is None:
        raise UsageError("a scorer calls a model: name it with the plan's judge_model")
    made = ModelOptions.model_validate(options)
    return get_model(made.spec(), options=made, concurrency=1)
