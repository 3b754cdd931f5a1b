"""Sandbox overhead: the gold run of bis-synth through the hardened sandbox vs the same statements run directly.

The sandbox side is what a gold run does per question: check the statement (SQLite's own authorizer, length cap
and one-statement rule, with the parser's allow-list check where the clock must be anchored or a refusal
explained), anchor its clock, run it under the time, row, byte and temp limits and fetch the rows. The direct side
runs the very text the sandbox ran on a plain read-only sqlite3 connection and fetches every row. Each side runs
several times, alternating, and the fastest pass of each counts. Each sandbox pass starts with no statement kept
from the one before (a gold run checks and rewrites a statement once, and reuses it for the question's other
languages). Times are this process's CPU seconds (both sides run in process), so other work on the machine does
not skew the ratio.

Run: python perf/sandbox_overhead.py [--repeat N]
"""

import argparse
import sqlite3
import time

from biarena.benchmarks import resolve_benchmark
from biarena.db import DatabasePool


def main() -> None:
    """Time both sides and print seconds, statements per second and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="passes of each side (the fastest counts)")
    args = parser.parse_args()
    benchmark = resolve_benchmark("bis-synth")
    pool = DatabasePool(benchmark)
    pool.open_all()
    work = [(q.database, q.gold_sql[0], benchmark.anchor_for(q)) for q in benchmark.questions if q.gold_sql]
    executed = [(name, pool.get(name).execute(sql, now=now).executed_sql) for name, sql, now in work]
    direct = {
        name: sqlite3.connect(f"file:{benchmark.database_location(name)}?mode=ro", uri=True, check_same_thread=False)
        for name in benchmark.databases
    }

    def sandboxed() -> int:
        rows = 0
        for name, sql, now in work:
            rows += pool.get(name).execute(sql, now=now).row_count
        return rows

    def plain() -> int:
        rows = 0
        for name, text in executed:
            rows += len(direct[name].execute(text).fetchall())
        return rows

    best = {"sandbox": float("inf"), "direct": float("inf")}
    counts = {}
    for _ in range(args.repeat):
        for label, run in (("sandbox", sandboxed), ("direct", plain)):
            for name in benchmark.databases:
                pool.get(name).forget_statements()
            started = time.process_time()
            counts[label] = run()
            best[label] = min(best[label], time.process_time() - started)
    assert counts["sandbox"] == counts["direct"], counts
    print(f"bis-synth gold: {len(work)} statements, {counts['direct']} rows, fastest of {args.repeat} passes")
    print(f"{'side':10s} {'CPU s':>9s} {'statements/s':>13s}")
    for label in ("sandbox", "direct"):
        print(f"{label:10s} {best[label]:9.3f} {len(work) / best[label]:13.1f}")
    print(f"sandbox / direct: {best['sandbox'] / best['direct']:.2f}x")
    pool.close()
    for conn in direct.values():
        conn.close()


if __name__ == "__main__":
    main()
