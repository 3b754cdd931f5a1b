"""The vertical spec language: tables, column generators, rules, segments, seasonality and planted events."""

from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from biarena.benchmarks.yaml_file import load_yaml_model


class Column(BaseModel):
    """How one column is generated."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal[
        "sequence",
        "category",
        "normal",
        "uniform",
        "poisson",
        "foreign",
        "timestamp",
        "after",
        "date",
        "faker",
        "constant",
    ]
    values: dict[Any, float] | list[Any] | None = None
    """category: value -> share (exact up to rounding), or a list (equal shares)."""
    mean: float | None = None
    sd: float | None = None
    low: float | None = None
    high: float | None = None
    """uniform: the range; after: hours after `of`, drawn uniformly between low and high."""
    of: str | None = None
    """after: the timestamp column of the same table this one follows (shipped after ordered, ...)."""
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
    noun: str | None = None
    """What the rows are, plural, for question wording (`orders`, `deliveries`); default: the table name."""
    columns: dict[str, Column]

    @property
    def stamp(self) -> str | None:
        """The first timestamp column: it orders the rows and carries the seasons."""
        return next((c for c, col in self.columns.items() if col.kind == "timestamp"), None)

    @model_validator(mode="after")
    def _references(self) -> "Table":
        for name, column in self.columns.items():
            if column.kind == "foreign" and (not column.ref or column.ref.count(".") != 1):
                raise ValueError(f"column {name}: a foreign column needs ref: table.column")
            if column.kind == "after" and column.of not in self.columns:
                raise ValueError(f"column {name}: 'of' must name a timestamp column of this table")
        return self


class Case(BaseModel):
    """One branch of a rule: where `when` holds, the column is `then`."""

    model_config = ConfigDict(extra="forbid")

    when: str
    then: Any
    """A literal, or {expr: SQL arithmetic on the row's columns, round: digits}."""


class Rule(BaseModel):
    """A business operation rule: the first case whose `when` holds sets `column`; otherwise `otherwise`.

    Conditions and expressions are portable SQL over the table's own columns (comparisons, AND/OR/NOT, IN,
    BETWEEN, IS NULL, + - * /): the generator evaluates them and the verifier runs them on the written data.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    table: str
    column: str
    when: str | None = None
    then: Any = None
    cases: list[Case] = Field(default_factory=list)
    otherwise: Any = None
    description: str | None = None

    @model_validator(mode="after")
    def _one_form(self) -> "Rule":
        if (self.when is None) == (not self.cases):
            raise ValueError(f"rule '{self.name}': give either when/then or cases")
        for value in [self.then, self.otherwise, *(c.then for c in self.cases)]:
            if isinstance(value, dict) and set(value) - {"expr", "round"}:
                raise ValueError(f"rule '{self.name}': an expression value is {{expr: ..., round: digits}}")
        return self

    def branches(self) -> list[Case]:
        """The cases in order (a when/then rule is one case)."""
        return self.cases or [Case(when=self.when or "", then=self.then)]


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
    reason: str | None = None


class Seasonality(BaseModel):
    """Latent seasonal trends applied to every timestamp column."""

    model_config = ConfigDict(extra="forbid")

    months: dict[int, float] = Field(default_factory=dict)
    reasons: dict[int, str] = Field(default_factory=dict)
    """Why a month differs (`New Year resolutions`), for explanatory questions' references."""
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
    """{table: ..., row: {...}}: the record that explains it (a release, a competitor opening); a row without
    its primary key gets the next one."""
    explanation: str


class Spec(BaseModel):
    """One vertical."""

    model_config = ConfigDict(extra="forbid")

    name: str
    title: str
    description: str
    start: date
    anchor: datetime
    locale: str = "en_US"
    """Faker's locale for names, addresses and text."""
    tables: dict[str, Table]
    rules: list[Rule] = Field(default_factory=list)
    segments: list[Segments] = Field(default_factory=list)
    seasonality: Seasonality = Field(default_factory=Seasonality)
    planted: list[Planted] = Field(default_factory=list)

    @model_validator(mode="after")
    def _names_resolve(self) -> "Spec":
        def column(where: str, table: str, name: str) -> None:
            if table not in self.tables:
                raise ValueError(f"{where}: unknown table '{table}'")
            if name not in self.tables[table].columns:
                raise ValueError(f"{where}: table {table} has no column '{name}'")

        for table_name, table in self.tables.items():
            for name, col in table.columns.items():
                if col.kind == "foreign" and col.ref:
                    column(f"column {table_name}.{name}", *col.ref.split("."))
        for rule in self.rules:
            column(f"rule '{rule.name}'", rule.table, rule.column)
        for segment in self.segments:
            column(f"segments '{segment.name}'", segment.table, segment.column)
        for event in self.planted:
            column(f"planted event '{event.name}'", event.table, event.column)
            if not self.tables[event.table].stamp:
                raise ValueError(f"planted event '{event.name}': table {event.table} has no timestamp column")
            for name in event.cause.get("row", {}):
                column(f"planted event '{event.name}' cause", event.cause.get("table", ""), name)
        return self


def load_spec(path: str | Path) -> Spec:
    """Read a vertical spec; FormatError names the file and field of a problem."""
    return load_yaml_model(path, Spec, "spec")
