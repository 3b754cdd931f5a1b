"""draft_roles: a roles file drafted from a database's schema and data, commented for a person to edit.

What is drafted: a time column per table (a DATE/TIMESTAMP column, or text holding ISO dates), numeric measures with
aggregations that fit their names (a rate is averaged, an amount summed), low-cardinality columns as dimensions (on the
table itself and on the tables it joins), joins from foreign keys or from matching key names (`orders.customer_id` ->
`customers.customer_id` or `customers.id`), and English names made from the column names.
"""

import json
import re
from dataclasses import dataclass, field

from sqlglot import exp

from biarena.db import Database
from biarena.generate import sql_builder as sb
from biarena.generate.column_types import ColumnTypes
from biarena.generate.sql_builder import ColumnRef

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$")
_AVERAGED = re.compile(r"(rate|ratio|pct|percent|share|score|rating|ctr|cvr|util|usage|margin|price|age|avg|mean)")
_KEY_NAME = re.compile(r"(^id$|_id$|^id_|_key$|_code$|_no$|_number$|^index$|^zip|postal|phone)", re.I)
_CALENDAR = re.compile(r"^(year|month|day|week|quarter|hour|weekday)s?$", re.I)
SAMPLE_ROWS = 200
"""Rows read per table to recognise dates and measures."""
MAX_DIMENSION_VALUES = 30
"""A column with more distinct values than this is not drafted as a dimension (an id, a name, free text)."""


@dataclass
class _Table:
    name: str
    rows: int
    storage: dict[str, str]
    distinct: dict[str, int]
    time: str | None = None
    grain: str = "day"
    measures: list[str] = field(default_factory=list)
    dimensions: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    fractions: set[str] = field(default_factory=set)
    """Measures whose values all lie between 0 and 1: shares or rates, averaged rather than summed."""


def _words(name: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").replace("-", " ")
    return " ".join(spaced.split()).lower()


def _singular(name: str) -> str:
    lowered = name.lower()
    if lowered.endswith("ies"):
        return lowered[:-3] + "y"
    if lowered.endswith(("ses", "xes")):
        return lowered[:-2]
    return lowered[:-1] if lowered.endswith("s") and not lowered.endswith("ss") else lowered


def _scalar(db: Database, query: exp.Expression) -> object:
    return db.execute(sb.render(query, db.dialect)).rows[0][0]


def _read_table(db: Database, types: ColumnTypes, name: str) -> _Table:
    storage = dict(types.of(name))
    sample = db.sample_rows(name, SAMPLE_ROWS)
    for column in sample.columns:
        storage.setdefault(column, "other")
    count = _scalar(db, exp.select(sb.count_rows()).from_(sb.table(name)))
    distinct_of = [
        exp.alias_(exp.Count(this=exp.Distinct(expressions=[sb.column(ColumnRef(c))])), f"d{i}")
        for i, c in enumerate(sample.columns)
    ]
    counts = db.execute(sb.render(exp.select(*distinct_of).from_(sb.table(name)), db.dialect)).rows[0]
    table = _Table(
        name, int(count or 0), storage, {c: int(n or 0) for c, n in zip(sample.columns, counts, strict=True)}
    )
    for index, column in enumerate(sample.columns):
        values = [row[index] for row in sample.rows if row[index] is not None]
        kind = storage[column]
        is_date = kind in ("date", "timestamp") or (
            kind == "text" and bool(values) and all(isinstance(v, str) and _ISO_DATE.match(v) for v in values)
        )
        keyish = bool(_KEY_NAME.search(column)) or (table.rows > 1 and table.distinct[column] == table.rows)
        if is_date:
            if table.time is None:
                table.time = column
                with_time = [str(v) for v in values if len(str(v)) > 10 and str(v)[11:19].strip("0:")]
                table.grain = "hour" if kind == "timestamp" or with_time else "day"
            continue
        if keyish and kind in ("number", "text", "other"):
            table.keys.append(column)
        if kind == "number" and not keyish and not _CALENDAR.match(column) and table.distinct[column] > 2:
            table.measures.append(column)
            if values and all(0 <= float(v) <= 1 for v in values) and any(float(v) % 1 for v in values):
                table.fractions.add(column)
        elif (
            kind in ("text", "number", "boolean")
            and 2 <= table.distinct[column] <= MAX_DIMENSION_VALUES
            and (not keyish or kind == "text")
        ):
            table.dimensions.append(column)
    return table


def _joins(db: Database, tables: dict[str, _Table]) -> list[tuple[str, str, str, str]]:
    """(table, column, other table, other column): declared foreign keys, else columns named after a table's key."""
    found: list[tuple[str, str, str, str]] = []
    for name in tables:
        for column, other, other_column in db.foreign_keys(name):
            if other in tables and other_column:
                found.append((name, column, other, other_column))
    if found:
        return found
    for name, table in tables.items():
        for column in table.storage:
            if not column.lower().endswith("_id") and column.lower() not in {t.lower() for t in tables}:
                continue
            stem = column.lower().removesuffix("_id")
            for other_name, other in tables.items():
                if other_name == name or (_singular(other_name) != _singular(stem) and other_name.lower() != stem):
                    continue
                target = next((c for c in (column, "id", f"{stem}_id") if c in other.storage), None)
                if target and other.rows and other.distinct.get(target) == other.rows:
                    found.append((name, column, other_name, target))
    # a lookup table (few rows, a key shared with a fact) joins by that column too: `cpu.ip` = `microservice.ip`
    for name, table in tables.items():
        for other_name, other in tables.items():
            if other_name == name or not other.rows or other.rows >= table.rows:
                continue
            for column in table.storage:
                shared = column in other.storage and other.distinct.get(column) == other.rows
                taken = any(a == name and c == other_name for a, _, c, _ in found)
                if shared and not taken and column not in table.keys and column not in table.measures:
                    found.append((name, column, other_name, column))
    return found


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _aggregations(column: str, fraction: bool) -> list[str]:
    return ["avg", "max"] if fraction or _AVERAGED.search(column.lower()) else ["sum", "avg"]


def draft_roles(db: Database, database: str) -> str:
    """A commented roles.yaml for `db`, named `database` in the benchmark; ValueError when nothing can be measured."""
    types = ColumnTypes(db)
    tables = {name: _read_table(db, types, name) for name in db.tables()}
    joins = _joins(db, tables)
    facts = [t for t in tables.values() if t.measures]
    if not facts:
        raise ValueError("no numeric column to measure: write the roles file by hand (docs: generate templates)")
    # tables with a time column first: they are the facts questions ask about most
    facts.sort(key=lambda t: (t.time is None, -t.rows, t.name))
    lines = [
        f"# Column roles of {database}, drafted by `biarena generate roles` from its schema and data.",
        "# Check each role: delete what is not worth asking about, fix aggregations (a rate is averaged, not summed),",
        "# and give names in the words your users say. Add `zh: ...` beside an `en:` name to ask in Chinese as well:",
        "# a language is asked only where every name a question needs has a translation.",
        f"database: {_quote(database)}",
        f"dialect: {db.dialect}",
        "recent_days: 3  # what 'recently' means, in days",
        "facts:",
    ]
    for fact in facts:
        lines += [
            f"  - table: {_quote(fact.name)}  # {fact.rows} rows",
            f"    names: {{en: {_quote(_words(fact.name))}}}",
        ]
        if fact.time:
            lines.append(f"    time: {{column: {_quote(fact.time)}, grain: {fact.grain}}}  # {fact.storage[fact.time]}")
        else:
            lines.append("    # no date or time column: no questions about periods or trends on this table")
        if fact.keys:
            lines.append(f"    ids: [{', '.join(_quote(k) for k in fact.keys)}]  # identifiers: filtered, never summed")
        lines.append("    metrics:")
        for column in fact.measures:
            aggregations = ", ".join(_aggregations(column, column in fact.fractions))
            lines.append(
                f"      - {{column: {_quote(column)}, aggregations: [{aggregations}], "
                f"names: {{en: {_quote(_words(column))}}}}}"
            )
        dims = [(fact.name, c) for c in fact.dimensions]
        for left, _, right, key in joins:
            if left == fact.name:
                # the joined table's key repeats the fact's own column: not a dimension of its own
                dims += [(right, c) for c in tables[right].dimensions if (right, c) not in dims and c != key]
        if dims:
            lines.append("    dimensions:  # columns to filter and group by (few distinct values)")
        for holder, column in dims:
            where = "" if holder == fact.name else f", table: {_quote(holder)}"
            count = tables[holder].distinct[column]
            names = f"names: {{en: {_quote(_words(column))}}}"
            lines.append(f"      - {{column: {_quote(column)}{where}, {names}}}  # {count} values")
    if joins:
        lines.append("joins:  # from foreign keys, or columns named after another table's key")
        for left, column, right, other in joins:
            lines.append(f"  - {{left: {_quote(f'{left}.{column}')}, right: {_quote(f'{right}.{other}')}}}")
    return "\n".join(lines) + "\n"
