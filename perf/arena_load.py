"""50 annotators x 20 votes at once against `biarena arena serve` (real uvicorn on loopback).

Prints the votes per second over the whole run and the median and 95th-percentile latency of a vote (the POST
that stores it), and checks that every vote was stored once.
Run: python perf/arena_load.py [ANNOTATORS] [VOTES]
"""

import asyncio
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.arena_helpers import drive_annotators, invite, make_arena_runs, served_arena
from tests.conftest import make_sales_db


def main() -> None:
    """Measure and print."""
    annotators = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    votes = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        fixture = make_arena_runs(root, make_sales_db(root / "sales.sqlite"), max(10, votes // 3 + 1))
        db = root / "arena.sqlite"
        tokens = [invite(db, f"annotator {i}") for i in range(annotators)]
        with served_arena(fixture.runs, db) as base:
            result = asyncio.run(drive_annotators(base, tokens, votes))
        with sqlite3.connect(db) as conn:
            stored = conn.execute("SELECT count(*) FROM votes").fetchone()[0]
    accepted = sum(result.voted.values())
    latencies = sorted(result.vote_seconds)
    p95 = statistics.quantiles(latencies, n=20)[18]
    print(f"annotators: {annotators}, votes each: {votes}")
    print(f"votes stored: {stored} (accepted {accepted}, expected {annotators * votes})")
    print(f"server errors (5xx): {sum(1 for s in result.statuses if s >= 500)}")
    print(f"wall time: {result.seconds:.2f} s (sign-in, page and vote for every annotator)")
    print(f"votes/s: {accepted / result.seconds:.1f}")
    print(f"vote latency p50: {statistics.median(latencies) * 1000:.1f} ms, p95: {p95 * 1000:.1f} ms")


if __name__ == "__main__":
    main()
