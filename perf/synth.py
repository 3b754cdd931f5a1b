"""The business database simulator's speed.

1. One vertical at scale 10 (millions of rows): biarena's generator (every column drawn, rules applied,
   written to SQLite) against, side by side, a raw `executemany` of the identical rows into an empty copy of
   the same schema in one transaction (rows read back from biarena's output beforehand, so only the insert is
   timed). Prints rows/s for both, the ratio (target: biarena >= 0.8x the raw insert rate) and the generation's peak
   memory.
2. All ten verticals at scale 1: total generation time, and total verification time.

Run: python perf/synth.py [--vertical food_delivery] [--scale 10]
"""

import argparse
import resource
import sqlite3
import tempfile
import time
from pathlib import Path

from biarena.synth import generate, verify, vertical_names, vertical_spec


def raw_insert_seconds(source: Path, target: Path) -> tuple[int, float]:
    """Copy the schema, then time executemany of every table's rows (held in memory) in one transaction."""
    src = sqlite3.connect(source)
    dst = sqlite3.connect(target, isolation_level=None)
    dst.execute("PRAGMA journal_mode = OFF")
    dst.execute("PRAGMA synchronous = OFF")
    tables = src.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY rowid").fetchall()
    for _, sql in tables:
        dst.execute(sql)
    rows_total, seconds = 0, 0.0
    dst.execute("BEGIN")
    for name, _ in tables:
        rows = src.execute(f'SELECT * FROM "{name}"').fetchall()
        if not rows:
            continue
        marks = ",".join("?" * len(rows[0]))
        started = time.perf_counter()
        dst.executemany(f'INSERT INTO "{name}" VALUES ({marks})', rows)
        seconds += time.perf_counter() - started
        rows_total += len(rows)
        del rows
    started = time.perf_counter()
    dst.execute("COMMIT")
    seconds += time.perf_counter() - started
    src.close()
    dst.close()
    return rows_total, seconds


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vertical", default="food_delivery")
    parser.add_argument("--scale", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="biarena-synth-bench-") as work:
        out = Path(work) / "big.db"
        started = time.perf_counter()
        counts = generate(vertical_spec(args.vertical), out, scale=args.scale, seed=0)
        ours = time.perf_counter() - started
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the generation's peak (Linux: KiB)
        rows = sum(counts.values())
        started = time.perf_counter()
        checks = verify(out)
        checked = time.perf_counter() - started
        raw_rows, raw = raw_insert_seconds(out, Path(work) / "raw.db")
        print(f"{args.vertical} at scale {args.scale:g}: {rows:,} rows in {len(counts)} tables")
        print(f"  biarena generate: {ours:7.2f} s  {rows / ours:12,.0f} rows/s  (peak memory {peak_mib:,.0f} MiB)")
        print(f"  raw executemany:  {raw:7.2f} s  {raw_rows / raw:12,.0f} rows/s (identical rows, already in memory)")
        print(f"  ratio: {(rows / ours) / (raw_rows / raw):.2f}x the raw insert rate (target >= 0.8x)")
        failed = sum(not c.ok for c in checks)
        print(f"  verify: {checked:.2f} s, {len(checks) - failed} of {len(checks)} checks hold")

        total_generate = total_verify = 0.0
        total_rows = 0
        for name in vertical_names():
            path = Path(work) / f"{name}.db"
            started = time.perf_counter()
            total_rows += sum(generate(vertical_spec(name), path, scale=1.0, seed=0).values())
            total_generate += time.perf_counter() - started
            started = time.perf_counter()
            assert all(c.ok for c in verify(path)), name
            total_verify += time.perf_counter() - started
        print(f"all {len(vertical_names())} verticals at scale 1: {total_rows:,} rows")
        print(f"  generate: {total_generate:.2f} s in total; verify: {total_verify:.2f} s in total")


if __name__ == "__main__":
    main()
