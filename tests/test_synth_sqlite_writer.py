"""The SQLite writer's many-rows-a-statement insert leaves the file one row a statement leaves, whatever the width and
values: hostile text, NULLs, NaN and infinities, 62-bit integers, chunks shorter and longer than a statement."""

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from biarena.synth import writers
from biarena.synth.writers import SqliteWriter, TableDef


def _table(width: int, n: int, rng: np.random.Generator) -> tuple[TableDef, dict[str, np.ndarray]]:
    kinds = ["int", "float", "text", "timestamp", "date"]
    types = {f"c{j}": kinds[j % len(kinds)] for j in range(width)}
    data: dict[str, np.ndarray] = {}
    for name, kind in types.items():
        if kind == "int":
            data[name] = rng.integers(-(2**62), 2**62, n)
        elif kind == "float":
            values = np.where(rng.random(n) < 0.2, np.nan, rng.normal(0, 1e300, n))
            values[: min(n, 1)] = np.inf
            data[name] = values
        elif kind == "text":
            data[name] = np.array([None if i % 7 == 0 else f"'; DROP TABLE t; -- ☃\x00{i}" for i in range(n)], object)
        else:
            data[name] = rng.integers(0, 40_000 if kind == "date" else 2_000_000_000, n)
    return TableDef("t", types, None, {}), data


def _one_row_a_statement(path: Path, table: TableDef, chunks: list[dict[str, np.ndarray]]) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in ("page_size = 4096", "journal_mode = OFF", "synchronous = OFF"):
        conn.execute(f"PRAGMA {pragma}")
    conn.execute("BEGIN")
    conn.execute(writers.create_sql(table, writers._SQLITE_TYPES))
    text = {"timestamp": writers.timestamp_text, "date": writers.date_text}
    for data in chunks:
        columns = [text.get(kind, np.ndarray.tolist)(data[name]) for name, kind in table.types.items()]
        marks = ",".join("?" * len(columns))
        conn.executemany(f'INSERT INTO "t" VALUES ({marks})', zip(*columns, strict=True))
    conn.execute("COMMIT")
    conn.close()


@pytest.mark.parametrize("width", [1, 15, 80, 1200])
@pytest.mark.parametrize("sizes", [(0,), (1,), (63, 64, 65), (1000, 3)])
def test_many_rows_a_statement_make_the_same_file(width: int, sizes: tuple[int, ...], tmp_path: Path) -> None:
    rng = np.random.default_rng(width)
    made = [_table(width, n, rng) for n in sizes]
    table, chunks = made[0][0], [data for _, data in made]
    writer = SqliteWriter(tmp_path / "many.db")
    writer.create(table)
    for data in chunks:
        writer.append(table.name, data)
    writer.conn.execute("COMMIT")
    writer.conn.close()
    _one_row_a_statement(tmp_path / "one.db", table, chunks)
    assert (tmp_path / "many.db").read_bytes() == (tmp_path / "one.db").read_bytes()
    rows = sqlite3.connect(tmp_path / "many.db").execute('SELECT count(*) FROM "t"').fetchone()[0]
    assert rows == sum(sizes)
