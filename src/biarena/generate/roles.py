"""Column roles: the small annotation the template factory needs to ask questions of a database."""

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from biarena.yaml_model import load_yaml_model

Aggregation = Literal["sum", "avg", "max", "min", "count"]


def _with_english(names: dict[str, str]) -> dict[str, str]:
    # Questions in every language fall back to the English name, so it must be there.
    if not names.get("en", "").strip():
        raise ValueError("needs an English name (en: ...)")
    return names


Names = Annotated[dict[str, str], AfterValidator(_with_english)]


class Metric(BaseModel):
    """What a fact measures: a numeric column, an expression over its columns, or its rows counted."""

    model_config = ConfigDict(extra="forbid")

    column: str | None = None
    """Column name in the fact table."""
    expression: str | None = None
    """Instead of a column, an SQL expression over the fact's columns (`UnitPrice * Quantity`)."""
    rows: bool = False
    """Instead of a column, the fact's rows counted (`number of rentals`): aggregation `count` only."""
    aggregations: list[Aggregation] = Field(default_factory=lambda: ["sum", "avg"])
    """Aggregations that make business sense for it (a rate is averaged, not summed)."""
    names: Names
    """Business name per language (`en: conversion rate`, `zh: 转化率`); abbreviations welcome."""

    @model_validator(mode="after")
    def _one_source(self) -> "Metric":
        given = [name for name in ("column", "expression") if getattr(self, name)] + (["rows"] if self.rows else [])
        if len(given) != 1:
            raise ValueError("give one of column, expression or rows: true")
        if self.rows and "aggregations" not in self.model_fields_set:
            self.aggregations = ["count"]
        if self.rows and self.aggregations != ["count"]:
            raise ValueError("a metric of rows: true is counted (aggregations: [count])")
        return self


class Dimension(BaseModel):
    """A categorical column to filter and group by, on the fact table or reached by a join."""

    model_config = ConfigDict(extra="forbid")

    column: str
    """Column name."""
    table: str | None = None
    """Table holding it when not the fact table (a join path must lead there)."""
    names: Names
    """Business name per language, singular (`task`, `任务`)."""
    plural: dict[str, str] = Field(default_factory=dict)
    """Plural per language when it is not the singular + 's'."""
    max_values: int = 60
    """Ignore it when it has more distinct values than this (not a grouping column)."""


class TimeRole(BaseModel):
    """The fact table's time column: a DATE or TIMESTAMP column, or ISO text (`YYYY-MM-DD HH:MM:SS`)."""

    model_config = ConfigDict(extra="forbid")

    column: str
    grain: Literal["hour", "day"] = "hour"
    table: str | None = None
    """Table holding it when not the fact table: a line table's time is its order's date (a join path must lead
    there)."""


class Fact(BaseModel):
    """A table of measurements: its metrics, dimensions and time column."""

    model_config = ConfigDict(extra="forbid")

    table: str
    names: dict[str, str] = Field(default_factory=dict)
    """What a row is, per language (`ad metrics`), for question wording."""
    metrics: list[Metric]
    dimensions: list[Dimension] = Field(default_factory=list)
    time: TimeRole | None = None
    ids: list[str] = Field(default_factory=list)
    """Identifier columns (never aggregated; may be filtered)."""


class Join(BaseModel):
    """An equi-join between two tables: `left` and `right` are `table.column`."""

    model_config = ConfigDict(extra="forbid")

    left: str
    right: str

    @model_validator(mode="after")
    def _qualified(self) -> "Join":
        for side in (self.left, self.right):
            if side.count(".") != 1:
                raise ValueError(f"'{side}' must be table.column")
        return self


MAX_JOIN_HOPS = 5
"""Most joins a question makes from its fact to a dimension's table (payment -> rental -> inventory -> film ->
film category -> category)."""


@dataclass(frozen=True)
class JoinStep:
    """One join on a path: `table` joined to `from_table` on `from_column` = `column`."""

    from_table: str
    from_column: str
    table: str
    column: str


def _step(join: Join, here: str) -> JoinStep:
    left_table, left_column = join.left.split(".")
    right_table, right_column = join.right.split(".")
    if left_table == here:
        return JoinStep(left_table, left_column, right_table, right_column)
    return JoinStep(right_table, right_column, left_table, left_column)


class ValueMapping(BaseModel):
    """A mapping table that explains codes (`o_rta_filter` -> what it means)."""

    model_config = ConfigDict(extra="forbid")

    table: str
    code: str
    """Column holding the code."""
    meaning: dict[str, str]
    """Column holding the meaning, per language."""
    names: Names
    """What a code is called, per language (`filter key`, `过滤原因`)."""
    where: str | None = None
    """Optional SQL condition selecting the codes to ask about."""


class Roles(BaseModel):
    """The roles file of one database."""

    model_config = ConfigDict(extra="forbid")

    database: str
    """Name of the database in the benchmark."""
    dialect: str = "sqlite"
    """The engine the roles were drafted on (informative: gold SQL is written for the database opened)."""
    facts: list[Fact]
    joins: list[Join] = Field(default_factory=list)
    mappings: list[ValueMapping] = Field(default_factory=list)
    recent_days: int = 3
    """How many days 'recently' means (stated in the benchmark's knowledge)."""

    def join_to(self, fact: str, table: str) -> Join | None:
        """The join that leads from `fact` to `table`, when there is one."""
        for join in self.joins:
            tables = {join.left.split(".")[0], join.right.split(".")[0]}
            if tables == {fact, table}:
                return join
        return None

    def join_path(self, fact: str, table: str) -> list[JoinStep] | None:
        """The joins that lead from `fact` to `table`, shortest first; None when none does.

        A direct join is taken either way round; a longer path follows joins from `left` to `right` only (from a
        foreign key to the key it references), so that each fact row meets at most one row of every table on the
        way and no measure is counted twice.
        """
        if fact == table:
            return []
        direct = self.join_to(fact, table)
        if direct is not None:
            return [_step(direct, fact)]
        paths: list[tuple[str, list[JoinStep]]] = [(fact, [])]
        seen = {fact}
        for _ in range(MAX_JOIN_HOPS):
            longer: list[tuple[str, list[JoinStep]]] = []
            for here, steps in paths:
                for join in self.joins:
                    if join.left.split(".")[0] != here:
                        continue
                    step = _step(join, here)
                    if step.table in seen:
                        continue
                    if step.table == table:
                        return [*steps, step]
                    seen.add(step.table)
                    longer.append((step.table, [*steps, step]))
            paths = longer
        return None


def load_roles(path: str | Path) -> Roles:
    """Read a roles.yaml file; FormatError names the file and field of a problem."""
    return load_yaml_model(path, Roles, "roles file")
