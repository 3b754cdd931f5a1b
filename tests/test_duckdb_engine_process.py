"""DuckDB statements run in an engine process that is killed past the memory limit plus a margin or the time limit."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biarena.db import SqlRejected, SqlTimeout, open_database

MIB = 2**20


@pytest.fixture
def duck_path(tmp_path: Path) -> Path:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "w.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE t AS SELECT range AS n, 'x' || range AS s FROM range(3000)")
    conn.close()
    return path


# Each runs past the memory limit outside DuckDB's buffer manager; the first three the parser check refuses, so
# they go straight to the engine (`_run`), as a statement the check cannot see through would.
ATTACKS = [
    "SELECT len(repeat([repeat('x', 1000000)], 1000000))",
    "SELECT length(printf('%*d', 1000000000, 1))",
    "SELECT length(format('{:>{}}', 'x', 1000000000))",
    # one allocation past the engine process's data segment limit: refused by the OS at once
    "SELECT length(printf('%*d', 1500000000, 1))",
]
# The size sits in a column, where the parser check cannot see it: the full path runs it and the watch stops it.
UNSEEN = "WITH a AS (SELECT [repeat('x', 1000000)] AS l) SELECT len(repeat(l, 1000000)) FROM a"


def test_peak_memory_stays_within_the_limit_plus_the_margin(duck_path: Path) -> None:
    """Attack statements end with SqlTooLarge, SqlRejected or SqlTimeout, and memory peaks under limit + 512 MiB."""
    limit = 128 * MIB
    script = f"""
import resource, sys
# An OS bound on this process and the engine process it starts, should the sandbox fail.
resource.setrlimit(resource.RLIMIT_DATA, (3 * 2**30, 3 * 2**30))
from biarena.db import SqlProblem, open_database
db = open_database({str(duck_path)!r}, max_memory_bytes={limit}, timeout=20)
outcomes = []
def attempt(run, sql):
    try:
        run(sql)
        outcomes.append("ran")
    except SqlProblem as problem:
        outcomes.append(type(problem).__name__)
for sql in {ATTACKS!r}:
    attempt(lambda s: db._run(s, 20, 10), sql)
for sql in {ATTACKS[:3]!r}:
    attempt(db.execute, sql)
attempt(db.execute, {UNSEEN!r})
attempt(lambda s: db.execute(s, timeout=1), "SELECT count(*) FROM t a, t b, t c")
print(" ".join(outcomes))
print(db.execute("SELECT count(*) FROM t").rows[0][0])
db.close()
own = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, own)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    outcomes, count, peaks = done.stdout.strip().splitlines()
    assert outcomes.split() == ["SqlTooLarge"] * 4 + ["SqlRejected"] * 3 + ["SqlTooLarge", "SqlTimeout"]
    assert count == "3000"  # a killed engine process is replaced on the next statement
    engine_kib, own_kib = map(int, peaks.split())
    assert engine_kib * 1024 + own_kib * 1024 < limit + 512 * MIB, (engine_kib // 1024, own_kib // 1024)


def test_the_parser_check_lets_the_unseen_size_through(duck_path: Path) -> None:
    """UNSEEN above tests the engine's watch, not the parser check."""
    db = open_database(duck_path)
    assert db.check_refusal(UNSEEN) is None
    for sql in ATTACKS[:3]:
        assert isinstance(db.check_refusal(sql), SqlRejected)
    db.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_timeout_kills_the_engine_process_and_the_next_statement_starts_another(duck_path: Path) -> None:
    db = open_database(duck_path, timeout=0.5)
    assert db.tables() == ["t"]
    worker = db._worker  # type: ignore[attr-defined]
    first = worker.pid
    with pytest.raises(SqlTimeout, match=r"after 0\.5 s"):
        db.execute("SELECT count(*) FROM t a, t b, t c, t d")
    assert worker.pid is None and not _alive(first)  # killed and reaped: no zombie left
    assert db.execute("SELECT max(n) FROM t").rows == [(2999,)]
    second = worker.pid
    assert second is not None and second != first
    temp = worker.temp_directory
    assert temp is not None and temp.is_dir()
    db.close()
    assert not _alive(second) and worker.pid is None
    assert not temp.exists()  # the engine process's spill area went with it


def test_an_engine_process_killed_between_statements_is_replaced(duck_path: Path) -> None:
    db = open_database(duck_path)
    assert db.execute("SELECT count(*) FROM t").rows == [(3000,)]
    worker = db._worker  # type: ignore[attr-defined]
    first = worker.pid
    os.kill(first, signal.SIGKILL)
    while Path(f"/proc/{first}/stat").read_text().split(")")[-1].split()[0] != "Z":  # dead, not yet reaped
        time.sleep(0.01)
    assert db.execute("SELECT count(*) FROM t").rows == [(3000,)]
    assert worker.pid != first
    db.close()


def test_statements_share_one_connection_and_a_cut_result_leaves_nothing_behind(duck_path: Path) -> None:
    # Statements run on the engine process's one connection (no connection of their own): a result cut by the row
    # cap is dropped before the next statement, which sees only its own rows; a failed statement leaves no state.
    db = open_database(duck_path, max_rows=10)
    worker = db._worker  # type: ignore[attr-defined]
    cut = db.execute("SELECT n FROM t ORDER BY n")
    assert cut.rows == [(n,) for n in range(10)] and cut.truncated
    pid = worker.pid
    with pytest.raises(Exception, match=r"(?i)binder|not found|does not exist"):
        db.execute("SELECT missing FROM t")
    assert db.execute("SELECT count(*), max(s) FROM t WHERE n < 5").rows == [(5, "x4")]
    assert db.execute("SELECT n FROM t WHERE n >= 2995 ORDER BY n").rows == [(n,) for n in range(2995, 3000)]
    assert worker.pid == pid  # the same engine process throughout
    db.close()


@pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2, reason="needs Linux and 2 CPUs"
)
def test_a_statement_shares_the_callers_cpu_only_while_it_is_short(duck_path: Path) -> None:
    """While a statement is short, the caller's thread and the engine process's threads (DuckDB's workers too) stay on
    one CPU; the caller gets its CPUs back after every statement, and a long statement lets the engine's threads go
    to any."""
    import threading

    everywhere = os.sched_getaffinity(0)
    seen: list[tuple[set[int], int]] = []  # the engine threads' CPUs together, and their CPU time so far (ns)
    with open_database(duck_path, timeout=20) as db:
        db.execute("SELECT 1")
        pid = db._worker.pid
        assert pid is not None

        threads = db._worker._threads
        assert threads[0] == pid and len(threads) > 1  # DuckDB's own threads beside the main one

        def worked() -> int:
            return sum(int(Path(f"/proc/{pid}/task/{t}/schedstat").read_text().split()[0]) for t in threads)

        def watch(stop: threading.Event) -> None:
            while not stop.is_set():
                seen.append((set().union(*(os.sched_getaffinity(t) for t in threads)), worked()))
                time.sleep(0.0005)

        for _ in range(20):
            assert db.execute("SELECT count(*) FROM t").rows == [(3000,)]
            assert os.sched_getaffinity(0) == everywhere
        stop = threading.Event()
        watcher = threading.Thread(target=watch, args=(stop,))
        watcher.start()
        # a statement that runs well past the hold (a cross join counted)
        db.execute("SELECT count(*) FROM range(9000) a, range(9000) b WHERE (a.range * b.range) % 7 = 3")
        stop.set()
        watcher.join()
        assert os.sched_getaffinity(0) == everywhere
        held = next(i for i, (cpus, _) in enumerate(seen) if len(cpus) == 1)  # all held on one CPU at first
        freed = next(i for i in range(held, len(seen)) if seen[i][0] == everywhere)  # then free to go anywhere...
        assert any(work > seen[freed][1] for _, work in seen[freed:])  # ...while the statement still ran
        assert all(os.sched_getaffinity(t) == everywhere for t in threads)


def test_the_memory_watch_reads_seldom_far_below_the_cap_and_often_near_it(duck_path: Path) -> None:
    """The next reading waits as long as the headroom allows at the fastest growth, and POLL_SECONDS near the cap."""
    from biarena.db.engine_process import GROWTH_PER_SECOND, POLL_SECONDS

    with open_database(duck_path, timeout=20, max_memory_bytes=512 * MIB) as db:
        worker = db._worker
        assert worker._until_reading(worker.memory_cap) == POLL_SECONDS
        assert worker._until_reading(worker.memory_cap - MIB) == POLL_SECONDS
        far = worker._until_reading(0)
        assert far == pytest.approx(worker.memory_cap / GROWTH_PER_SECOND) and far > 10 * POLL_SECONDS
