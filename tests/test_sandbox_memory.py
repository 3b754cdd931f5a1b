"""One statement adds at most the memory limit plus 512 MiB to biarena's processes on every engine, ends cleanly, and
the next statement on the database runs; on PostgreSQL a slow fetch ends within the time limit plus 2 s."""

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biarena.db import SqlTimeout, open_database
from biarena.db.fetch_capped import CELL_OVERHEAD

MIB = 2**20
LIMIT = 256 * MIB
BOUND = LIMIT + 512 * MIB

# Unbounded, each grows biarena's processes past BOUND: three values of ~400 MB built before SQLite checks their
# length, and 100,000 rows of 1,600 references to an empty string (~1.3 GB).
JSON_ROWS = 2_000_000
_AGGREGATES = ", ".join(f"length(json_group_array(printf('%0200d',n){tail}))" for tail in ("", "||'a'", "||'b'"))
_COUNT = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n<{}) "
JSON_BOMB = _COUNT.format(JSON_ROWS) + f"SELECT {_AGGREGATES} FROM r"
_PG_AGGREGATES = ", ".join(f"length(json_agg(lpad(n::text, 200, '0'){tail})::text)" for tail in ("", "||'a'", "||'b'"))
PG_JSON_BOMB = f"SELECT {_PG_AGGREGATES} FROM generate_series(1, 200000) AS n"
_EMPTY = ", ".join(f"'' AS c{i}" for i in range(1600))
WIDE_ROWS = 100_000
WIDE_SERIES = f"SELECT {_EMPTY} FROM generate_series(1, {WIDE_ROWS})"
WIDE_RECURSIVE = _COUNT.format(WIDE_ROWS) + f"SELECT {_EMPTY} FROM r"

# In a fresh process: open the database, run a first statement (an engine process starts), reset this process's
# peak resident memory, run the bomb, and print what it added to this process and (at most) to the engine processes,
# the outcome, and whether the next statement runs.
_MEASURE = """
import json, os, resource, sys
from pathlib import Path
from biarena.db import SqlProblem, open_database

def peak(pid, key="VmHWM"):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0

location, sql, dialect, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
db = open_database(location, max_memory_bytes=limit, timeout=60)
assert db.execute("SELECT 1").rows == [(1,)]
worker = getattr(db, "_worker", None)
own_before = peak(os.getpid(), "VmRSS")
Path("/proc/self/clear_refs").write_text("5")
try:
    result = db.execute(sql, dialect=dialect)
    outcome = "truncated by " + str(result.truncated_by) if result.truncated else "ran"
except SqlProblem as problem:
    outcome = type(problem).__name__
own = peak(os.getpid()) - own_before
engine = peak(worker.pid) if worker is not None and worker.pid else 0
after = db.execute("SELECT 2").rows
db.close()
engine = max(engine, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
print(json.dumps({"outcome": outcome, "own": own, "engine": engine, "after": after}))
"""


def _measure(location: str, sql: str, dialect: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, location, sql, dialect, str(LIMIT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _assert_bounded(measured: dict, outcomes: set[str]) -> None:
    assert measured["outcome"] in outcomes, measured
    added = measured["own"] + measured["engine"]  # the engine's whole peak, its start included
    assert added <= BOUND, (measured["own"] // MIB, measured["engine"] // MIB)
    assert measured["after"] == [[2]]


@pytest.fixture(scope="module")
def sqlite_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("memory") / "bench.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (n INTEGER)")
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize(
    ("sql", "outcomes"),
    [(JSON_BOMB, {"SqlTooLarge"}), (WIDE_RECURSIVE, {"truncated by bytes"})],
    ids=["json", "wide"],
)
def test_sqlite_statements_are_bounded(sqlite_path: Path, sql: str, outcomes: set[str]) -> None:
    _assert_bounded(_measure(str(sqlite_path), sql, "sqlite"), outcomes)


@pytest.mark.parametrize(
    ("sql", "outcomes"),
    [(JSON_BOMB, {"SqlTooLarge"}), (WIDE_SERIES, {"truncated by bytes"})],
    ids=["json", "wide"],
)
def test_duckdb_statements_are_bounded(tmp_path: Path, sql: str, outcomes: set[str]) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "bench.duckdb"
    duckdb.connect(str(path)).close()
    _assert_bounded(_measure(str(path), sql, "duckdb"), outcomes)


@pytest.mark.parametrize(
    ("sql", "outcomes"),
    # the json values grow on the server (its own memory to bound), and three numbers come back
    [(PG_JSON_BOMB, {"ran"}), (WIDE_SERIES, {"truncated by bytes"})],
    ids=["json", "wide"],
)
def test_postgres_statements_are_bounded(reader_url: str, sql: str, outcomes: set[str]) -> None:
    _assert_bounded(_measure(reader_url, sql, "postgres"), outcomes)


def test_a_slow_fetch_on_postgres_ends_within_the_time_limit(reader_url: str) -> None:
    """Rows the client takes long to fetch: the deadline holds between chunks, not only per server statement."""
    db = open_database(reader_url, timeout=2, max_rows=10**9, max_result_bytes=2**40)
    started = time.monotonic()
    with pytest.raises(SqlTimeout, match=r"after 2 s"):
        db.execute(WIDE_SERIES)
    assert time.monotonic() - started < 2 + 2
    assert db.execute("SELECT 3").rows == [(3,)]
    db.close()


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_empty_values_and_nulls_count_against_the_byte_cap(engine: str, sqlite_path: Path, tmp_path: Path) -> None:
    if engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        location = tmp_path / "bench.duckdb"
        duckdb.connect(str(location)).close()
    else:
        location = sqlite_path
    db = open_database(location, max_result_bytes=100 * 10 * CELL_OVERHEAD)
    columns = ", ".join(f"{value} AS c{i}" for i, value in enumerate(["''", "NULL"] * 5))
    sql = f"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n<1000) SELECT {columns} FROM r"
    result = db.execute(sql)
    assert result.truncated_by == "bytes" and 50 <= result.row_count < 100
    db.close()


def test_a_benchmark_of_many_databases_keeps_a_few_engine_processes(tmp_path: Path) -> None:
    from biarena.db.engine_process import MAX_PROCESSES

    databases = []
    for i in range(MAX_PROCESSES + 3):
        path = tmp_path / f"db{i}.sqlite"
        conn = sqlite3.connect(path)
        conn.execute(f"CREATE TABLE t AS SELECT {i} AS n")
        conn.commit()
        conn.close()
        databases.append(open_database(path))
    for _ in range(2):
        for i, db in enumerate(databases):
            assert db.execute("SELECT n FROM t").rows == [(i,)]
            running = [d for d in databases if d._worker.pid is not None]  # type: ignore[attr-defined]
            assert 1 <= len(running) <= MAX_PROCESSES
    for db in databases:
        db.close()
