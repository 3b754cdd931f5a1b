"""On PostgreSQL, statements of wide values (numerics of 131,072 digits, arrays of intervals, ranges and arrays of such
numerics) grow biarena's process by at most result-bytes + 128 MiB and end within the time limit plus 2 s; a value
or a row too wide to keep is refused before it is sent."""


import pytest

from biarena.db import SqlTooLarge, open_database
from biarena.db.postgres_rows import ROW_BYTES
from tests.value_bombs import BOMBS, measure

MIB = 2**20
RESULT_BYTES = 64 * MIB
"""The sandbox's default byte cap, which the bombs run under."""
BOUND = RESULT_BYTES + 128 * MIB

pytestmark = pytest.mark.slow


# The first run of each bomb at each time limit runs every time; the two repeats run with --extended.
RUNS = [
    pytest.param(bomb, timeout, run, id=f"{bomb}-{timeout}s-{run}", marks=[pytest.mark.sweep] if run else [])
    for bomb in BOMBS
    for timeout in (5, 15)
    for run in range(3)
]


@pytest.mark.parametrize(("bomb", "timeout", "run"), RUNS)
def test_a_value_bomb_is_bounded_in_memory(reader_url: str, bomb: str, timeout: int, run: int) -> None:
    measured = measure(reader_url, BOMBS[bomb], timeout)
    # The byte cap cuts each result after a few rows: what they hold is counted, digits and elements included.
    assert measured["outcome"].endswith("cut by bytes"), measured
    assert measured["added"] <= BOUND, measured["added"] // MIB
    assert measured["after"] == [[2]]


def test_a_value_over_the_cell_cap_is_refused_before_it_is_sent(reader_url: str) -> None:
    """A 200 MB text: the server measures it and sends its width instead."""
    sql = "SELECT string_agg(lpad('', 1000, 'x'), '') AS big FROM generate_series(1, 200000)"
    measured = measure(reader_url, sql, 60)
    assert measured["outcome"].startswith("SqlTooLarge: a value in column 'big' is 200,000,000 bytes"), measured
    assert measured["added"] <= 64 * MIB, measured["added"] // MIB
    assert measured["after"] == [[2]]


def test_a_row_wider_than_a_fetch_may_hold_ends_the_result(reader_url: str) -> None:
    """Twenty values of 900 KB each, every one within the cell cap: the row is over ROW_BYTES, so it is not sent."""
    columns = ", ".join(f"s AS c{i}" for i in range(20))
    wide = f"SELECT {columns} FROM (SELECT string_agg(lpad('', 1000, 'x'), '') AS s FROM generate_series(1, 900)) AS t"
    assert ROW_BYTES < 20 * 900_000
    db = open_database(reader_url, max_result_bytes=2**30)
    result = db.execute(f"{wide} CROSS JOIN generate_series(1, 3)", dialect="postgres")
    assert result.truncated_by == "bytes" and result.rows == [] and len(result.columns) == 20
    narrow = db.execute(wide.replace(f"{columns}", "s AS c0, s AS c1"), dialect="postgres")
    assert narrow.truncated_by is None and [len(v) for v in narrow.rows[0]] == [900_000, 900_000]
    db.close()


def test_measured_rows_keep_their_types_order_and_names(reader_url: str) -> None:
    db = open_database(reader_url)
    sql = (
        "SELECT n AS a, n AS a, n::numeric / 4 AS q, make_interval(days => n) AS i, ARRAY[n, n + 1] AS arr, "
        "('[' || n || ',' || (n + 2) || ')')::int4range AS r, NULL::text AS z FROM generate_series(3, 1, -1) AS n"
    )
    result = db.execute(sql, dialect="postgres")
    assert result.columns == ["a", "a", "q", "i", "arr", "r", "z"]
    assert [row[:3] for row in result.rows] == [(3, 3, 0.75), (2, 2, 0.5), (1, 1, 0.25)]
    assert [row[4] for row in result.rows] == [[3, 4], [2, 3], [1, 2]]
    assert str(result.rows[0][3]) == "3 days, 0:00:00" and result.rows[0][5].lower == 3 and result.rows[0][6] is None
    with pytest.raises(SqlTooLarge, match=r"column 'v' holds more than the 1 MiB per-value limit"):
        # Its text (420 KB) is within the cap on the server; held in Python, its 60,001 integers are not.
        db.execute("SELECT array_agg(n) AS v FROM generate_series(100000, 160000) AS n", dialect="postgres")
    db.close()
