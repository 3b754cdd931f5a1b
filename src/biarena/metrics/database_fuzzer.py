"""fuzz_database: a neighbour of a database file (of any engine `db.file_tools` reads: SQLite, DuckDB): the same
schema, keys, column types and value domains, with values moved within their domains, rows dropped and
duplicated, NULLs and ties added, and rows in another order."""

import random
import shutil
from pathlib import Path
from typing import Any

from biarena.db.file_tools import TableShape, file_tools

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


def read_tables(path: Path) -> tuple[list[TableShape], dict[str, list[tuple]]]:
    """The tables of a database file and their rows (in storage order)."""
    read: tuple[list[TableShape], dict[str, list[tuple]]] = file_tools(path).read_tables(path)
    return read


def fuzz_database(source: Path, target: Path, seed: int, literals: list[float] | None = None) -> None:
    """Write a neighbour of the database file `source` at `target`, deterministic for `seed`; `literals` are
    numbers the queries on it compare with, put into numeric columns now and then."""
    rng = random.Random(seed)
    shapes, rows = read_tables(source)
    shutil.copyfile(source, target)
    perturbed = {s.name: _perturbed_rows(s, rows[s.name], rng, literals) for s in shapes}
    file_tools(source).write_rows(target, shapes, perturbed)


def reversed_twin(source: Path, target: Path) -> None:
    """Write `source` again at `target` with every table's rows stored in reverse order: a query whose answer
    depends on the order rows are stored in answers otherwise there (each engine's tools know what orders its
    rows)."""
    shapes, rows = read_tables(source)
    file_tools(source).write_reversed(source, target, shapes, rows)
