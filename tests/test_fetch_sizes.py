"""Every fetched value counts against the byte caps by what it holds, on SQLite and DuckDB: decimals by their digits,
wide integers, blobs, structs, maps and lists by their contents."""

import datetime
import sqlite3
import sys
import uuid
from decimal import Decimal
from pathlib import Path

import pytest

from biarena.db import SqlTooLarge, open_database
from biarena.db.fetch_capped import CELL_OVERHEAD, fetch_capped
from biarena.db.held_size import held_size

BIG = Decimal("1" + "0" * 131071)
"""PostgreSQL's widest numeric: 131,072 digits."""


def test_a_decimal_counts_its_digits_or_its_memory() -> None:
    assert held_size(BIG) >= 131072
    small = Decimal("12345.67")
    assert held_size(small) >= sys.getsizeof(small) > 8


def test_fixed_size_values_count_the_memory_python_gives_them() -> None:
    for value in (datetime.date(2024, 1, 1), datetime.datetime(2024, 1, 1, 10), datetime.timedelta(days=3)):
        assert held_size(value) >= sys.getsizeof(value) > 8
    assert held_size(uuid.UUID(int=2**127)) >= sys.getsizeof(uuid.UUID(int=0)) + sys.getsizeof(2**127)
    assert held_size(2**127) == sys.getsizeof(2**127) and held_size(2**62) == 8


def test_containers_count_what_they_hold_at_any_depth() -> None:
    assert held_size([BIG] * 7) >= 7 * 131072
    assert held_size({"k": (BIG, b"x" * 1000)}) >= 131072 + 1000
    nested: list = [BIG]
    for _ in range(100_000):  # deeper than Python's recursion limit
        nested = [nested]
    assert held_size(nested) >= 131072 + 100_000 * CELL_OVERHEAD


def test_ranges_count_their_bounds() -> None:
    ranges = pytest.importorskip("psycopg.types.range")
    multiranges = pytest.importorskip("psycopg.types.multirange")
    span = ranges.Range(BIG, Decimal("2" + "0" * 131071))
    assert held_size(span) >= 2 * 131072
    assert held_size(multiranges.Multirange([span, span])) >= 4 * 131072


def test_sizing_stops_past_the_limit() -> None:
    huge = [BIG] * 100_000
    assert 10**6 < held_size(huge, limit=10**6) < 10**6 + 2 * 131072 + 100_000 * CELL_OVERHEAD


class _Rows:
    """A DB-API cursor over `rows`."""

    def __init__(self, rows: list[tuple]) -> None:
        self._rows = rows

    def fetchmany(self, size: int) -> list[tuple]:
        taken, self._rows = self._rows[:size], self._rows[size:]
        return taken


def test_fetch_capped_cuts_decimals_by_their_digits() -> None:
    rows = [(BIG,)] * 1000
    kept, cut = fetch_capped(_Rows(rows), 1000, max_bytes=64 * 2**20, max_cell=2**20, columns=["v"])
    assert cut == "bytes" and len(kept) == 64 * 2**20 // (131072 + CELL_OVERHEAD)
    with pytest.raises(SqlTooLarge, match="column 'v' holds more than the 1 MiB"):
        fetch_capped(_Rows([([BIG] * 9,)]), 10, max_bytes=2**30, max_cell=2**20, columns=["v"])


@pytest.fixture
def blobs_sqlite(tmp_path: Path) -> Path:
    path = tmp_path / "blobs.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (n INTEGER, b BLOB)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(n, bytes(100_000)) for n in range(100)])
    conn.commit()
    conn.close()
    return path


def test_sqlite_blobs_count_their_length(blobs_sqlite: Path) -> None:
    per_row = 8 + 100_000 + 2 * CELL_OVERHEAD
    db = open_database(blobs_sqlite, max_result_bytes=10 * per_row + per_row // 2)
    result = db.execute("SELECT n, b FROM t ORDER BY n")
    assert result.truncated_by == "bytes" and result.row_count == 10
    db.close()


@pytest.fixture
def duck_path(tmp_path: Path) -> Path:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "wide.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE t AS SELECT n, repeat('x', 400000) AS s FROM range(3) r(n)")
    conn.close()
    return path


# Each DuckDB type with what one value must count at least; 1,000 rows of it under a cap of 100 such values.
DUCK_VALUES = {
    "decimal38": ("99999999999999999999999999999999999999::DECIMAL(38,0)", 38),
    "hugeint": ("170141183460469231731687303715884105727::HUGEINT", 39 // 2),
    "blob": ("repeat('a', 503)::BLOB", 503),
    "struct": ("{'a': n, 'b': 99999999999999999999999999999999999999::DECIMAL(38,0), 'c': repeat('y', 300)}", 338),
    "map": ("MAP {'k': repeat('z', 300), 'l': repeat('w', 200)}", 502),
    "list": ("[n, n + 1, n + 2, 99999999999999999999999999999999999999::DECIMAL(38,0)]", 38 + 4 * 8),
}


@pytest.mark.parametrize("kind", list(DUCK_VALUES))
def test_duckdb_wide_types_count_what_they_hold(duck_path: Path, kind: str) -> None:
    expression, at_least = DUCK_VALUES[kind]
    floor = at_least + CELL_OVERHEAD
    db = open_database(duck_path, max_result_bytes=100 * floor)
    result = db.execute(f"SELECT {expression} AS v FROM range(1000) r(n)", dialect="duckdb")
    assert result.truncated_by == "bytes" and 0 < result.row_count <= 100
    # The count is what the values hold: every kept value's size, and the next one's, pass the cap.
    sized = [CELL_OVERHEAD + held_size(row[0]) for row in result.rows]
    assert sum(sized) <= 100 * floor < sum(sized) + sized[-1]
    db.close()


@pytest.mark.parametrize(
    "expression",
    ["{'a': s, 'b': s, 'c': s}", "MAP {'a': s, 'b': s, 'c': s}", "[s, s, s]", "{'l': [s, s], 'm': MAP {'k': s}}"],
    ids=["struct", "map", "list", "nested"],
)
def test_duckdb_nested_values_over_the_cell_cap_are_refused(duck_path: Path, expression: str) -> None:
    db = open_database(duck_path, max_cell_bytes=2**20)
    assert db.execute("SELECT length(s) FROM t LIMIT 1").rows == [(400_000,)]
    with pytest.raises(SqlTooLarge, match=r"column 'v' holds more than the 1 MiB per-value limit"):
        db.execute(f"SELECT {expression} AS v FROM t", dialect="duckdb")
    db.close()
