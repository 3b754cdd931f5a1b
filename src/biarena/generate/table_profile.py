"""profile_tables: what a database says of its tables (declared keys, views) and what their data show (distinct
values, nulls, ranges, date-like text), read once for the roles draft."""

import re
from dataclasses import dataclass, field
from decimal import Decimal

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.db import Database, SqlProblem, SqlTimeout
from biarena.generate import sql_builder as sb
from biarena.generate.column_types import ColumnTypes
from biarena.generate.sql_builder import ColumnRef, Storage

SAMPLE_ROWS = 200
"""Rows read per table to recognise dates and value shapes."""
PROFILE_ROWS = 100_000
"""Rows profiled of a table whose full profile does not finish within the statement time limit."""
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.I)
_PHONE = re.compile(r"^\+?[\d\s().\-/]{7,}$")
_PERSON_NAME = re.compile(r"^(Mr\.? |Mrs\.? |Ms\.? |Dr\.? )?[A-Z][a-z'\-]+( [A-Z]\.)?( [A-Z][a-zA-Z'\-]+){1,2}$")
_FLAG_VALUES = frozenset({"0", "1", "y", "n", "t", "f", "true", "false", "yes", "no"})
_PRIMARY = re.compile(r"primary\s+key\s*\(([^)]*)\)", re.I)
_INLINE_PRIMARY = re.compile(r"[\[\"`]?(\w+)[\]\"`]?\s+\w+[^,(]*?\bprimary\s+key", re.I)


@dataclass
class ColumnProfile:
    """One column: how it is stored and what its values look like."""

    name: str
    storage: Storage
    distinct: int = 0
    non_null: int = 0
    low: object = None
    high: object = None
    sample: list = field(default_factory=list)
    is_date: bool = False
    """A DATE or TIMESTAMP column, or text holding ISO dates."""
    time_of_day: bool = False
    """Its values carry a time of day (a timestamp, or text with one)."""

    @property
    def integral(self) -> bool:
        """Every sampled value is a whole number."""
        numbers = [v for v in self.sample if not isinstance(v, bool)]
        return bool(numbers) and all(isinstance(v, int) or (isinstance(v, float) and v.is_integer()) for v in numbers)

    @property
    def fraction(self) -> bool:
        """Every sampled value lies between 0 and 1 and some are not whole: a share or rate."""
        numbers = [float(v) for v in self.sample if _number(v)]
        return bool(numbers) and all(0 <= v <= 1 for v in numbers) and any(v % 1 for v in numbers)

    @property
    def flag(self) -> bool:
        """Every sampled value is a yes/no flag (0/1, Y/N, true/false): "discontinued 0" is no way to ask."""
        return bool(self.sample) and {str(v).strip().lower() for v in self.sample} <= _FLAG_VALUES

    @property
    def listed(self) -> bool:
        """Most sampled values are comma-separated lists (`Trailers,Commentaries`): sets, not categories."""
        texts = [v for v in self.sample if isinstance(v, str)]
        return bool(texts) and sum("," in v for v in texts) >= 0.5 * len(texts)

    @property
    def person_shaped(self) -> bool:
        """Most sampled values read as people's names (`Maria Anders`, `Jean-Luc O'Neil`)."""
        texts = [v for v in self.sample if isinstance(v, str)]
        return bool(texts) and sum(bool(_PERSON_NAME.match(v)) for v in texts) >= 0.8 * len(texts)

    @property
    def contact_shaped(self) -> bool:
        """Most sampled values are e-mail addresses or phone numbers."""
        texts = [v for v in self.sample if isinstance(v, str)]
        shaped = sum(bool(_EMAIL.match(v) or (_PHONE.match(v) and sum(c.isdigit() for c in v) >= 7)) for v in texts)
        return bool(texts) and shaped >= 0.8 * len(texts)


@dataclass
class TableProfile:
    """One table or view: its rows, columns, declared keys."""

    name: str
    rows: int
    columns: dict[str, ColumnProfile]
    view: bool = False
    primary: list[str] = field(default_factory=list)
    foreign: list[tuple[str, str, str]] = field(default_factory=list)
    """(column, referenced table, referenced column) as declared."""

    def unique(self, column: str) -> bool:
        """Every row holds its own non-null value."""
        found = self.columns[column]
        return self.rows > 1 and found.distinct == self.rows and found.non_null == self.rows


def _number(value: object) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def _declared_primary(ddl: str, dialect: str) -> list[str]:
    try:
        tree = sqlglot.parse_one(ddl, read=dialect)
    except (SqlglotError, ValueError):
        tree = None
    found: list[str] = []
    if tree is not None:
        for key in tree.find_all(exp.PrimaryKey):
            found += [e.name for e in key.expressions if e.name]
        for definition in tree.find_all(exp.ColumnDef):
            if any(isinstance(c.args.get("kind"), exp.PrimaryKeyColumnConstraint) for c in definition.constraints):
                found.append(definition.name)
    if not found:
        table_key = _PRIMARY.search(ddl)
        if table_key:
            found = [part.strip().strip('[]"`') for part in table_key.group(1).split(",")]
        else:
            found = [m.group(1) for m in _INLINE_PRIMARY.finditer(ddl)][:1]
    return list(dict.fromkeys(found))


def _measured(db: Database, name: str, parts: list[exp.Expression]) -> tuple:
    """The aggregates `parts` over table `name` in one statement: over its first rows when the whole table takes
    longer than the statement time limit, and one by one (None where one fails) when a column's type cannot be
    counted (PostgreSQL's `json` has no equality, so no COUNT(DISTINCT))."""

    def over(source: exp.Expression, chosen: list[exp.Expression]) -> tuple:
        selected = [exp.alias_(part, f"p{i}") for i, part in enumerate(chosen)]
        return db.execute(sb.render(exp.select(*selected).from_(source), db.dialect)).rows[0]

    source: exp.Expression = sb.table(name)
    try:
        return over(source, parts)
    except SqlTimeout:
        # a table too large to profile within the statement time limit: its first rows stand for it
        source = exp.select("*").from_(sb.table(name)).limit(PROFILE_ROWS).subquery("first_rows")
        try:
            return over(source, parts)
        except SqlProblem:
            pass
    except SqlProblem:
        pass
    values = []
    for part in parts:
        try:
            values.append(over(source.copy(), [part])[0])
        except SqlProblem:
            values.append(None)
    return tuple(values)


def _profile(db: Database, types: ColumnTypes, name: str, views: set[str]) -> TableProfile:
    storage = dict(types.of(name))
    sample = db.sample_rows(name, SAMPLE_ROWS)
    for column in sample.columns:
        storage.setdefault(column, "other")
    parts: list[exp.Expression] = [sb.count_rows()]
    for column in sample.columns:
        col = sb.column(ColumnRef(column))
        parts += [exp.Count(this=exp.Distinct(expressions=[col])), exp.Count(this=col.copy())]
        if storage[column] == "number":
            parts += [exp.Min(this=col.copy()), exp.Max(this=col.copy())]
    row = _measured(db, name, parts)
    rows, at = int(row[0] or 0), 1
    columns: dict[str, ColumnProfile] = {}
    for index, column in enumerate(sample.columns):
        kind = storage[column]
        profile = ColumnProfile(column, kind, int(row[at] or 0), int(row[at + 1] or 0))
        at += 2
        if kind == "number":
            profile.low, profile.high = row[at], row[at + 1]
            at += 2
        profile.sample = [r[index] for r in sample.rows if r[index] is not None]
        texts = [str(v) for v in profile.sample]
        profile.is_date = kind in ("date", "timestamp") or (
            kind == "text" and bool(texts) and all(_ISO_DATE.match(v) for v in texts)
        )
        if profile.is_date:
            # a TIMESTAMP column whose values all fall at midnight holds days, as the same text on SQLite does
            profile.time_of_day = any(len(v) > 10 and v[11:19].strip("0:") for v in texts)
        columns[column] = profile
    table = TableProfile(name, rows, columns, view=name in views)
    if not table.view:
        table.primary = [c for c in _declared_primary(db.table_ddl(name), db.dialect) if c in columns]
        table.foreign = [(c, other, ref) for c, other, ref in db.foreign_keys(name) if c in columns]
    return table


def profile_tables(db: Database) -> dict[str, TableProfile]:
    """Every table and view of `db`, profiled; a foreign key that names no column takes the referenced table's
    primary key."""
    types = ColumnTypes(db)
    views = set(db.views())
    tables = {name: _profile(db, types, name, views) for name in db.tables()}
    for table in tables.values():
        resolved = []
        for column, other, ref in table.foreign:
            target = tables.get(other)
            if target is None:
                continue
            if not ref and len(target.primary) == 1:
                ref = target.primary[0]
            if ref in target.columns:
                resolved.append((column, other, ref))
        table.foreign = resolved
    return tables
