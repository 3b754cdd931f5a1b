"""expand_plan: a plan's matrix as cells (one run each) and content-addressed work units (a cell x a scorer)."""

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from biarena.agents import MODEL_AGENTS, system_factory
from biarena.campaign.plan import CellOverride, ModelEntry, Plan, ScorerEntry, SystemEntry
from biarena.errors import BiarenaError, UsageError
from biarena.llm.model_options import ModelOptions, split_spec
from biarena.llm.redact import redact_text
from biarena.options import NoOptions, Options, options_model, validate_options
from biarena.records import Question
from biarena.records.runspec import BenchmarkFingerprint


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScorerSpec(_Frozen):
    """A scorer as a unit names it: its name, version and options (with their defaults)."""

    name: str
    version: str
    options: dict[str, Any] = {}
    model: dict[str, Any] | None = None
    """The judge model's options, for a scorer that calls a model."""


class WorkUnit(_Frozen):
    """One scorer's results on one cell's run (or the run's answers alone, for a plan without scorers)."""

    id: str
    """SHA-256 of the cell's key and the scorer's spec."""
    cell: str
    """The key of the cell (run) the unit belongs to."""
    run: str
    """The run file's name under the campaign's runs/ folder."""
    benchmark: str
    """The benchmark's name."""
    system: str
    """The agent, with the model after a ' · ' for an agent that takes one."""
    seed: int
    scorer: ScorerSpec | None = None


class Cell(_Frozen):
    """One run of the matrix: a benchmark, a system (agent, options, model) and a seed over chosen questions."""

    key: str
    """SHA-256 of the benchmark's fingerprint, the system's spec, the seed and the question ids."""
    run: str
    """The run file's name under runs/."""
    benchmark: str
    """Where the benchmark is: an absolute directory or a built-in name."""
    benchmark_name: str
    fingerprint: BenchmarkFingerprint
    system: str
    """How results and reports name the system."""
    agent: str
    agent_options: dict[str, Any]
    model: dict[str, Any] | None
    """The model's options (ModelOptions), for an agent that takes one."""
    seed: int
    question_ids: list[str]
    timeout: float
    units: list[WorkUnit]


def digest(value: object) -> str:
    """SHA-256 of a value's canonical JSON."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def expand_plan(plan: Plan, base: Path, source: str = "plan") -> tuple[list[Cell], dict[str, list[Question]]]:
    """The plan's cells in key order, and each cell's questions; benchmarks are loaded and fingerprinted once.

    `source` (the plan file) begins each error, with the path of the entry at fault after it."""
    from biarena.benchmarks import resolve_benchmark
    from biarena.db import DatabasePool
    from biarena.runner import benchmark_fingerprint, select_questions

    judge = (
        _model_options(plan.judge_model.model, plan.judge_model.options, f"{source}: judge_model")
        if plan.judge_model
        else None
    )
    for index, model_entry in enumerate(plan.matrix.models):
        _model_options(model_entry.model, model_entry.options, f"{source}: matrix.models.{index}")
    scorers = [
        _scorer_spec(entry, judge, f"{source}: matrix.scorers.{index}")
        for index, entry in enumerate(plan.matrix.scorers)
    ]
    if len({s.name for s in scorers}) < len(scorers):
        raise UsageError(f"{source}: matrix.scorers names a scorer twice")
    for index, entry in enumerate(plan.matrix.systems):
        _agent_options(entry.agent, entry.options, f"{source}: matrix.systems.{index}")
    cells: dict[str, Cell] = {}
    questions_of: dict[str, list[Question]] = {}
    for written in plan.matrix.benchmarks:
        location = _locate(written, base)
        benchmark = resolve_benchmark(location)
        pool = DatabasePool(benchmark)
        try:
            pool.open_all()
            for entry in plan.matrix.systems:
                models: list[ModelEntry | None] = list(plan.matrix.models) if entry.agent in MODEL_AGENTS else [None]
                if entry.agent in MODEL_AGENTS and not models:
                    raise UsageError(f"{source}: agent '{entry.agent}' takes a model: list one under matrix.models")
                for model in models:
                    for seed in plan.matrix.seeds:
                        overrides = [o for o in plan.cells if _matches(o, written, entry, model, seed)]
                        if any(o.skip for o in overrides):
                            continue
                        limit = next((o.limit for o in reversed(overrides) if o.limit), plan.limit)
                        chosen = select_questions(benchmark, limit)
                        fingerprint = benchmark_fingerprint(benchmark, pool, chosen)
                        cell = _cell(
                            location,
                            benchmark.name,
                            fingerprint,
                            entry,
                            model,
                            seed,
                            chosen,
                            overrides,
                            scorers,
                            plan.timeout,
                        )
                        cells[cell.key] = cell
                        questions_of[cell.key] = chosen
        finally:
            pool.close()
    ordered = [cells[key] for key in sorted(cells)]
    return ordered, questions_of


def _cell(
    location: str,
    benchmark_name: str,
    fingerprint: BenchmarkFingerprint,
    entry: SystemEntry,
    model: ModelEntry | None,
    seed: int,
    questions: list[Question],
    overrides: list[CellOverride],
    scorers: list[ScorerSpec],
    timeout: float,
) -> Cell:
    agent_values = dict(entry.options)
    model_values = dict(model.options) if model is not None else {}
    for override in overrides:
        agent_values.update(override.options)
        model_values.update(override.model_options)
    # the entries alone were checked with their paths; what fails now comes of an override's options
    agent_options = _agent_options(entry.agent, agent_values, "plan: cells").model_dump(mode="json")
    model_options = _model_options(model.model, model_values, "plan: cells") if model is not None else None
    ids = [q.id for q in questions]
    key = digest(
        {
            "benchmark": fingerprint.model_dump(mode="json"),
            "agent": entry.agent,
            "name": entry.name,
            "options": agent_options,
            "model": model_options,
            "seed": seed,
            "questions": ids,
            "timeout": timeout,
        }
    )
    system = (entry.name or entry.agent) + (f" · {model.model}" if model is not None else "")
    run = f"{_slug(benchmark_name)}__{_slug(system)}__s{seed}__{key[:12]}.sqlite"
    units = [
        WorkUnit(
            id=digest({"cell": key, "scorer": scorer.model_dump(mode="json") if scorer else None}),
            cell=key,
            run=run,
            benchmark=benchmark_name,
            system=system,
            seed=seed,
            scorer=scorer,
        )
        for scorer in (scorers or [None])
    ]
    return Cell(
        key=key,
        run=run,
        benchmark=location,
        benchmark_name=benchmark_name,
        fingerprint=fingerprint,
        system=system,
        agent=entry.agent,
        agent_options=agent_options,
        model=model_options,
        seed=seed,
        question_ids=ids,
        timeout=timeout,
        units=units,
    )


def _matches(override: CellOverride, benchmark: str, entry: SystemEntry, model: ModelEntry | None, seed: int) -> bool:
    match = override.match
    return (
        (match.benchmark is None or match.benchmark == benchmark)
        and (match.agent is None or match.agent == entry.agent)
        and (match.model is None or (model is not None and match.model == model.model))
        and (match.seed is None or match.seed == seed)
    )


def _locate(written: str, base: Path) -> str:
    """A benchmark as the plan names it: a directory beside the plan file, a directory, or a built-in name."""
    beside = base / written
    if beside.is_dir():
        return str(beside.resolve())
    if Path(written).is_dir():
        return str(Path(written).resolve())
    return written


def _agent_options(agent: str, values: dict[str, Any], where: str) -> Options:
    """The agent's options checked; an error begins with `where`, the plan entry's path."""
    try:
        model = options_model(system_factory(agent))
    except BiarenaError as error:
        raise UsageError(f"{where}.agent: {error}") from None
    return validate_options(model, values, f"{where}.options: agent '{agent}'")


def _model_options(text: str, values: dict[str, Any], where: str) -> dict[str, Any]:
    settings = {**split_spec(text), **values}
    options = validate_options(ModelOptions, settings, f"{where}: model '{redact_text(text)}'")
    return options.model_dump(mode="json")


def _scorer_spec(entry: ScorerEntry, judge: dict[str, Any] | None, where: str) -> ScorerSpec:
    """The scorer made once, so an unknown name or option is refused before anything runs."""
    from biarena.scoring import SCORERS, get_scorer

    try:
        factory = SCORERS.get(entry.name)
        model = options_model(factory) if factory is not None else NoOptions
        options = validate_options(model, entry.options, f"{where}.options: scorer '{entry.name}'")
        scorer = get_scorer(entry.name, **({"options": options} if entry.options else {}))
    except BiarenaError as error:
        raise UsageError(str(error) if str(error).startswith(where) else f"{where}.name: {error}") from None
    if scorer.needs_model and judge is None:
        raise UsageError(f"{where}: scorer '{entry.name}' calls a model: name it with judge_model")
    return ScorerSpec(
        name=scorer.name,
        version=scorer.version,
        options=options.model_dump(mode="json"),
        model=judge if scorer.needs_model else None,
    )


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")[:40] or "x"
