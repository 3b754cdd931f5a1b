"""Sandbox memory: what two memory-bomb statements add to the peak memory of biarena's processes, per engine.

- `json`: three `json_group_array` aggregates (PostgreSQL: `json_agg`) over ROWS rows of 200-character strings
  (SQLite checks its value-length cap only on a finished value).
- `wide`: 1,600 empty-string columns over 100,000 rows (an empty value once counted 0 bytes against the byte cap).

Each statement runs in a fresh process on SQLite, DuckDB and PostgreSQL (a throwaway server on loopback, as the
docs' read-only role), with `--memory` and `--timeout` as the sandbox limits. Printed per run: the outcome, the
seconds it took, and what it added to the peak resident memory of the process (VmHWM, reset just before it runs)
and of its engine processes (their largest peak, less the engine's resident memory before), with their sum; on
PostgreSQL also the largest peak of the server's own processes (their business: see docs/sandbox.md). Run it with
another checkout first on PYTHONPATH to measure that code.

Run: python perf/sandbox_memory.py [--memory 1GiB] [--timeout 30] [--rows 5000000] [--engines sqlite,duckdb,postgres]
"""

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WIDE_COLUMNS = 1600
WIDE_ROWS = 100_000

# Run in a fresh process: open the database, run `SELECT 1`, reset this process's peak, run the statement, and
# print what it added. argv: location, statement, dialect, memory limit, timeout.
_MEASURE = """
import json, os, resource, sys, time
from pathlib import Path
from biarena.db import SqlProblem, open_database

def status(pid, key, text=None):
    for line in (text or Path(f"/proc/{pid}/status").read_text()).splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0

def server_peak():
    # The largest peak of the PostgreSQL server's processes, read while this process's connections are open.
    peak = 0
    for path in Path("/proc").glob("[0-9]*/status"):
        try:
            text = path.read_text()
        except OSError:
            continue
        if text.startswith("Name:\tpostgres"):
            peak = max(peak, status(0, "VmHWM", text))
    return peak

location, sql, dialect, memory, timeout = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
db = open_database(location, max_memory_bytes=memory, timeout=timeout)
db.execute("SELECT 1")
worker = getattr(db, "_worker", None)
engine_before = status(worker.pid, "VmRSS") if worker is not None and worker.pid else 0
own_before = status(os.getpid(), "VmRSS")
Path("/proc/self/clear_refs").write_text("5")
started = time.monotonic()
try:
    result = db.execute(sql, dialect=dialect)
    outcome = f"ran: {result.row_count} rows" + (f", cut by {result.truncated_by}" if result.truncated else "")
except SqlProblem as problem:
    outcome = f"{type(problem).__name__}: {str(problem)[:90]}"
seconds = time.monotonic() - started
own_peak = status(os.getpid(), "VmHWM")
engine_peak = status(worker.pid, "VmHWM") if worker is not None and worker.pid else 0
server = server_peak()
try:
    after = db.execute("SELECT 1").rows == [(1,)]
except SqlProblem as problem:
    after = f"{type(problem).__name__}: {problem}"
db.close()
engine_peak = max(engine_peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
print(json.dumps({
    "outcome": outcome, "seconds": seconds, "next": after,
    "own": own_peak - own_before, "server": server, "engine": max(0, engine_peak - engine_before) if engine_peak else 0,
}))
"""


def statements(rows: int) -> dict[str, dict[str, tuple[str, str]]]:
    """Per engine, each bomb as (text, dialect)."""
    aggregate = ", ".join(f"length(json_group_array(printf('%0200d',n){tail}))" for tail in ("", "||'a'", "||'b'"))
    recursive = f"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n<{rows}) "
    json_sqlite = recursive + f"SELECT {aggregate} FROM r"
    pg_aggregate = ", ".join(
        f"length(json_agg(lpad(n::text, 200, '0'){tail})::text)" for tail in ("", "||'a'", "||'b'")
    )
    columns = ", ".join(f"'' AS c{i}" for i in range(WIDE_COLUMNS))
    wide_recursive = f"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n<{WIDE_ROWS}) "
    return {
        "sqlite": {"json": (json_sqlite, "sqlite"), "wide": (wide_recursive + f"SELECT {columns} FROM r", "sqlite")},
        "duckdb": {
            "json": (json_sqlite, "duckdb"),
            "wide": (f"SELECT {columns} FROM generate_series(1, {WIDE_ROWS})", "duckdb"),
        },
        "postgres": {
            "json": (recursive + f"SELECT {pg_aggregate} FROM r", "postgres"),
            "wide": (f"SELECT {columns} FROM generate_series(1, {WIDE_ROWS})", "postgres"),
        },
    }


def measure(location: str, sql: str, dialect: str, memory: int, timeout: float) -> dict:
    """Run one statement in a fresh process and return what it printed."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, location, sql, dialect, str(memory), str(timeout)],
        capture_output=True,
        text=True,
        timeout=timeout * 4 + 120,
    )
    if done.returncode != 0:
        return {"outcome": f"process failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Run each bomb on each engine and print a table."""
    from biarena.db.limits import parse_size

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory", default="1GiB", help="the sandbox's memory limit")
    parser.add_argument("--timeout", type=float, default=30.0, help="the sandbox's time limit, in seconds")
    parser.add_argument("--rows", type=int, default=5_000_000, help="rows the json bomb aggregates")
    parser.add_argument("--engines", default="sqlite,duckdb,postgres", help="engines to run, comma-separated")
    args = parser.parse_args()
    memory = parse_size(args.memory)
    engines = args.engines.split(",")
    bombs = statements(args.rows)
    mib = 2**20
    print(f"memory limit {memory // mib} MiB, timeout {args.timeout:g} s; bound: limit + 512 MiB added")
    print(f"{'engine':8s} {'bomb':5s} {'own MiB':>8s} {'engine':>7s} {'added':>6s} {'server':>7s} {'s':>6s}  outcome")
    with tempfile.TemporaryDirectory(prefix="sandbox-memory-") as work:
        locations: dict[str, str] = {}
        sqlite_path = Path(work) / "bench.sqlite"
        conn = sqlite3.connect(sqlite_path)
        conn.execute("CREATE TABLE t (n INTEGER)")
        conn.commit()
        conn.close()
        locations["sqlite"] = str(sqlite_path)
        if "duckdb" in engines:
            import duckdb

            duck = duckdb.connect(str(Path(work) / "bench.duckdb"))
            duck.execute("CREATE TABLE t (n INTEGER)")
            duck.close()
            locations["duckdb"] = str(Path(work) / "bench.duckdb")
        server = None
        if "postgres" in engines:
            sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
            from tests.postgres_server import create_database, create_read_only_role, postgres_server

            server = postgres_server()
            base = server.__enter__()
            create_database(base, "bench")
            locations["postgres"] = create_read_only_role(base, "bench")
        try:
            for engine in engines:
                for bomb, (sql, dialect) in bombs[engine].items():
                    started = time.monotonic()
                    out = measure(locations[engine], sql, dialect, memory, args.timeout)
                    took = out.get("seconds", time.monotonic() - started)
                    if "own" not in out:
                        print(f"{engine:8s} {bomb:5s} {'':35s} {took:6.1f}  {out['outcome']}")
                        continue
                    peak = f"{out['server'] // mib:7d}" if engine == "postgres" else f"{'-':>7s}"
                    added = (out["own"] + out["engine"]) // mib
                    after = "" if out["next"] is True else f" (next statement: {out['next']})"
                    print(
                        f"{engine:8s} {bomb:5s} {out['own'] // mib:8d} {out['engine'] // mib:7d} {added:6d} {peak} "
                        f"{took:6.1f}  {out['outcome']}{after}"
                    )
        finally:
            if server is not None:
                server.__exit__(None, None, None)


if __name__ == "__main__":
    main()
