"""A table of the vertical spec language and how each of its columns is generated."""

from datetime import date
from typing import Any, Literal

import sqlglot
from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlglot import exp


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
        "inherit",
    ]
    values: dict[Any, float] | list[Any] | None = None
    """category: value -> share (exact up to rounding), or a list (equal shares)."""
    mean: float | None = None
    sd: float | None = None
    low: float | None = None
    high: float | None = None
    """uniform: the range; after: hours after `of`, drawn uniformly between low and high (or low plus an
    exponential lag of `mean` hours, at most high); foreign with `follows`: the least lag in hours."""
    of: str | None = None
    """after: the timestamp column this one follows (shipped after ordered, ...); inherit: the parent's column,
    or a path through the parent's own keys (`class_id.name`: the name of the class of the row's vehicle)."""
    via: str | None = None
    """after/inherit: a foreign column of this table; `of` then names a column of the parent it points to
    (a delivery is picked up after its order was placed; a booking's market is its listing's city)."""
    follows: str | None = None
    """foreign: a time column of the parent, the start of its life (joined, hired, opened, launched); a row's
    parent is one that existed before the row's time (at least `low` hours before), so no review predates its
    listing."""
    until: str | None = None
    """foreign: a time column of the parent, the end of its validity (expires, ends, closed; a date is valid all that
    day); a row's parent is one still valid at the row's time, so no promotion is applied after it expired."""
    at: str | None = None
    """foreign with `follows` or `until`: the time column of this row the parent must be alive at (a date, a
    timestamp, an `after` or an inherited time), or a time through another key (`promo_id.expires_on`: a trip
    booked before the promotion expired); default: the table's timestamp. A row no parent is alive at moves into the
    lifetime of the nearest one (as rows older than every parent move after it); a time through a key never moves,
    the row keeps the nearest parent."""
    not_before: list[str] | None = None
    """after: more time columns, of this row or through a key (`stylist_id.hired_on`), the time is also on or after:
    its lag counts from the latest of them and `of` (a stylist is assigned once both the buyer joined and the
    stylist was hired)."""
    not_after: list[str] | None = None
    """after: time columns, of this row or through a key (`session_id.ended_at`), the time is on or before (a date
    all that day): where one comes before the lag's end, the lag is drawn within what it leaves (a page view
    within its session)."""
    where: str | None = None
    """foreign: SQL condition on the parent's columns; only such parents are chosen (deliveries only of
    delivered orders, sales only of authenticated items)."""
    match: dict[str, Any] | None = None
    """foreign: {column: parent column, via: another foreign column of this table, of: that parent's column
    (default: the same name), share: 0..1}: for `share` of the rows the chosen parent's column equals the
    other parent's (an order's restaurant is in its customer's city for 85% of orders)."""
    ranges: dict[str, Any] | None = None
    """uniform or date: {column: a category column of this table, values: {value: [low, high]}}: the range per
    value (tenure 0-3 months for a trial customer, 36-120 for a VIP; a signup date per tier)."""
    min: float | None = None
    """normal, uniform, poisson: the lowest value (draws below it become it)."""
    max: float | None = None
    """normal, uniform, poisson: the highest value (draws above it become it): ratings stay on a 1-5 scale."""
    round: int | None = None
    ref: str | None = None
    """foreign: `table.column` of the parent key."""
    weight: dict[str, Any] | None = None
    """foreign: {column: parent column, values: {value: weight}}: parents chosen in proportion."""
    empty: float | str | None = None
    """foreign: the rows without a parent (NULL), an optional key: a share of the rows (0.7: exactly seven in ten,
    as a category's shares are exact), or a SQL condition on this row's drawn columns (`promo_applied = 0`: only
    orders with a promotion have one). The other rows choose parents as usual (`follows`, `where`, `match`,
    `weight`); an `inherit` column through the key is NULL where it is; an `after` column cannot go through it."""
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
            if column.via is not None:
                via = self.columns.get(column.via)
                if column.kind not in ("after", "inherit") or via is None or via.kind != "foreign" or not column.of:
                    raise ValueError(f"column {name}: 'via' names a foreign column of this table, with 'of'")
            elif column.kind == "inherit":
                raise ValueError(f"column {name}: an inherit column needs via: a foreign column, and of")
            elif column.kind == "after" and column.of not in self.columns:
                raise ValueError(f"column {name}: 'of' must name a timestamp column of this table")
            if column.follows and not self.stamp and not column.at:
                raise ValueError(f"column {name}: 'follows' needs a timestamp column in this table, or 'at'")
            if (column.at or column.until) and column.kind != "foreign":
                raise ValueError(f"column {name}: 'at' and 'until' belong to a foreign column")
            if column.at and not (column.follows or column.until):
                raise ValueError(f"column {name}: 'at' names the time a parent is alive at: give 'follows' or 'until'")
            if column.until and not (column.at or self.stamp):
                raise ValueError(f"column {name}: 'until' needs a timestamp column in this table, or 'at'")
            if column.at and "." in column.at:
                key = self.columns.get(column.at.split(".")[0])
                if key is None or key.kind != "foreign":
                    raise ValueError(f"column {name}: 'at' names a time column of this table, or key.column")
            elif column.at and (column.at == name or column.at not in self.columns):
                raise ValueError(f"column {name}: 'at' must name another time column of this table")
            if column.until and column.match:
                raise ValueError(f"column {name}: 'until' cannot be combined with 'match'")
            for bounds in ("not_before", "not_after"):
                if getattr(column, bounds) and column.kind != "after":
                    raise ValueError(f"column {name}: '{bounds}' belongs to an after column")
            if column.match:
                via = self.columns.get(str(column.match.get("via")))
                if via is None or via.kind != "foreign" or "column" not in column.match:
                    raise ValueError(f"column {name}: match is {{column, via: a foreign column, of, share}}")
            ranged = column.kind in ("uniform", "date") and (column.ranges or {}).get("column") in self.columns
            if column.ranges and not ranged:
                raise ValueError(f"column {name}: ranges belong to a uniform or date column: {{column, values}}")
            if column.empty is not None:
                _check_empty(self, name, column)
            bounded = column.min is not None or column.max is not None
            if bounded and column.kind not in ("normal", "uniform", "poisson"):
                raise ValueError(f"column {name}: min and max bound a normal, uniform or poisson column")
            if column.min is not None and column.max is not None and column.min > column.max:
                raise ValueError(f"column {name}: min {column.min:g} is above max {column.max:g}")
            for bounds in ("not_before", "not_after"):
                for base in getattr(column, bounds) or []:
                    key = base.split(".")[0] if "." in base else None
                    if (key or base) not in self.columns or (key and self.columns[key].kind != "foreign"):
                        raise ValueError(f"column {name}: {bounds} names a column of this table or key.column")
        return self

    def late(self, name: str) -> bool:
        """Whether a foreign column is chosen at a time column of its own (`at`, not the table's timestamp): after
        the row's times are drawn, its planted events applied and its `after` columns computed (or a key that must
        match one)."""
        column = self.columns[name]
        if column.kind != "foreign":
            return False
        via = str((column.match or {}).get("via", ""))
        if column.at and "." in column.at:
            return self.late(column.at.split(".")[0]) or (via in self.columns and self.late(via))
        return (column.at is not None and column.at != self.stamp) or (via in self.columns and self.late(via))

    def drawn(self, name: str) -> bool:
        """Whether a column is drawn on its own, before keys are chosen and values read through them."""
        column = self.columns[name]
        if column.kind == "foreign":
            return not (column.follows or column.until or column.where or column.match or column.empty is not None)
        return column.kind in _DRAWN and not column.ranges


_DRAWN = ("category", "normal", "uniform", "poisson", "date", "faker", "constant")
"""Kinds of columns an `empty` condition may read (with plain foreign keys)."""


def empty_columns(condition: str) -> set[str]:
    """The columns an `empty` condition reads; ValueError when it is not a SQL condition."""
    try:
        tree = sqlglot.parse_one(condition)
    except sqlglot.errors.ParseError as error:
        raise ValueError(f"cannot parse {condition!r}: {str(error).splitlines()[0]}") from None
    return {c.name for c in tree.find_all(exp.Column)}


def _check_empty(table: "Table", name: str, column: Column) -> None:
    """An optional key: a share in [0, 1) or a condition on the row's drawn columns."""
    empty = column.empty
    if column.kind != "foreign":
        raise ValueError(f"column {name}: 'empty' belongs to a foreign column")
    if name == table.primary_key:
        raise ValueError(f"column {name}: a primary key cannot be empty")
    if not isinstance(empty, str):
        if not 0 <= float(empty or 0) < 1:
            raise ValueError(f"column {name}: empty is a share from 0 to below 1, or a condition on the row")
        return
    try:
        read = empty_columns(empty)
    except ValueError as error:
        raise ValueError(f"column {name}: empty: {error}") from None
    if not read:
        raise ValueError(f"column {name}: the empty condition {empty!r} reads no column of the row")
    for other in sorted(read):
        if other not in table.columns:
            raise ValueError(f"column {name}: the empty condition reads '{other}', not a column of this table")
        if not table.drawn(other):
            raise ValueError(
                f"column {name}: the empty condition may read only drawn columns (categories, numbers, dates, "
                f"text, plain keys), not '{other}' ({table.columns[other].kind})"
            )
