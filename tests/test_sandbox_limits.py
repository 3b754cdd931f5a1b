"""Limits that hold: bytes per result and per value, SQLite and DuckDB spill space, DuckDB memory, time over parsing."""

import math
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import pytest

from biarena.db import QueryResult, SandboxLimits, SqlRejected, SqlTimeout, SqlTooLarge, open_database
from biarena.db.clock_text import may_read_clock
from biarena.db.fetch_capped import fetch_capped
from biarena.db.limits import parse_size
from biarena.db.sqlite_database import SqliteDatabase, sqlite_temp_bytes
from biarena.errors import UsageError
from tests.test_cli import assert_user_error, biarena


def test_result_bytes_cap_cuts_rows_and_says_so(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db, max_result_bytes=50_000)
    result = db.execute("SELECT printf('%.*c', 1000, 'x') AS wide FROM big")
    assert result.truncated and result.truncated_by == "bytes"
    assert 40 <= result.row_count <= 50
    assert sum(len(row[0]) for row in result.rows) <= 50_000
    by_rows = SqliteDatabase(sales_db, max_rows=10).execute("SELECT n FROM big")
    assert by_rows.truncated_by == "rows" and by_rows.row_count == 10


def test_no_value_outgrows_the_cell_cap_in_sqlite(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db, max_cell_bytes=1000)
    with pytest.raises(SqlTooLarge, match="per-value limit"):
        db.execute("SELECT replace(printf('%.*c', 900, 'x'), 'x', 'xx')")
    with pytest.raises(SqlTooLarge):
        db.execute("SELECT group_concat(name, ',') FROM (SELECT a.name FROM city a, city b, city c, city d)")
    # SQLite's printf gives NULL rather than a value past the limit
    assert db.execute("SELECT printf('%.*c', 5000, 'x')").rows == [(None,)]
    assert db.execute("SELECT printf('%.*c', 900, 'x')").rows[0][0] == "x" * 900


def test_default_limits_keep_memory_bounded(sales_db: Path) -> None:
    """Huge values (zeroblob(200000000), twenty 26 MB values) are refused and wide results cut: memory stays small."""
    script = f"""
import resource
from biarena.db import SqlRejected, SqlTooLarge
from biarena.db.sqlite_database import SqliteDatabase
db = SqliteDatabase({str(sales_db)!r})
for sql in (
    "SELECT zeroblob(200000000)",
    "SELECT replace(printf('%.*c', 1000000, 'x'), 'x', 'xx') FROM big LIMIT 20",
    "SELECT length(replace(printf('%.*c', 1000000, 'x'), 'x', 'xx'))",
):
    try:
        db.execute(sql)
        print("ran")
    except (SqlRejected, SqlTooLarge):
        print("refused")
result = db.execute("SELECT printf('%.*c', 1000000, 'x') FROM big")
print(result.truncated_by, result.row_count)
# VmHWM is this process's own peak (ru_maxrss keeps the parent's peak across exec on Linux)
status = open("/proc/self/status").read().split("VmHWM:")
own_peak_kb = int(status[1].split()[0]) if len(status) > 1 else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(own_peak_kb // 1024)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    assert lines[:3] == ["refused", "refused", "refused"]
    assert lines[3] == "bytes" and int(lines[4]) * 1_000_000 <= 64 * 2**20
    assert int(lines[5]) < 600, f"peak resident memory {lines[5]} MB"


@pytest.mark.skipif(sqlite_temp_bytes() is None, reason="SQLite temp files are measured through /proc (Linux)")
def test_sqlite_spill_files_are_capped(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db, max_temp_bytes=2_000_000, timeout=120)
    with pytest.raises(SqlTooLarge, match="temporary files"):
        db.execute("SELECT a.n, b.n FROM big a, big b ORDER BY a.n * b.n DESC, a.n")
    # the connection is usable afterwards and the spill is gone
    assert db.execute("SELECT count(*) FROM big").rows == [(3000,)]
    assert (sqlite_temp_bytes() or 0) < 2_000_000


@pytest.fixture
def duck_path(tmp_path: Path) -> Path:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "bench" / "w.duckdb"
    path.parent.mkdir()
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE t AS SELECT range AS n, 'x' || range AS s FROM range(3000)")
    conn.close()
    return path


def test_duckdb_memory_and_temp_are_capped_in_the_scratch_area(duck_path: Path) -> None:
    limits = SandboxLimits(max_memory_bytes=32 * 2**20, max_temp_bytes=8 * 2**20, timeout=120)
    db = open_database(duck_path, limits=limits)
    _, rows = db._internal(  # type: ignore[attr-defined]
        "SELECT current_setting('memory_limit'), current_setting('max_temp_directory_size'), "
        "current_setting('temp_directory'), current_setting('lock_configuration')"
    )
    settings = rows[0]
    assert settings[3] is True
    assert settings[:2] == ("32.0 MiB", "8.0 MiB")
    temp = Path(settings[2]).resolve()
    assert temp.is_relative_to(Path(tempfile.gettempdir()).resolve()) and "biarena-sandbox-" in str(temp)
    with pytest.raises(SqlTooLarge, match=r"(?i)memory"):
        db.execute("SELECT a.s || b.s AS x, a.n * b.n AS y FROM t a, t b ORDER BY y DESC, x")
    assert db.execute("SELECT count(*) FROM t").rows == [(3000,)]
    db.close()
    # nothing was written beside the benchmark's database
    assert sorted(p.name for p in duck_path.parent.iterdir()) == ["w.duckdb"]


def test_duckdb_values_are_capped_as_they_arrive(duck_path: Path) -> None:
    db = open_database(duck_path, max_cell_bytes=1000)
    with pytest.raises(SqlTooLarge, match="column 'joined'"):
        db.execute("SELECT string_agg(s, ',') AS joined FROM t")
    with pytest.raises(SqlRejected, match="constant size"):
        db.execute("SELECT repeat(s, n) FROM t")
    assert db.execute("SELECT string_agg(s, ',') FROM t WHERE n < 10").row_count == 1


class _CountingCursor:
    """A DB-API cursor over `rows` that counts its fetchmany calls (a short batch only at the end, as DuckDB's)."""

    def __init__(self, rows: list[tuple]) -> None:
        self.rows, self.calls = rows, 0

    def fetchmany(self, size: int) -> list[tuple]:
        self.calls += 1
        batch, self.rows = self.rows[:size], self.rows[size:]
        return batch


@pytest.mark.parametrize("count", [0, 5, 16, 17, 500, 3000])
@pytest.mark.parametrize("caps", [{"max_rows": 100_000}, {"max_rows": 40}, {"max_rows": 100_000, "max_bytes": 2000}])
def test_a_short_batch_ends_the_fetch_with_the_same_rows(count: int, caps: dict) -> None:
    rows = [(n, f"v{n}") for n in range(count)]
    plain, short = _CountingCursor(rows), _CountingCursor(rows)
    max_rows = caps["max_rows"]
    expected = fetch_capped(plain, max_rows, max_bytes=caps.get("max_bytes"), columns=["n", "v"])
    got = fetch_capped(short, max_rows, max_bytes=caps.get("max_bytes"), columns=["n", "v"], short_batch_ends=True)
    assert got == expected
    assert short.calls <= plain.calls
    if 0 < count < 16:
        assert short.calls == 1


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_no_time_limit_is_allowed(engine: str, sales_db: Path, duck_path: Path) -> None:
    path = sales_db if engine == "sqlite" else duck_path
    db = open_database(path, timeout=math.inf)
    table = "big" if engine == "sqlite" else "t"
    assert db.execute(f"SELECT count(*) FROM {table}").rows[0][0] > 0
    db.close()


def test_the_time_limit_covers_checking_the_statement(sales_db: Path) -> None:
    """Parsing a long statement counts against its time limit, and a statement past the size limit is not parsed."""
    db = SqliteDatabase(sales_db, timeout=0.002)
    # It reads the clock, so it is parsed to be anchored.
    columns = ", ".join(f"coalesce(qty, 0) * 2 + {i} AS c{i}" for i in range(1500))
    wide = f"SELECT {columns}, date('now') FROM sales"
    assert len(wide) < db.limits.max_sql_bytes
    now = datetime(2024, 5, 1)
    with pytest.raises(SqlTimeout, match="checking it took"):
        db.execute(wide, now=now)
    result = SqliteDatabase(sales_db).execute(wide, now=now)
    assert result.elapsed > 0 and len(result.columns) == 1501 and result.rows[0][-1] == "2024-05-01"
    with pytest.raises(SqlRejected, match="over the 100,000-character limit"):
        db.execute("SELECT " + "+".join(["1"] * 400_000))


def test_deep_nesting_is_refused_not_crashed(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db)
    with pytest.raises(SqlRejected, match="nests too deeply"):
        db.execute("SELECT " + "(" * 3000 + "1" + ")" * 3000)
    assert db.execute("SELECT " + "+".join(["1"] * 1000)).rows == [(1000,)]


def test_preview_is_bounded() -> None:
    result = QueryResult(["a", "b"], [("x" * 5000, b"\x00" * 5000)] * 30)
    preview = result.preview(20, max_chars=100, max_bytes=1000)
    assert len(preview) < 20
    assert preview[0][0] == "x" * 100 + "…" and preview[0][1].endswith("…") and len(preview[0][1]) <= 101
    wide = QueryResult([f"c{i}" for i in range(500)], [tuple("y" * 1000 for _ in range(500))])
    assert sum(len(v) for v in wide.preview(max_bytes=10_000)[0]) <= 10_000 + 500


def test_limits_parse_from_options() -> None:
    limits = SandboxLimits().with_options({"result-bytes": "2MB", "memory": "512MiB", "rows": "1_000", "temp": "1GB"})
    assert (limits.max_result_bytes, limits.max_memory_bytes, limits.max_rows, limits.max_temp_bytes) == (
        2_000_000,
        512 * 2**20,
        1000,
        10**9,
    )
    assert parse_size("64MiB") == 64 * 2**20
    for bad in ({"memory": "lots"}, {"nope": "1"}, {"rows": "0"}):
        with pytest.raises(UsageError):
            SandboxLimits().with_options(bad)
    assert SandboxLimits().with_options({"timeout": "inf"}).timeout == math.inf


def test_sandbox_options_on_the_command_line(tmp_path: Path) -> None:
    run = tmp_path / "r.run"
    result = biarena("run", "bis-synth", "--system", "gold", "--limit", "2", "-o", run, "--sandbox", "rows=1")
    assert result.returncode == 0, result.stderr
    assert_user_error(
        biarena("run", "bis-synth", "--system", "gold", "-o", run, "--sandbox", "bytes=1"), "unknown sandbox limit"
    )
    assert_user_error(biarena("score", run, "--sandbox", "memory=lots"), "is not a size")


@pytest.mark.parametrize(
    ("command", "url", "fragment"),
    [
        ("run", "duckdb://x", "duckdb:///PATH"),
        ("load", "duckdb://x", "cannot use database URL"),
        ("run", "postgresql://u:secret@h:notaport/db", "invalid literal"),
        ("load", "postgresql://u:secret@h:notaport/db", "invalid literal"),
        ("run", "nosuch://x/y", "cannot use database URL"),
    ],
)
def test_bad_database_urls_are_one_line_errors(tmp_path: Path, command: str, url: str, fragment: str) -> None:
    args = ("run", "bis-synth", "--system", "gold", "--limit", "1", "-o", tmp_path / "r.run")
    result = biarena(*(args if command == "run" else ("load", "bis-synth")), "--db-url", url)
    assert_user_error(result, fragment)
    assert "secret" not in result.stderr


@pytest.mark.parametrize(
    ("sql", "reads"),
    [
        ("SELECT date('now')", True),
        ("SELECT CURRENT_DATE", True),
        ("SELECT date ( )", True),
        ("SELECT Now()", True),
        ("SELECT julianday()", True),
        ("SELECT date/**/()", True),
        ("SELECT strftime('%Y')", True),
        # a column may hold 'now', which SQLite's time functions read as the current time
        ("SELECT date(order_date, '-7 day') FROM sales", True),
        ("SELECT strftime('%Y', order_date) FROM sales", True),
        ("SELECT nowhere, knowledge FROM t", False),
        ("SELECT order_date, updated_at FROM sales WHERE order_date > '2024-01-01'", False),
    ],
)
def test_clock_words_find_every_statement_that_needs_anchoring(sql: str, reads: bool) -> None:
    assert may_read_clock(sql) is reads


def test_a_statement_with_nothing_to_rewrite_runs_as_written_and_refusals_keep_their_reason(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db)
    statement = db.prepare_statement("SELECT count(*) FROM sales", now=datetime(2024, 5, 1))
    assert statement.text == "SELECT count(*) FROM sales" and statement.tree.key == "select"
    with pytest.raises(SqlRejected, match="load_extension"):
        db.execute("SELECT \"load_extension\"('x')")
    with pytest.raises(SqlRejected, match="exactly one statement"):
        db.execute("SELECT 1; SELECT 2")


def test_a_killed_process_scratch_area_is_removed_by_the_next(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    base = tmp_path / "scratch"
    env = {**os.environ, "BIARENA_TMPDIR": str(base)}
    code = "from biarena.db.scratch import scratch_dir as d; import time; print(d('x'), flush=True); time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
    left = Path(child.stdout.readline().strip()).parent
    os.kill(child.pid, signal.SIGKILL)  # no exit handlers run
    child.wait()
    assert left.is_dir() and left.name.startswith(f"biarena-sandbox-{child.pid}-")
    other = base / "biarena-sandbox-notes"  # not a scratch area of ours: left alone
    other.mkdir()
    code = "from biarena.db.scratch import scratch_dir; print(scratch_dir('duckdb'))"
    made = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert not left.exists() and other.is_dir()
    assert not Path(made.stdout.strip()).exists()  # the new process removed its own area at exit
