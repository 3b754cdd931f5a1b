"""biarena's own reading and writing of database files, through each engine's module (`db.file_tools`)."""

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from biarena.db.file_tools import Column, engine_tools, file_tools, table_engines
from biarena.errors import UsageError


def _shop(path: Path) -> None:
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, joined TEXT)")
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer INTEGER REFERENCES customer(id), at TEXT)")
        conn.executemany("INSERT INTO customer VALUES (?, ?, ?)", [(1, "a", "2023-01-02"), (2, "b", "2023-03-04x")])
        conn.executemany("INSERT INTO orders VALUES (?, ?, ?)", [(1, 1, "2023-05-06 07:08:09"), (2, 2, None)])


@pytest.mark.parametrize("folder", ["plain", "with#hash", "with?query", "with%25percent"])
def test_an_sqlite_file_is_read_wherever_it_lies(tmp_path: Path, folder: str) -> None:
    path = tmp_path / folder / "shop.sqlite"
    path.parent.mkdir()
    _shop(path)
    tools = file_tools(path)
    latest = dict(tools.latest_values(path, lambda value: not value.endswith("x")))
    assert latest == {
        "customer.id": None,
        "customer.name": None,
        "customer.joined": "2023-01-02",
        "orders.id": None,
        "orders.customer": None,
        "orders.at": "2023-05-06 07:08:09",
    }
    shapes, rows = tools.read_tables(path)
    assert [(s.name, s.primary, s.keys, s.referenced) for s in shapes] == [
        ("customer", {"id"}, {"id"}, True),
        ("orders", {"id"}, {"id", "customer"}, False),
    ]
    assert rows["orders"] == [(1, 1, "2023-05-06 07:08:09"), (2, 2, None)]
    twin = path.with_name("twin.sqlite")
    tools.write_reversed(path, twin, shapes, rows)
    with closing(sqlite3.connect(twin)) as conn:
        assert [row[0] for row in conn.execute("SELECT * FROM orders")] == [2, 1]  # stored in reverse


def test_tables_are_written_into_a_new_file_of_either_engine(tmp_path: Path) -> None:
    columns = [Column('odd "name"', "integer", [1, None]), Column("day", "date", [None, None])]
    for engine in table_engines():
        target = tmp_path / f"t.{engine}"
        engine_tools(engine).write_tables(target, {"x; DROP TABLE y": columns})
        shapes, rows = file_tools(target).read_tables(target)
        assert [s.columns for s in shapes] == [['odd "name"', "day"]] and rows["x; DROP TABLE y"] == [
            (1, None),
            (None, None),
        ], engine


def test_an_engine_biarena_does_not_write_files_for_is_one_line() -> None:
    with pytest.raises(UsageError, match="PostgreSQL files are not read or written by biarena itself"):
        engine_tools("postgres")
