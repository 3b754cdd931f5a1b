"""The vertical spec language: tables, column generators, rules, segments, seasonality and planted events."""

import re
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from biarena.synth.corgi_figures import SchemaFigures
from biarena.synth.table_spec import Column, Table, empty_columns
from biarena.yaml_model import load_yaml_model

__all__ = [
    "Briefing",
    "Case",
    "Column",
    "Event",
    "Hop",
    "Planted",
    "Rule",
    "Seasonality",
    "Segments",
    "Spec",
    "Table",
    "Trend",
    "column_kind",
    "empty_columns",
    "load_spec",
]


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


class Trend(BaseModel):
    """Growth from a date on: activity compounds by `growth` a year (0.2 is +20% a year, -0.1 a decline)."""

    model_config = ConfigDict(extra="forbid")

    since: date
    growth: float = Field(gt=-1)
    reason: str | None = None


class Seasonality(BaseModel):
    """Latent seasonal trends applied to every timestamp column."""

    model_config = ConfigDict(extra="forbid")

    trend: list[Trend] = Field(default_factory=list)
    """Growth phases in date order; each lasts until the next one starts (a change of trend)."""

    months: dict[int, float] = Field(default_factory=dict)
    reasons: dict[int, str] = Field(default_factory=dict)
    """Why a month differs (`New Year resolutions`), for explanatory questions' references."""
    weekend: float = 1.0
    events: list[Event] = Field(default_factory=list)


class Planted(BaseModel):
    """A planted event: a spike, drop or shift in mix in one slice of a table, with its cause recorded in the data."""

    model_config = ConfigDict(extra="forbid")

    name: str
    kind: Literal["volume", "shift"] = "volume"
    """volume: the slice's rows are multiplied (a spike above 1, a drop below); shift: the slice's share of the
    table's rows in the window is multiplied, rows moving to it from other values, the total unchanged."""
    table: str
    column: str
    """The slice: rows where `column` = `value` ..."""
    value: Any
    start: date
    end: date
    factor: float = Field(gt=0)
    """... have `factor` times their usual activity between start and end."""
    noun: str | None = None
    """The slice in a manager's words (`Prime orders`); default: the value before the table's noun."""
    propagate: list[str] = Field(default_factory=list)
    """Timed tables that follow the effect (more installs bring more reviews): their rows in the window grow or
    shrink by the change the event makes to its whole table, 1 + (factor - 1) x the slice's share."""
    cause: dict[str, Any]
    """{table: ..., row: {...}}: the record that explains it (a release, a competitor opening); a row without
    its primary key gets the next one."""
    explanation: str


class Briefing(BaseModel):
    """What the business tells an analyst: no generator parameters (shares, multipliers, planted factors)."""

    model_config = ConfigDict(extra="forbid")

    description: str
    tables: dict[str, str] = Field(default_factory=dict)
    """What a table's rows are, in the business's words."""
    policies: list[str] = Field(default_factory=list)

    def text(self) -> str:
        """The briefing as one text: description, policies, then what the tables mean."""
        parts = [" ".join(self.description.split())]
        parts += [f"Policy: {p}" for p in self.policies]
        parts += [f"Table {t}: {meaning}" for t, meaning in self.tables.items()]
        return "\n".join(parts)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A table or column name: the writers and verification write it into SQL between double quotes, and references
name a column as `table.column`."""


class Spec(BaseModel):
    """One vertical: `public` is what agents may read; everything else is the generator's hidden knowledge."""

    model_config = ConfigDict(extra="forbid")

    name: str
    title: str
    description: str
    """The generator's own account of the business, hidden parameters included (for references and judges)."""
    public: Briefing | None = None
    """What the business would tell an analyst; agents see only this (a spec without it shows its title only)."""
    start: date
    anchor: datetime
    locale: str = "en_US"
    """Faker's locale for names, addresses and text."""
    tables: dict[str, Table]
    rules: list[Rule] = Field(default_factory=list)
    segments: list[Segments] = Field(default_factory=list)
    seasonality: Seasonality = Field(default_factory=Seasonality)
    planted: list[Planted] = Field(default_factory=list)

    def figures(self) -> "SchemaFigures":
        """Tables, average columns per table (rounded to one decimal) and foreign keys, as CORGI's Table 1 counts
        them."""
        columns = sum(len(t.columns) for t in self.tables.values())
        keys = sum(c.kind == "foreign" for t in self.tables.values() for c in t.columns.values())
        return SchemaFigures(len(self.tables), round(columns / max(len(self.tables), 1), 1), keys)

    @model_validator(mode="after")
    def _names_resolve(self) -> "Spec":
        def column(where: str, table: str, name: str) -> None:
            if table not in self.tables:
                raise ValueError(f"{where}: unknown table '{table}'")
            if name not in self.tables[table].columns:
                raise ValueError(f"{where}: table {table} has no column '{name}'")

        for table_name, table in self.tables.items():
            for name in (table_name, *table.columns):
                if _NAME.fullmatch(name) is None:
                    raise ValueError(f"table {table_name}: '{name}' is no name (letters, digits and _, no digit first)")
            for name, col in table.columns.items():
                where = f"column {table_name}.{name}"
                if col.kind == "foreign" and col.ref:
                    column(where, *col.ref.split("."))
                    parent = col.ref.split(".")[0]
                    if self.tables[parent].columns[col.ref.split(".")[1]].empty is not None:
                        raise ValueError(f"{where}: {col.ref} may be empty, so it is no key to refer to")
                    for bound in (col.follows, col.until):
                        if bound:
                            column(where, parent, bound)
                            if column_kind(self, parent, bound) not in ("timestamp", "date"):
                                raise ValueError(f"{where}: {parent}.{bound} is no time column")
                    if col.at and column_kind(self, table_name, col.at) not in ("timestamp", "date"):
                        raise ValueError(f"{where}: 'at' names {col.at}, no time column")
                    own_at = col.at and "." not in col.at
                    if (
                        own_at
                        and table.columns[str(col.at)].kind == "inherit"
                        and table.late(str(table.columns[str(col.at)].via))
                    ):
                        raise ValueError(f"{where}: 'at' names {col.at}, read through a key chosen at an own time")
                    if col.match:
                        column(where, parent, str(col.match["column"]))
                if col.via:
                    try:
                        self.path(table_name, col.via, str(col.of))
                    except (KeyError, ValueError):
                        raise ValueError(f"{where}: '{col.of}' is not reachable through {col.via}") from None
                for bounds in ("not_before", "not_after"):
                    for base in getattr(col, bounds) or []:
                        if "." in base:
                            via, of = base.split(".", 1)
                            try:
                                self.path(table_name, via, of)
                            except (KeyError, ValueError):
                                raise ValueError(f"{where}: {bounds} '{base}' is not reachable") from None
                        if column_kind(self, table_name, base) not in ("timestamp", "date"):
                            raise ValueError(f"{where}: {bounds} names {base}, no time column")
                if col.match:
                    other = str(table.columns[str(col.match["via"])].ref).split(".")[0]
                    column(where, other, str(col.match.get("of", col.match["column"])))
        for rule in self.rules:
            column(f"rule '{rule.name}'", rule.table, rule.column)
        self._empty_reads_final_values()
        for segment in self.segments:
            column(f"segments '{segment.name}'", segment.table, segment.column)
        for table_name in self.public.tables if self.public else {}:
            if table_name not in self.tables:
                raise ValueError(f"public: unknown table '{table_name}'")
        for event in self.planted:
            column(f"planted event '{event.name}'", event.table, event.column)
            event_column = self.tables[event.table].columns[event.column]
            if self.tables[event.table].late(event.column) or (
                event_column.kind == "inherit" and self.tables[event.table].late(str(event_column.via))
            ):
                raise ValueError(f"planted event '{event.name}': its slice is chosen after planted events apply")
            if event.kind == "shift" and self.tables[event.table].columns[event.column].kind != "category":
                raise ValueError(f"planted event '{event.name}': a shift in mix needs a category column")
            for table_name in event.propagate:
                if table_name not in self.tables or not self.tables[table_name].stamp or event.kind == "shift":
                    raise ValueError(f"planted event '{event.name}': propagate names timed tables of a volume event")
            if not self.tables[event.table].stamp:
                raise ValueError(f"planted event '{event.name}': table {event.table} has no timestamp column")
            for name in event.cause.get("row", {}):
                column(f"planted event '{event.name}' cause", event.cause.get("table", ""), name)
        return self

    def _empty_reads_final_values(self) -> None:
        """An `empty` condition is decided when the key is drawn: what rules or shifts in mix change later is no
        ground for it."""
        later = {(r.table, r.column): f"rule '{r.name}'" for r in self.rules}
        later |= {(p.table, p.column): f"planted event '{p.name}'" for p in self.planted if p.kind == "shift"}
        for table_name, table in self.tables.items():
            for name, col in table.columns.items():
                if isinstance(col.empty, str):
                    for read in sorted(empty_columns(col.empty)):
                        if (table_name, read) in later:
                            raise ValueError(
                                f"column {table_name}.{name}: the empty condition reads '{read}', which "
                                f"{later[table_name, read]} changes after keys are drawn"
                            )

    def touched(self, table: str) -> list[tuple[Planted, bool, float]]:
        """The planted events that change a table: (event, whether only its slice, factor on those rows)."""
        out = []
        for event in self.planted:
            if event.table == table:
                out.append((event, True, event.factor))
            elif table in event.propagate:
                out.append((event, False, 1 + (event.factor - 1) * self.slice_share(event)))
        return out

    def slice_share(self, event: Planted) -> float:
        """The share of its table's rows a planted event's slice holds, from the column's category shares."""
        column = self.tables[event.table].columns[event.column]
        if column.kind == "inherit":
            hops, last = self.path(event.table, column.via or "", column.of or "")
            column = self.tables[hops[-1][2]].columns[last]
        values = column.values
        # keys compare as text: a spec read back from a database has lost its numeric keys' type
        if isinstance(values, dict):
            shares = {str(k): float(v) for k, v in values.items()}
            return shares.get(str(event.value), 0.0) / (sum(shares.values()) or 1.0)
        return 1 / len(values) if values and str(event.value) in map(str, values) else 1.0

    def briefing(self) -> str:
        """What agents are told about the business: the title and the public briefing, never hidden parameters."""
        return f"{self.title}. {self.public.text()}" if self.public else f"{self.title}."

    def path(self, table: str, via: str, of: str) -> tuple[list["Hop"], str]:
        """The hops from `table` through `via` and the foreign columns named in `of`, and the column reached."""
        hops = [_hop(self, table, via)]
        *steps, last = of.split(".")
        for step in steps:
            hops.append(_hop(self, hops[-1][2], step))
        if last not in self.tables[hops[-1][2]].columns:
            raise ValueError(f"table {hops[-1][2]} has no column '{last}'")
        return hops, last


def column_kind(spec: "Spec", table: str, name: str) -> str:
    """Whether a column (or `key.column` through this table's keys) holds a timestamp, a date or something else."""
    if "." in name:
        via, of = name.split(".", 1)
        hops, last = spec.path(table, via, of)
        return column_kind(spec, hops[-1][2], last)
    column = spec.tables[table].columns[name]
    if column.kind in ("timestamp", "after", "date"):
        return "date" if column.kind == "date" else "timestamp"
    if column.kind == "inherit" and column.via and column.of:
        return column_kind(spec, table, f"{column.via}.{column.of}")
    return column.kind


Hop = tuple[str, str, str, str]
"""(table, foreign column, parent table, parent key)."""


def _hop(spec: "Spec", table: str, column: str) -> Hop:
    ref = spec.tables[table].columns[column]
    if ref.kind != "foreign" or not ref.ref:
        raise ValueError(f"{table}.{column} is not a foreign column")
    parent, key = ref.ref.split(".")
    return table, column, parent, key


def load_spec(path: str | Path) -> Spec:
    """Read a vertical spec; FormatError names the file and field of a problem."""
    return load_yaml_model(path, Spec, "spec")
