"""The vertical spec language: tables, column generators, rules, segments, seasonality and planted events."""

from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from biarena.benchmarks.yaml_file import load_yaml_model


class Column(BaseModel):
    """How one column is generated."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal[
        "sequence", "category", "normal", "uniform", "poisson", "foreign", "timestamp", "date", "faker", "constant"
    ]
    values: dict[Any, float] | list[Any] | None = None
    """category: value -> share (exact up to rounding), or a list (equal shares)."""
    mean: float | None = None
    sd: float | None = None
    low: float | None = None
    high: float | None = None
    min: float | None = None
    round: int | None = None
    ref: str | None = None
    """foreign: `table.column` of the parent key."""
    weight: dict[str, Any] | None = None
    """foreign: {column: parent column, values: {value: weight}}: parents chosen in proportion."""
    factor: dict[str, Any] | None = None
    """numeric: {column: a category column of this table, values: {value: multiplier}}."""
    provider: str | None = None
    """faker: the Faker provider (name, company, city, ...)."""
    start: date | None = None
    end: date | None = None
    value: Any = None


class Table(BaseModel):
    """A table and its row count at scale 1."""

    model_config = ConfigDict(extra="forbid")

    rows: int = Field(gt=0)
    scaled: bool = True
    """False for lookup tables whose size does not grow with --scale."""
    primary_key: str | None = None
    columns: dict[str, Column]


class Rule(BaseModel):
    """A business operation rule: where `when` holds, `column` is `then`, else `otherwise`."""

    model_config = ConfigDict(extra="forbid")

    name: str
    table: str
    column: str
    when: str
    then: Any
    otherwise: Any = None


class Segments(BaseModel):
    """A latent feature distribution to verify: a category column's shares."""

    model_config = ConfigDict(extra="forbid")

    name: str
    table: str
    column: str


class Event(BaseModel):
    """A named date window that multiplies activity (New Year +45%, Black Friday +27%, ...)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    month: int = Field(ge=1, le=12)
    days: tuple[int, int]
    factor: float = Field(gt=0)


class Seasonality(BaseModel):
    """Latent seasonal trends applied to every timestamp column."""

    model_config = ConfigDict(extra="forbid")

    months: dict[int, float] = Field(default_factory=dict)
    weekend: float = 1.0
    events: list[Event] = Field(default_factory=list)


class Planted(BaseModel):
    """A planted event: a spike or drop in one slice of a table, with its cause recorded in the data."""

    model_config = ConfigDict(extra="forbid")

    name: str
    table: str
    column: str
    """The slice: rows where `column` = `value` ..."""
    value: Any
    start: date
    end: date
    factor: float = Field(gt=0)
    """... have `factor` times their usual activity between start and end."""
    cause: dict[str, Any]
    """{table: ..., row: {...}}: the record that explains it (a release, a competitor opening)."""
    explanation: str


class Spec(BaseModel):
    """One vertical."""

    model_config = ConfigDict(extra="forbid")

    name: str
    title: str
    description: str
    start: date
    anchor: datetime
    tables: dict[str, Table]
    rules: list[Rule] = Field(default_factory=list)
    segments: list[Segments] = Field(default_factory=list)
    seasonality: Seasonality = Field(default_factory=Seasonality)
    planted: list[Planted] = Field(default_factory=list)


def load_spec(path: str | Path) -> Spec:
    """Read a vertical spec; FormatError names the file and field of a problem."""
    return load_yaml_model(path, Spec, "spec")
