"""How a database's tables link: the joins between them (declared, or read from names and data), each table's key
columns, and the tables a fact reaches along the joins."""

from collections import defaultdict, deque

from biarena.db.column_words import key_stem, names_key, phrase, table_noun
from biarena.generate.roles import MAX_JOIN_HOPS
from biarena.generate.table_profile import TableProfile

MAX_DIMENSION_VALUES = 30
"""A column with more distinct values than this is not drafted as a dimension (an id, a name, free text)."""

Edge = tuple[str, str, str, str]
"""A join: (table, column, referenced table, referenced column)."""


def table_joins(tables: dict[str, TableProfile]) -> list[Edge]:
    """The declared foreign keys; else columns named after another table's key; plus small lookup tables' columns."""
    found: list[Edge] = [(t.name, c, o, r) for t in tables.values() for c, o, r in t.foreign if o != t.name]
    if found:
        return found
    nouns = {name: table_noun(name) for name in tables}
    for name, table in tables.items():
        for column in table.columns:
            stem = key_stem(column) or (phrase(column) if phrase(column) in nouns.values() else None)
            if stem is None:
                continue
            for other_name, other in tables.items():
                if other_name == name or nouns[other_name] not in (stem, table_noun(stem)):
                    continue
                candidates = [column, "id", *other.primary, f"{stem.replace(' ', '_')}_id"]
                target = next((c for c in candidates if c in other.columns and other.unique(c)), None)
                if target:
                    found.append((name, column, other_name, target))
    # a lookup table (few rows, a key shared with a fact) joins by that column too: `cpu.ip` = `microservice.ip`
    for name, table in tables.items():
        for other_name, other in tables.items():
            if other_name == name or not other.rows or other.rows >= table.rows:
                continue
            taken = any(a == name and c == other_name for a, _, c, _ in found)
            for column in table.columns:
                if (
                    not taken
                    and column in other.columns
                    and other.unique(column)
                    and not _numeric_measure(table, column)
                ):
                    found.append((name, column, other_name, column))
                    taken = True
    return found


def _numeric_measure(table: TableProfile, column: str) -> bool:
    found = table.columns[column]
    return found.storage == "number" and not found.integral


def key_columns(tables: dict[str, TableProfile], joins: list[Edge]) -> dict[str, set[str]]:
    """Each table's identifier columns: declared, referenced, or shown by the data (names break ties)."""
    keys: dict[str, set[str]] = defaultdict(set)
    for table in tables.values():
        keys[table.name].update(table.primary)
        keys[table.name].update(column for column, _, _ in table.foreign)  # `ReportsTo` too, a key of its own table
    for left, column, right, other in joins:
        keys[left].add(column)
        keys[right].add(other)
    for table in tables.values():
        for column in table.columns.values():
            if column.name in keys[table.name] or column.is_date:
                continue
            unique = table.unique(column.name)
            counting = (
                column.storage == "number"
                and unique
                and column.integral
                and isinstance(column.low, int | float)
                and isinstance(column.high, int | float)
                and column.high - column.low < 2 * table.rows
            )
            named = names_key(column.name)
            # a name ending in id or number decides for a number, a unique value or a text with many values
            many = column.storage == "text" and column.distinct > MAX_DIMENSION_VALUES
            if counting or (named and (column.storage in ("number", "other") or unique or many)):
                keys[table.name].add(column.name)
    return keys


def join_steps(joins: list[Edge], tables: dict[str, TableProfile]) -> list[Edge]:
    """The joins a question may follow from a fact: each foreign key to the key it references, and back where the
    foreign key is unique (one row per referenced row: a film's one category row), so no fact row is counted twice."""
    steps = list(joins)
    for left, column, right, other in joins:
        if tables[left].unique(column):
            steps.append((right, other, left, column))
    return steps


def reachable_tables(fact: str, steps: list[Edge], tables: dict[str, TableProfile]) -> list[tuple[str, str, Edge]]:
    """Tables reached from `fact` along `steps`, nearest first: (table, what its rows are to the fact, last step).

    What a row is comes from the foreign key's name where it says a role (`SupportRepId` -> `support rep`), else
    from the table's name; a foreign key holding one value throughout leads nowhere worth grouping by.
    """
    out: list[tuple[str, str, Edge]] = []
    seen = {fact}
    queue = deque([(fact, 0)])
    while queue:
        here, hops = queue.popleft()
        if hops == MAX_JOIN_HOPS:
            continue
        for step in steps:
            left, column, right, _ = step
            if left != here or right in seen or tables[left].columns[column].distinct < 2:
                continue
            seen.add(right)
            stem = key_stem(column)
            noun = stem if stem and stem not in (table_noun(right), table_noun(left)) else table_noun(right)
            out.append((right, noun, step))
            queue.append((right, hops + 1))
    return out
