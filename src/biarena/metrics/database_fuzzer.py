"""fuzz_database: a neighbour of an SQLite or DuckDB database: the same schema, keys, column types and value
domains, with values moved within their domains, rows dropped and duplicated, NULLs and ties added, and rows in
another order."""

import random
import re
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biarena.db.sql_text import compose, placeholders

DROP = 0.1
"""Share of a table's rows dropped (never from a table other rows refer to)."""
DUPLICATE = 0.1
"""Share of rows written twice (under a new key when the table has an integer key)."""
REPLACE = 0.25
"""Chance a value is replaced by another value of its column (a tie with some other row)."""
NUDGE = 0.15
"""Chance a number is moved a little, within its column's range."""
NULLS = 0.05
"""Chance a value of a nullable column becomes NULL."""
RELINK = 0.1
"""Chance a foreign key points to another parent that rows already point to."""
BOUNDARY = 0.2
"""Chance a number becomes one of the queries' own numbers (or one either side of it) within its column's range:
the values where a wrong comparison or a wrong constant first shows."""


@dataclass(frozen=True)
class TableShape:
    """What the fuzzer keeps of a table: its columns, which are keys, which may hold NULL."""

    name: str
    columns: list[str]
    primary: set[str]
    """The primary key's columns: kept as they are."""
    keys: set[str]
    """Primary and foreign key columns: their values are kept (a foreign key may take another existing value)."""
    nullable: set[str]
    integer_key: str | None
    """The single integer primary key, when there is one: a duplicated row gets a fresh value there."""
    referenced: bool
    """True when another table's foreign key points here: no row is dropped."""


def _insert(shape: TableShape) -> str:
    """The statement adding a row to a table, keeping the first of rows that clash on a key."""
    return compose(
        "INSERT OR IGNORE INTO {name} ({columns}) VALUES ({marks})",
        name=shape.name,
        columns=list(shape.columns),
        marks=placeholders(len(shape.columns)),
    )


def table_shapes(conn: sqlite3.Connection) -> list[TableShape]:
    """The ordinary tables of an SQLite database, as the fuzzer sees them."""
    names = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    referenced = set()
    foreign: dict[str, set[str]] = {}
    for name in names:
        links = conn.execute(compose("PRAGMA foreign_key_list({name})", name=name)).fetchall()
        foreign[name] = {row[3] for row in links}
        referenced |= {row[2] for row in links}
    shapes = []
    for name in names:
        info = conn.execute(compose("PRAGMA table_info({name})", name=name)).fetchall()
        primary = [row for row in info if row[5]]
        integer_key = primary[0][1] if len(primary) == 1 and "INT" in (primary[0][2] or "").upper() else None
        shapes.append(
            TableShape(
                name=name,
                columns=[row[1] for row in info],
                primary={row[1] for row in primary},
                keys={row[1] for row in primary} | foreign[name],
                nullable={row[1] for row in info if not row[3] and not row[5]},
                integer_key=integer_key,
                referenced=name in referenced,
            )
        )
    return shapes


def _nudged(value: Any, low: float, high: float, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(min(max(value + rng.choice((-3, -2, -1, 1, 2, 3)), low), high))
    if isinstance(value, float):
        moved = value * (1 + rng.gauss(0, 0.05)) if value else rng.uniform(low, high)
        return round(min(max(moved, low), high), 4)
    return value


def _boundary(value: Any, literals: list[float], low: float, high: float, rng: random.Random) -> Any:
    near = [x for x in literals if low <= x <= high]
    if not near or isinstance(value, bool):
        return value
    chosen = rng.choice(near)
    if isinstance(value, int):
        return round(chosen) + rng.choice((-1, 0, 1))
    return chosen + rng.choice((-0.01, 0.0, 0.01))


def _perturbed_rows(
    shape: TableShape, rows: list[tuple], rng: random.Random, literals: list[float] | None = None
) -> list[tuple]:
    if not rows:
        return rows
    columns = list(zip(*rows, strict=True))
    domains = [[v for v in column if v is not None] for column in columns]
    ranges = []
    for domain in domains:
        numbers = [v for v in domain if isinstance(v, int | float) and not isinstance(v, bool)]
        ranges.append((min(numbers), max(numbers)) if numbers and len(numbers) == len(domain) else None)
    key_index = shape.columns.index(shape.integer_key) if shape.integer_key else None
    next_key = 0
    if key_index is not None:
        next_key = 1 + max((r[key_index] for r in rows if isinstance(r[key_index], int)), default=0)
    # a row of a table keyed otherwise than by one integer cannot be written twice
    fixed_key = bool(shape.primary) and shape.integer_key is None
    out: list[tuple] = []
    for row in rows:
        if not shape.referenced and len(rows) > 3 and rng.random() < DROP:
            continue
        values = list(row)
        for i, name in enumerate(shape.columns):
            if name in shape.keys:
                if name not in shape.primary and domains[i] and rng.random() < RELINK:
                    values[i] = rng.choice(domains[i])
                continue
            if name in shape.nullable and rng.random() < NULLS:
                values[i] = None
            elif ranges[i] is not None and values[i] is not None and literals and rng.random() < BOUNDARY:
                values[i] = _boundary(values[i], literals, ranges[i][0], ranges[i][1], rng)
            elif domains[i] and rng.random() < REPLACE:
                values[i] = rng.choice(domains[i])
            elif ranges[i] is not None and values[i] is not None and rng.random() < NUDGE:
                values[i] = _nudged(values[i], ranges[i][0], ranges[i][1], rng)
        out.append(tuple(values))
        if rng.random() < DUPLICATE and not fixed_key:
            twin = list(values)
            if key_index is not None:
                twin[key_index] = next_key
                next_key += 1
            out.append(tuple(twin))
    rng.shuffle(out)
    return out


def write_rows(path: Path, tables: dict[str, tuple[list[str], list[tuple]]]) -> None:
    """Replace the rows of the named tables of the SQLite file at `path` (schema, indexes and views kept); a row a
    constraint refuses is left out."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        with conn:
            for name, (columns, rows) in tables.items():
                conn.execute(compose("DELETE FROM {name}", name=name))
                insert = compose(
                    "INSERT OR IGNORE INTO {name} ({columns}) VALUES ({marks})",
                    name=name,
                    columns=list(columns),
                    marks=placeholders(len(columns)),
                )
                conn.executemany(insert, rows)
        conn.execute("VACUUM")
    finally:
        conn.close()


def is_duckdb(path: Path) -> bool:
    """True for a DuckDB file (by its suffix, as biarena opens it)."""
    return path.suffix.lower() in (".duckdb", ".ddb")


def _duckdb_tables(path: Path) -> tuple[list[TableShape], dict[str, list[tuple]]]:
    import duckdb

    conn = duckdb.connect(str(path), read_only=True)
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
                "AND table_type = 'BASE TABLE' ORDER BY table_name"
            ).fetchall()
        ]
        constraints = conn.execute(
            "SELECT table_name, constraint_type, constraint_column_names, referenced_table FROM duckdb_constraints()"
        ).fetchall()
        referenced = {c[3] for c in constraints if c[1] == "FOREIGN KEY"}
        shapes, rows = [], {}
        for name in names:
            info = conn.execute(
                "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                "WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position",
                [name],
            ).fetchall()
            primary = {c for row in constraints if row[0] == name and row[1] == "PRIMARY KEY" for c in row[2]}
            foreign = {c for row in constraints if row[0] == name and row[1] == "FOREIGN KEY" for c in row[2]}
            types = {row[0]: row[1] for row in info}
            single = next(iter(primary)) if len(primary) == 1 else None
            shapes.append(
                TableShape(
                    name=name,
                    columns=[row[0] for row in info],
                    primary=primary,
                    keys=primary | foreign,
                    nullable={row[0] for row in info if row[2] == "YES" and row[0] not in primary},
                    integer_key=single if single and "INT" in types[single].upper() else None,
                    referenced=name in referenced,
                )
            )
            sql = compose("SELECT {columns} FROM {name}", columns=list(types), name=name)
            rows[name] = conn.execute(sql).fetchall()
        return shapes, rows
    finally:
        conn.close()


def _write_duckdb(path: Path, shapes: list[TableShape], tables: dict[str, list[tuple]]) -> None:
    """Replace the rows of a DuckDB file's tables: children emptied first, parents filled first (foreign keys)."""
    import duckdb

    order = [s for s in shapes if s.referenced] + [s for s in shapes if not s.referenced]
    conn = duckdb.connect(str(path))
    try:
        for shape in reversed(order):
            conn.execute(compose("DELETE FROM {name}", name=shape.name))
        for shape in order:
            insert = _insert(shape)
            for row in tables[shape.name]:
                try:
                    conn.execute(insert, list(row))
                except duckdb.Error:
                    continue  # a row a constraint refuses is left out
        conn.execute("CHECKPOINT")
    finally:
        conn.close()


def read_tables(path: Path) -> tuple[list[TableShape], dict[str, list[tuple]]]:
    """The tables of an SQLite (or DuckDB) file and their rows (in storage order)."""
    if is_duckdb(path):
        return _duckdb_tables(path)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        shapes = table_shapes(conn)
        rows = {}
        for shape in shapes:
            sql = compose("SELECT {columns} FROM {name}", columns=list(shape.columns), name=shape.name)
            rows[shape.name] = conn.execute(sql).fetchall()
        return shapes, rows
    finally:
        conn.close()


def fuzz_database(source: Path, target: Path, seed: int, literals: list[float] | None = None) -> None:
    """Write a neighbour of the SQLite database `source` at `target`, deterministic for `seed`; `literals` are
    numbers the queries on it compare with, put into numeric columns now and then."""
    rng = random.Random(seed)
    shapes, rows = read_tables(source)
    shutil.copyfile(source, target)
    perturbed = {s.name: _perturbed_rows(s, rows[s.name], rng, literals) for s in shapes}
    if is_duckdb(source):
        _write_duckdb(target, shapes, perturbed)
        return
    write_rows(target, {s.name: (s.columns, perturbed[s.name]) for s in shapes})


def reversed_twin(source: Path, target: Path) -> None:
    """Write `source` again at `target` with every table's rows stored in reverse order: a query whose answer
    depends on the order rows are stored in answers otherwise there.

    An INTEGER PRIMARY KEY orders a table's rows by itself in SQLite, so the twin declares it INT PRIMARY KEY (the
    same key, kept unique by an index, no longer the row's place)."""
    shapes, rows = read_tables(source)
    if is_duckdb(source):  # DuckDB scans rows in the order they were written, whatever the keys
        shutil.copyfile(source, target)
        _write_duckdb(target, shapes, {name: found[::-1] for name, found in rows.items()})
        return
    conn = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        schema = conn.execute(
            "SELECT type, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        ).fetchall()
    finally:
        conn.close()
    target.unlink(missing_ok=True)
    twin = sqlite3.connect(target)
    try:
        with twin:
            for kind, sql in schema:
                if kind == "table":
                    sql = re.sub(r"\bINTEGER(\s+PRIMARY\s+KEY)", r"INT\1", sql, flags=re.IGNORECASE)
                    sql = re.sub(r"\s+AUTOINCREMENT\b", "", sql, flags=re.IGNORECASE)
                    twin.execute(sql)
            for shape in shapes:
                insert = _insert(shape)
                twin.executemany(insert, rows[shape.name][::-1])
            for kind, sql in schema:
                if kind != "table":
                    twin.execute(sql)
    finally:
        twin.close()
