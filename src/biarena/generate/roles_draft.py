"""draft_roles: a roles file drafted from what a database declares, then what its data show, then its names,
commented for a person to edit.

- **Keys** are the declared primary and foreign keys, the columns other tables' keys reference, and columns whose
  data say identifier (a whole number unique per row, counting up); a name ending in id, key or number only breaks
  ties. A key is never a measure nor a dimension.
- **Facts** are the tables that record business events or amounts: an event time of their own or of the row they
  belong to (an invoice line has its invoice's date), or additive measures, on a table no other table looks up.
  Bridge tables (only keys) and small reference tables are joined through, not asked about.
- **Measures**: every fact's rows counted ("number of rentals"), its numeric columns that are neither keys, calendar
  parts nor coordinates (a rate or price averaged, an amount summed), and price x quantity where a line table has
  both ("sales").
- **Dimensions**: descriptive columns with 2 to 30 values on the fact or on a table reached through foreign keys
  (line -> track -> genre), never contact details or people's names; each name says what it is ("genre",
  "media type", "employee title") and no two collide.
- **Time**: the event's date or time, never a maintenance stamp (`last_update`, `updated_at`) or a birth date.
- **Joins**: the declared foreign keys, else columns named after another table's key (`orders.customer_id` ->
  `customers.customer_id`, `Invoice.CustomerId` -> `Customer.CustomerId`), or a column a small lookup table holds
  once per row.
"""

import json
from collections import defaultdict
from dataclasses import dataclass, field

from biarena.db import Database
from biarena.db.column_words import (
    is_audit,
    is_birth,
    is_calendar_part,
    is_contact,
    is_coordinate,
    is_lifecycle,
    names_person,
    phrase,
    table_noun,
    words,
)
from biarena.generate import sql_builder as sb
from biarena.generate.phrasing import plural
from biarena.generate.sql_builder import ColumnRef
from biarena.generate.table_links import (
    MAX_DIMENSION_VALUES,
    Edge,
    join_steps,
    key_columns,
    reachable_tables,
    table_joins,
)
from biarena.generate.table_profile import ColumnProfile, TableProfile, profile_tables

__all__ = ["MAX_DIMENSIONS", "MAX_DIMENSION_VALUES", "SMALL_TABLE", "draft_roles"]

SMALL_TABLE = 30
"""A table with fewer rows than this is a reference table (stores, staff, categories), not a fact."""
MAX_DIMENSIONS = 10
"""Most dimensions drafted per fact: its own first, then the nearest tables'."""
_AVERAGED = {
    "rate",
    "ratio",
    "pct",
    "percent",
    "percentage",
    "share",
    "score",
    "rating",
    "ctr",
    "cvr",
    "util",
    "utilization",
    "utilisation",
    "usage",
    "margin",
    "price",
    "age",
    "avg",
    "mean",
    "discount",
    "duration",
    "length",
    "temperature",
    "level",
    "stars",
    "multiplier",
}
_GENERIC_MEASURES = {"total", "amount", "value", "sum", "cost", "fee", "balance", "price"}
_GENERIC_DIMENSIONS = {"name", "title", "type", "description", "status", "kind", "code", "class", "level", "label"}
_PRICE = {"price", "unitprice"}
_QUANTITY = {"quantity", "qty", "units"}


@dataclass
class _FactDraft:
    table: TableProfile
    time: tuple[str, str] | None = None
    """(table holding it, column)."""
    grain: str = "day"
    measures: list[str] = field(default_factory=list)
    fractions: set[str] = field(default_factory=set)
    sales: tuple[str, str, str | None] | None = None
    """(price, quantity, discount) columns of a line table."""
    dimensions: list[tuple[str, str]] = field(default_factory=list)
    """(holder table, column)."""
    ids: list[str] = field(default_factory=list)
    catalogue: bool = False
    """A table others look up that holds amounts (products and their stock): asked about after the events."""
    nouns: dict[tuple[str, str], str] = field(default_factory=dict)
    """What each dimension's table is to the fact (`support rep` for an employee table)."""


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _time_of(table: TableProfile) -> ColumnProfile | None:
    """The column holding when a row's event happened: a date that is no audit stamp or birth date, filled in."""
    found = [
        c
        for c in table.columns.values()
        if c.is_date and not is_audit(c.name) and not is_birth(c.name) and c.distinct >= 3
    ]
    if not found:
        return None
    return min(found, key=lambda c: (c.non_null < 0.9 * table.rows, list(table.columns).index(c.name)))


def _measures(table: TableProfile, keys: set[str]) -> list[ColumnProfile]:
    return [
        c
        for c in table.columns.values()
        if c.storage == "number"
        and c.name not in keys
        and not is_calendar_part(c.name)
        and not is_coordinate(c.name)
        and not is_contact(c.name)
        and c.distinct > 2
        and c.non_null >= 0.5 * table.rows
    ]


def _describes(table: TableProfile, column: ColumnProfile, keys: set[str]) -> bool:
    """A column worth grouping and filtering by: few values, descriptive, no key, no contact detail or date."""
    if column.name in keys or column.is_date or is_audit(column.name) or is_contact(column.name):
        return False
    if column.contact_shaped or column.listed or column.flag or not 2 <= column.distinct <= MAX_DIMENSION_VALUES:
        return False
    if names_person(column.name) and column.person_shaped:
        return False
    if column.non_null < 0.5 * table.rows:
        return False
    # a number is an amount; a yes/no flag however written is left out above ("discontinued 0" is no way to ask)
    return column.storage in ("text", "boolean")


def _sales(table: TableProfile, measures: list[ColumnProfile]) -> tuple[str, str, str | None] | None:
    """Price, quantity and discount columns of a line table, when it has a price and a quantity."""
    numbers = [c for c in table.columns.values() if c.storage == "number"]
    price = next((c.name for c in numbers if _PRICE & (set(words(c.name)) | {"".join(words(c.name))})), None)
    quantity = next((c.name for c in numbers if _QUANTITY & set(words(c.name))), None)
    if price is None or quantity is None:
        return None
    discount = next((c.name for c in measures if "discount" in words(c.name) and c.fraction), None)
    return price, quantity, discount


def _facts(tables: dict[str, TableProfile], joins: list[Edge], keys: dict[str, set[str]]) -> list[_FactDraft]:
    referenced = {right for _, _, right, _ in joins}
    base = {n: t for n, t in tables.items() if not t.view} or tables
    drafts: list[_FactDraft] = []
    for table in base.values():
        own = keys[table.name]
        bridge = all(c in own or is_audit(c) for c in table.columns) and len(own) >= 2
        if bridge or table.rows < SMALL_TABLE:
            continue
        time = _time_of(table)
        measures = _measures(table, own)
        if table.name in referenced and time is None and not measures:
            continue  # a table others look up (customers, stores): its columns are their dimensions
        draft = _FactDraft(table, ids=[c for c in table.columns if c in own])
        if table.name in referenced and time is None:
            # a catalogue others look up (products, films): its amounts are asked about, its rows are no events
            draft.measures = [c.name for c in measures]
            draft.fractions = {c.name for c in measures if c.fraction}
            draft.catalogue = True
            drafts.append(draft)
            continue
        if time is not None:
            draft.time, draft.grain = (table.name, time.name), "hour" if time.time_of_day else "day"
        else:
            # a line of an event (invoice line, order item) happened when its event did; a log about a customer or
            # a product did not happen when the customer joined or the product launched
            parents = [
                (right, found)
                for left, _, right, _ in joins
                if left == table.name
                and (found := _time_of(tables[right])) is not None
                and not is_lifecycle(found.name)
            ]
            if parents:
                holder, column = parents[0]
                draft.time, draft.grain = (holder, column.name), "hour" if column.time_of_day else "day"
        draft.measures = [c.name for c in measures]
        draft.fractions = {c.name for c in measures if c.fraction}
        draft.sales = _sales(table, measures)
        if draft.time is None and not draft.measures:
            continue
        drafts.append(draft)
    if not drafts:
        # nothing records events: every table with a measure is asked about, as a last resort
        for table in base.values():
            measures = _measures(table, keys[table.name])
            if measures and table.rows:
                drafts.append(_FactDraft(table, measures=[c.name for c in measures]))
    children = defaultdict(set)
    names = {d.table.name for d in drafts}
    for left, _, right, _ in joins:
        if left in names and left != right:
            children[right].add(left)
    drafts.sort(key=lambda d: _rank(d, len(children[d.table.name])))
    return drafts


def _rank(draft: _FactDraft, lines: int) -> tuple:
    """How central a fact is, most first: an event with its own time before one whose time comes through a join,
    an event that other events point at (an order, a trip) before the rest, an entity's sign-ups and a catalogue
    last; then more measures, then more rows."""
    own_time = draft.time is not None and draft.time[0] == draft.table.name
    started = own_time and is_lifecycle(draft.time[1]) if draft.time else False
    return (
        draft.catalogue,
        draft.time is None,
        started,
        not own_time,
        -min(len(draft.measures) + bool(draft.sales), 3),
        -draft.table.rows,
        draft.table.name,
    )


def _dimension_name(holder: str, column: str, noun: str) -> str:
    """A dimension's name: the column's words, with what its table is to the fact (`noun`, empty on the fact's own
    table) where they alone would not say it: "genre", "customer country", "support rep title"."""
    spoken = phrase(column)
    own = table_noun(holder)
    if words(column)[-1] == "name":  # `Name`, `CategoryName`, a supplier's `CompanyName`: the thing itself
        return noun or own
    if not noun:
        return f"{own} {spoken}" if set(words(column)) <= _GENERIC_DIMENSIONS else spoken
    return spoken if spoken.startswith(noun) else f"{noun} {spoken}"


def _metric_name(table: str, column: str) -> str:
    spoken = phrase(column)
    if spoken in _GENERIC_MEASURES:
        return f"{table_noun(table)} {'amount' if spoken in ('total', 'sum') else spoken}"
    return spoken


ROWS, SALES = "*rows", "*sales"
"""Keys of a fact's counted rows and its price x quantity among its metrics' names."""


def _metric_names(facts: list[_FactDraft]) -> dict[tuple[str, str], str]:
    """Every metric's name, rows counted and sales included, none alike: a column named like another fact's rows
    ("page views") or two facts' sales are told apart by their tables."""
    named: dict[tuple[str, str], str] = {}
    for draft in facts:
        table = draft.table.name
        named[(table, ROWS)] = plural(table_noun(table))
        if draft.sales:
            named[(table, SALES)] = "sales"
        named.update({(table, m): _metric_name(table, m) for m in draft.measures})
    counted = {name for where, name in named.items() if where[1] == ROWS}
    for where, name in named.items():
        if where[1] != ROWS and name in counted and not name.startswith(table_noun(where[0])):
            named[where] = f"{table_noun(where[0])} {name}"
    return _unique_names(named)


def _unique_names(named: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    """Names made unique: two columns called alike are each prefixed by their table ("customer country")."""
    for _ in range(3):
        holders: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for where, name in named.items():
            holders[name].add(where)
        clashes = {name for name, where in holders.items() if len(where) > 1}
        if not clashes:
            break
        for where, name in list(named.items()):
            if name in clashes:
                noun = table_noun(where[0])
                named[where] = f"{noun} {name}" if not name.startswith(noun) else f"{where[0]} {phrase(where[1])}"
    return named


def _aggregations(column: str, fraction: bool) -> list[str]:
    return ["avg", "max"] if fraction or _AVERAGED & set(words(column)) else ["sum", "avg"]


def _expression(sales: tuple[str, str, str | None], dialect: str) -> str:
    price, quantity, discount = (sb.render(sb.column(ColumnRef(c)), dialect) if c else None for c in sales)
    text = f"{price} * {quantity}"
    return f"{text} * (1 - {discount})" if discount else text


def _dimensions(
    draft: _FactDraft, tables: dict[str, TableProfile], steps: list[Edge], keys: dict[str, set[str]]
) -> list[tuple[str, str]]:
    """The fact's dimensions: its own columns first, then those of the tables its foreign keys lead to."""
    fact = draft.table
    found = [(fact.name, c.name) for c in fact.columns.values() if _describes(fact, c, keys[fact.name])]
    draft.nouns.update({where: "" for where in found})
    for holder, noun, _ in reachable_tables(fact.name, steps, tables):
        table = tables[holder]
        more = [(holder, c.name) for c in table.columns.values() if _describes(table, c, keys[holder])]
        draft.nouns.update({where: noun for where in more})
        found += more
    return found[:MAX_DIMENSIONS]


def _used_steps(facts: list[_FactDraft], steps: list[Edge], joins: list[Edge]) -> list[Edge]:
    """The joins the roles file lists: the foreign keys, and the steps back along a unique one that a dimension's
    path takes."""
    holders = {holder for draft in facts for holder, _ in draft.dimensions}
    extra = [s for s in steps[len(joins) :] if s[2] in holders or any(s[0] == h for h in holders)]
    return joins + extra


def draft_roles(db: Database, database: str) -> str:
    """A commented roles.yaml for `db`, named `database` in the benchmark; ValueError when nothing can be measured."""
    tables = profile_tables(db)
    if not tables:
        raise ValueError("no table: the database is empty")
    joins = table_joins(tables)
    keys = key_columns(tables, joins)
    steps = join_steps(joins, tables)
    facts = _facts(tables, joins, keys)
    if not facts:
        raise ValueError(
            "no table records events or amounts (no date or numeric column outside the keys): "
            "write the roles file by hand (docs: generate templates)"
        )
    for draft in facts:
        draft.dimensions = _dimensions(draft, tables, steps, keys)
    named: dict[tuple[str, str], str] = {}
    # a column asked about from several facts keeps one name: its own table's, else the first (main) fact's
    for own in (True, False):
        for draft in facts:
            for where in draft.dimensions:
                if (draft.nouns[where] == "") == own:
                    named.setdefault(where, _dimension_name(*where, draft.nouns[where]))
    dim_names = _unique_names(named)
    metric_names = _metric_names(facts)
    lines = [
        f"# Column roles of {database}, drafted by `biarena generate roles` from its declared keys, its data and its",
        "# names. Check each role: delete what is not worth asking about, fix aggregations (a rate is averaged, not",
        "# summed), and give names in the words your users say. Add `zh: ...` beside an `en:` name to ask in Chinese",
        "# as well: a language is asked only where every name a question needs has a translation.",
        f"database: {_quote(database)}",
        f"dialect: {db.dialect}",
        "recent_days: 3  # what 'recently' means, in days",
        "facts:",
    ]
    for draft in facts:
        table = draft.table
        noun = table_noun(table.name)
        lines += [f"  - table: {_quote(table.name)}  # {table.rows} rows", f"    names: {{en: {_quote(noun)}}}"]
        if draft.time is None:
            lines.append("    # no event date or time: no questions about periods or trends on this table")
        else:
            holder, column = draft.time
            where = "" if holder == table.name else f", table: {_quote(holder)}"
            kind = tables[holder].columns[column].storage
            note = kind if holder == table.name else f"{kind}, the {table_noun(holder)}'s date, through the join"
            lines.append(f"    time: {{column: {_quote(column)}{where}, grain: {draft.grain}}}  # {note}")
        if draft.ids:
            lines.append(f"    ids: [{', '.join(_quote(k) for k in draft.ids)}]  # identifiers: filtered, never summed")
        lines.append("    metrics:")
        counted = metric_names[(table.name, ROWS)]
        lines.append(f"      - {{rows: true, names: {{en: {_quote(counted)}}}}}  # rows counted")
        if draft.sales:
            lines.append(
                f"      - {{expression: {_quote(_expression(draft.sales, db.dialect))}, aggregations: [sum, avg], "
                f"names: {{en: {_quote(metric_names[(table.name, SALES)])}}}}}  # price x quantity"
            )
        for column in draft.measures:
            aggregations = ", ".join(_aggregations(column, column in draft.fractions))
            name = metric_names[(table.name, column)]
            lines.append(
                f"      - {{column: {_quote(column)}, aggregations: [{aggregations}], names: {{en: {_quote(name)}}}}}"
            )
        if draft.dimensions:
            lines.append("    dimensions:  # columns to filter and group by (few distinct values)")
        for holder, column in draft.dimensions:
            where = "" if holder == table.name else f", table: {_quote(holder)}"
            count = tables[holder].columns[column].distinct
            names = f"names: {{en: {_quote(dim_names[(holder, column)])}}}"
            lines.append(f"      - {{column: {_quote(column)}{where}, {names}}}  # {count} values")
        left_out = _left_out(table, keys[table.name])
        if left_out:
            lines.append(f"    # not asked about: {left_out}")
    if joins:
        lines.append("joins:  # from foreign keys, or columns named after another table's key")
        for left, column, right, other in _used_steps(facts, steps, joins):
            lines.append(f"  - {{left: {_quote(f'{left}.{column}')}, right: {_quote(f'{right}.{other}')}}}")
    return "\n".join(lines) + "\n"


def _left_out(table: TableProfile, keys: set[str]) -> str:
    """The fact's columns the draft leaves out on purpose, with why (for the person who edits it)."""
    reasons = []
    for column in table.columns.values():
        if is_audit(column.name) and column.is_date:
            reasons.append(f"{column.name} (maintenance stamp)")
        elif is_birth(column.name):
            reasons.append(f"{column.name} (birth date)")
        elif column.name not in keys and (is_contact(column.name) or column.contact_shaped):
            reasons.append(f"{column.name} (contact or personal detail)")
    return ", ".join(reasons)
