"""Sandbox overhead: the gold run of bis-synth through the hardened sandbox vs the same statements run directly.

The sandbox side is what a gold run does per question: check the statement (SQLite's own authorizer, length cap
and one-statement rule, with the parser's allow-list check where the clock must be anchored or a refusal
explained), anchor its clock, run it under the time, row, byte and temp limits and fetch the rows. The direct side
runs the very text the sandbox ran on a plain read-only connection and fetches every row. Each side runs
several times, alternating, and the fastest pass of each counts; the ratio of the two sides within each pass is
printed too (their median and range), since the machine's speed can drift between passes. Each sandbox pass starts
with no statement kept from the one before (a gold run checks and rewrites a statement once, and reuses it for the
question's other languages). Last, the sandbox's two parts are timed apart: the check and the engine calls.

With `--engine duckdb` bis-synth's databases are copied to DuckDB files first and the gold, written for SQLite, is
transpiled; the same statements are then timed again as written in DuckDB's own dialect (what a DuckDB user's gold
is), so translating from SQLite shows apart from the sandbox's own cost. On either engine the sandbox runs each
statement in an engine process of its own, so each side is timed twice: CPU seconds of this process and of the
engine processes it started (read from /proc, which sees a long-lived child that getrusage would not), and wall-
clock seconds. Both ratios are printed; the cost per statement is the difference of the two sides.

Run: python perf/sandbox_overhead.py [--engine sqlite|duckdb] [--repeat N]
"""

import argparse
import math
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from biarena.benchmarks import resolve_benchmark
from biarena.db import DatabasePool, SqlProblem


def copy_to_duckdb(source: str, target: Path) -> None:
    """Copy every table of the SQLite file `source` into a new DuckDB file `target` (same DDL, same rows)."""
    import duckdb

    reader = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    writer = duckdb.connect(str(target))
    for name, ddl in reader.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall():
        writer.execute(ddl)
        rows = reader.execute(f'SELECT * FROM "{name}"').fetchall()
        # Many rows per statement: DuckDB's executemany pays a statement per row.
        for start in range(0, len(rows), 500):
            batch = rows[start : start + 500]
            values = ", ".join(["(" + ", ".join("?" * len(batch[0])) + ")"] * len(batch))
            writer.execute(f'INSERT INTO "{name}" VALUES {values}', [v for row in batch for v in row])
    writer.close()
    reader.close()


def _thread_cpu(task: Path) -> float:
    """One thread's CPU seconds: nanoseconds on the CPU from schedstat, else clock ticks from stat."""
    try:
        return int((task / "schedstat").read_text().split()[0]) / 1e9
    except (OSError, IndexError, ValueError):
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu() -> float:
    """CPU seconds of this process's live children (the engine processes), every thread counted (Linux; 0 elsewhere)."""
    total = 0.0
    for listing in Path("/proc/self/task").glob("*/children"):
        for pid in listing.read_text().split():
            for task in Path(f"/proc/{pid}/task").glob("[0-9]*"):
                try:
                    total += _thread_cpu(task)
                except OSError:
                    continue  # a thread that ended meanwhile
    return total


def tree_cpu() -> float:
    """CPU seconds of this process and of its engine processes."""
    return time.process_time() + children_cpu()


def round_trip(db: Any, conn: Any, count: int = 2000) -> None:
    """Print what running a trivial statement costs through the sandbox's engine call and on a plain cursor."""
    timings = {}
    for label, run in (
        ("sandbox", lambda: db._run("SELECT 42", math.inf, 10)),
        ("direct", lambda: conn.execute("SELECT 42").fetchall()),
    ):
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            for _ in range(count):
                run()
            best = min(best, time.perf_counter() - started)
        timings[label] = best / count * 1000
    print(
        f"SELECT 42, engine call only (no check): sandbox {timings['sandbox']:.3f} ms, "
        f"direct {timings['direct']:.3f} ms per statement"
    )


def compare(title: str, items: list[tuple], pool: Any, direct: dict[str, Any], repeat: int) -> None:
    """Time the sandbox on `items` (database, statement, its dialect, clock, the text the engine ran) against the
    same texts on plain connections; print both sides and the ratios."""

    def sandboxed() -> int:
        rows = 0
        for name, sql, dialect, now, _ in items:
            rows += pool.get(name).execute(sql, dialect=dialect, now=now).row_count
        return rows

    def plain() -> int:
        rows = 0
        for name, _, _, _, text in items:
            rows += len(direct[name].execute(text).fetchall())
        return rows

    clocks: dict[str, Callable[[], float]] = {"CPU": tree_cpu, "wall": time.perf_counter}
    best = {(side, clock): float("inf") for side in ("sandbox", "direct") for clock in clocks}
    paired: dict[str, list[float]] = {clock: [] for clock in clocks}
    counts = {}
    for _ in range(repeat):
        took = {}
        for label, run in (("sandbox", sandboxed), ("direct", plain)):
            for database in pool.benchmark.databases:
                pool.get(database).forget_statements()
            started = {clock: read() for clock, read in clocks.items()}
            counts[label] = run()
            for clock, read in clocks.items():
                took[label, clock] = read() - started[clock]
                best[label, clock] = min(best[label, clock], took[label, clock])
        for clock in clocks:
            paired[clock].append(took["sandbox", clock] / took["direct", clock])
    assert counts["sandbox"] == counts["direct"], counts
    print(
        f"gold {title}: {len(items)} statements, {counts['direct']} rows, fastest of {repeat} passes "
        "(CPU: this process and its engine processes)"
    )
    print(f"{'side':10s} {'CPU s':>9s} {'wall s':>9s} {'statements/s':>13s}")
    for label in ("sandbox", "direct"):
        cpu, wall = best[label, "CPU"], best[label, "wall"]
        print(f"{label:10s} {cpu:9.3f} {wall:9.3f} {len(items) / wall:13.1f}")
    for clock in clocks:
        ratio = best["sandbox", clock] / best["direct", clock]
        extra = (best["sandbox", clock] - best["direct", clock]) / len(items) * 1000
        print(
            f"sandbox / direct, {clock}: {ratio:.2f}x ({extra:.2f} ms per statement); the two sides of one pass: "
            f"median {statistics.median(paired[clock]):.2f}x, {min(paired[clock]):.2f}-{max(paired[clock]):.2f}x"
        )
    parts(items, pool, repeat)
    resume_cost(items, direct, repeat)


def parts(items: list[tuple], pool: Any, repeat: int) -> None:
    """Print the sandbox's two parts timed apart, each over all of `items` in a row: the check and rewrite (this
    process), and the engine calls on the checked text (the round trip and the engine process's run and fetch).
    Alternating them, as a run does, costs more than the sum: each resumes after waiting for the other."""
    databases = {name: pool.get(name) for name in pool.benchmark.databases}
    check = engine = float("inf")
    for _ in range(repeat):
        for database in databases.values():
            database.forget_statements()
        started = tree_cpu()
        prepared = [databases[name].prepare_statement(sql, dialect, now) for name, sql, dialect, now, _ in items]
        check = min(check, tree_cpu() - started)
        started = tree_cpu()
        for (name, sql, _, _, _), statement in zip(items, prepared, strict=True):
            databases[name].execute(sql, prepared=statement)
        engine = min(engine, tree_cpu() - started)
    print(
        f"parts apart, CPU per statement: check and rewrite {check / len(items) * 1000:.2f} ms, "
        f"engine calls on the checked text {engine / len(items) * 1000:.2f} ms"
    )


def resume_cost(items: list[tuple], direct: dict[str, Any], repeat: int) -> None:
    """Print the direct side's CPU per statement with a pause before each: what resuming after a wait costs."""
    pauses = (0.0, 0.0005, 0.002)
    paused = dict.fromkeys(pauses, float("inf"))
    for _ in range(repeat):
        for pause in pauses:
            started = time.process_time()  # the direct side runs in this process alone; a sleep takes no CPU
            for name, _, _, _, text in items:
                if pause:
                    time.sleep(pause)
                direct[name].execute(text).fetchall()
            paused[pause] = min(paused[pause], time.process_time() - started)
    print(
        "direct, CPU per statement after a pause of "
        + ", ".join(f"{pause * 1000:g} ms: {paused[pause] / len(items) * 1000:.2f} ms" for pause in pauses)
    )


def main() -> None:
    """Time both sides and print seconds, statements per second and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="passes of each side (the fastest counts)")
    parser.add_argument("--engine", choices=("sqlite", "duckdb"), default="sqlite", help="the engine both sides use")
    args = parser.parse_args()
    benchmark = resolve_benchmark("bis-synth")
    with tempfile.TemporaryDirectory(prefix="sandbox-overhead-") as work:
        if args.engine == "duckdb":
            import duckdb

            # The sandbox and the direct side read separate copies: DuckDB allows one configuration per file
            # in a process.
            overrides, copies = {}, {}
            for name in benchmark.databases:
                overrides[name], copies[name] = (str(Path(work) / f"{name}-{side}.duckdb") for side in ("a", "b"))
                copy_to_duckdb(benchmark.database_location(name), Path(overrides[name]))
                shutil.copyfile(overrides[name], copies[name])
            pool = DatabasePool(benchmark, overrides=overrides)
            direct: dict[str, Any] = {name: duckdb.connect(path, read_only=True) for name, path in copies.items()}
        else:
            pool = DatabasePool(benchmark)
            direct = {
                name: sqlite3.connect(
                    f"file:{benchmark.database_location(name)}?mode=ro", uri=True, check_same_thread=False
                )
                for name in benchmark.databases
            }
        pool.open_all()
        work_items = []
        for q in benchmark.questions:
            if not q.gold_sql:
                continue
            name, sql, now = q.database, q.gold_sql[0], benchmark.anchor_for(q)
            db = pool.get(name)
            try:
                executed = db.execute(sql, dialect=pool.source_dialect(name), now=now).executed_sql
            except SqlProblem:
                continue  # gold written for SQLite that this engine does not run
            work_items.append((name, sql, now, executed))

        sides = [
            (
                "as written (SQLite)",
                [(name, sql, pool.source_dialect(name), now, text) for name, sql, now, text in work_items],
            )
        ]
        if args.engine != "sqlite":
            # What a user of this engine runs: statements in its own dialect, nothing to translate.
            native = [(name, text, args.engine, now, text) for name, _, now, text in work_items]
            sides.append((f"in {args.engine}'s own dialect", native))
        for title, items in sides:
            compare(title, items, pool, direct, args.repeat)
        first = next(iter(benchmark.databases))
        round_trip(pool.get(first), direct[first])
        pool.close()
        for conn in direct.values():
            conn.close()


if __name__ == "__main__":
    main()
