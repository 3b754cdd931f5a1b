"""Plan: a campaign as data (a matrix of benchmarks x systems x models x scorers x seeds, with per-cell options),
read from YAML and checked when it loads, so a typo is one line."""

from pathlib import Path
from types import UnionType
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from biarena.errors import FormatError, did_you_mean
from biarena.text_file import read_named_file


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class SystemEntry(_Strict):
    """A system under test with its options."""

    agent: str
    """The agent's name (`biarena describe agents`)."""
    options: dict[str, Any] = Field(default_factory=dict)
    """The agent's own options (as `-O NAME=VALUE`)."""
    name: str | None = Field(None, min_length=1)
    """How results and reports name the system (default: the agent, then ' · ' and the model when it takes one)."""


class ModelEntry(_Strict):
    """A model for the agents that take one, with its options."""

    model: str
    """A model string: mock, local, openai:NAME@URL."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Model options (as `-M NAME=VALUE`); `connections` limits requests to its server across all workers."""


class ScorerEntry(_Strict):
    """A scorer with its options."""

    name: str
    """The scorer's name (`biarena describe scorers`)."""
    options: dict[str, Any] = Field(default_factory=dict)
    """The scorer's options (as `-O NAME=VALUE`)."""


def _entries(value: Any, key: str) -> Any:
    """A bare name stands for an entry with no options."""
    if isinstance(value, list):
        return [{key: item} if isinstance(item, str) else item for item in value]
    return value


class Matrix(_Strict):
    """The axes whose product is the campaign's cells (one run each), times its scorers (one work unit each)."""

    benchmarks: list[str] = Field(min_length=1)
    """Benchmark directories (relative to the plan file) or built-in names."""
    systems: list[SystemEntry] = Field(min_length=1)
    """Agents: a name or {agent: NAME, options: {...}}."""
    models: list[ModelEntry] = Field(default_factory=list)
    """Models for the agents that take one (the others run once): a model string or {model: ..., options: {...}}."""
    scorers: list[ScorerEntry] = Field(default_factory=list)
    """Scorers: a name or {name: NAME, options: {...}}; none: the runs are only answered."""
    seeds: list[int] = Field(default_factory=lambda: [0])
    """Repetitions of each run, told apart by their seed (recorded in the run's options)."""

    _systems = field_validator("systems", mode="before")(lambda v: _entries(v, "agent"))
    _models = field_validator("models", mode="before")(lambda v: _entries(v, "model"))
    _scorers = field_validator("scorers", mode="before")(lambda v: _entries(v, "name"))


class CellMatch(_Strict):
    """Which cells an override applies to: every given field must match (a benchmark as written in the matrix)."""

    benchmark: str | None = None
    agent: str | None = None
    model: str | None = None
    seed: int | None = None


class CellOverride(_Strict):
    """Options for some cells of the matrix, merged over the matrix's own."""

    match: CellMatch = Field(default_factory=CellMatch)
    """The cells changed (all when empty)."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Agent options merged over the system's."""
    model_options: dict[str, Any] = Field(default_factory=dict)
    """Model options merged over the model's."""
    limit: int | None = Field(None, ge=1)
    """Only the first N questions of the benchmark in these cells."""
    skip: bool = False
    """Leave these cells out of the campaign."""


class Plan(_Strict):
    """A campaign plan: a matrix, optional per-cell overrides, and how many questions."""

    matrix: Matrix
    """The axes of the campaign."""
    cells: list[CellOverride] = Field(default_factory=list)
    """Per-cell overrides, applied in order."""
    limit: int | None = Field(None, ge=1)
    """Only the first N questions of each benchmark."""
    timeout: float = Field(30.0, gt=0)
    """Seconds each SQL statement may run."""
    judge_model: ModelEntry | None = None
    """The model of the scorers that call one (the judges): a model string or {model: ..., options: {...}}."""

    @field_validator("judge_model", mode="before")
    @classmethod
    def _judge_model(cls, value: Any) -> Any:
        return {"model": value} if isinstance(value, str) else value


def load_plan(path: Path) -> Plan:
    """Read and check a plan file; a one-line error says where it is wrong."""
    from biarena.yaml_load import load_yaml

    data = load_yaml(read_named_file(path, "plan"), str(path))
    if not isinstance(data, dict):
        raise FormatError(f"{path}: a plan is a mapping with a 'matrix' (benchmarks, systems, models, scorers, seeds)")
    try:
        return Plan.model_validate(data)
    except ValidationError as error:
        # a misspelt key also leaves its right spelling missing: the misspelling is what to report
        first = next((e for e in error.errors() if e["type"] == "extra_forbidden"), error.errors()[0])
        where = ".".join(str(part) for part in first["loc"]) or "plan"
        problem = first["msg"]
        if first["type"] == "extra_forbidden" and first["loc"]:
            known = _keys_at(Plan, first["loc"][:-1])
            problem = f"unknown key{did_you_mean(str(first['loc'][-1]), known)} (known: {', '.join(known)})"
        raise FormatError(f"{path}: {where}: {problem}") from None


def _keys_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The keys the plan takes at `loc` (the path of the mapping holding an unknown key)."""
    current: Any = model
    for part in loc:
        while get_origin(current) in (list, Union, UnionType):
            current = next(arg for arg in get_args(current) if arg is not type(None))
        if isinstance(part, str) and isinstance(current, type) and issubclass(current, BaseModel):
            current = current.model_fields[part].annotation
    while get_origin(current) in (list, Union, UnionType):
        current = next(arg for arg in get_args(current) if arg is not type(None))
    if isinstance(current, type) and issubclass(current, BaseModel):
        return sorted(current.model_fields)
    return []
