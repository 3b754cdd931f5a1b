"""The business database simulator's speed.

1. One vertical at scale 10 (millions of rows): biarena's generator (every column drawn, rules applied,
   written to SQLite) against, side by side, a raw `executemany` of the identical rows into an empty copy of
   the same schema in one transaction (rows read back from biarena's output beforehand, so only the insert is
   timed), and the same insert made as biarena's writer makes it (ROWS_PER_INSERT rows a statement), which shows
   what drawing the rows costs beside inserting them. The generator runs as it does by default at this size (a
   writer process inserting while the next chunk is drawn) and with the writer in the drawing process,
   alternating, `--repeat` times each (the fastest counts).
   Prints rows/s for each, the ratio (target: biarena >= 0.8x the raw insert rate), the CPU seconds of the whole
   process tree (the fork server and the writer process included, sampled from /proc) and the peak memory of the
   drawing process and of the largest other process.
2. All ten verticals at scale 1: total generation time, and total verification time.

Run: python perf/synth.py [--vertical food_delivery] [--scale 10] [--repeat 2]
"""

import argparse
import os
import resource
import sqlite3
import tempfile
import time
from pathlib import Path

from process_tree import Descendants

from biarena.synth import generate, verify, vertical_names, vertical_spec
from biarena.synth.writers import ROWS_PER_INSERT


def timed_generation(vertical: str, out: Path, scale: float, writer_process: bool) -> dict[str, float]:
    """Generate once; wall seconds, rows, CPU seconds of the process tree, and the largest other process's peak."""
    out.unlink(missing_ok=True)
    before = resource.getrusage(resource.RUSAGE_SELF)
    with Descendants() as descendants:  # its sampling process starts before and stops after the timed part
        started = time.perf_counter()
        counts = generate(vertical_spec(vertical), out, scale=scale, seed=0, writer_process=writer_process)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_SELF)
    own = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    others = sum(descendants.cpu.values())
    return {
        "wall": wall,
        "rows": sum(counts.values()),
        "cpu": own + others,
        "other_peak": max(descendants.peak_kib.values(), default=0) / 1024,
    }


def raw_insert_seconds(source: Path, target: Path, per: int = 1) -> tuple[int, float]:
    """Copy the schema, then time executemany of every table's rows (held in memory) in one transaction, `per` rows
    a statement (their values laid out flat beforehand, untimed)."""
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
        row = "(" + ",".join("?" * len(rows[0])) + ")"
        whole = len(rows) - len(rows) % per if per > 1 else 0
        flat = [[v for r in rows[i : i + per] for v in r] for i in range(0, whole, per)]
        started = time.perf_counter()
        if flat:
            dst.executemany(f'INSERT INTO "{name}" VALUES {",".join([row] * per)}', flat)
        dst.executemany(f'INSERT INTO "{name}" VALUES {row}', rows[whole:])
        seconds += time.perf_counter() - started
        del flat
        rows_total += len(rows)
        del rows
    started = time.perf_counter()
    dst.execute("COMMIT")
    seconds += time.perf_counter() - started
    src.close()
    dst.close()
    return rows_total, seconds


def load() -> str:
    """The load average over the last minute."""
    return f"{os.getloadavg()[0]:.1f}"


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vertical", default="food_delivery")
    parser.add_argument("--scale", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=2, help="generations with each writer (the fastest counts)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="biarena-synth-bench-") as work:
        out = Path(work) / "big.db"
        best: dict[bool, dict[str, float]] = {}
        for _ in range(args.repeat):
            for writer_process in (True, False):
                figures = timed_generation(args.vertical, out, args.scale, writer_process)
                if writer_process not in best or figures["wall"] < best[writer_process]["wall"]:
                    best[writer_process] = figures
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the drawing process's peak (KiB)
        rows = int(best[True]["rows"])
        started = time.perf_counter()
        checks = verify(out)
        checked = time.perf_counter() - started
        raw_rows, raw = raw_insert_seconds(out, Path(work) / "raw.db")
        # The same insert as biarena's writer makes it, many rows a statement: what the writer itself costs.
        _, raw_many = raw_insert_seconds(out, Path(work) / "raw-many.db", ROWS_PER_INSERT)
        print(f"{args.vertical} at scale {args.scale:g}: {rows:,} rows (fastest of {args.repeat}, load {load()})")
        for writer_process, label in ((True, "writer process"), (False, "one process")):
            f = best[writer_process]
            print(
                f"  biarena, {label + ':':16s}{f['wall']:7.2f} s  {rows / f['wall']:12,.0f} rows/s  "
                f"{(rows / f['wall']) / (raw_rows / raw):.2f}x the raw insert rate (target >= 0.8x)  "
                f"CPU {f['cpu']:.2f} s (all processes)  largest other process {f['other_peak']:,.0f} MiB"
            )
        print(f"  raw executemany:  {raw:7.2f} s  {raw_rows / raw:12,.0f} rows/s (identical rows, already in memory)")
        print(
            f"  the same, {ROWS_PER_INSERT} rows a statement (as biarena inserts): {raw_many:7.2f} s  "
            f"{raw_rows / raw_many:12,.0f} rows/s; biarena's writer process reaches "
            f"{(rows / best[True]['wall']) / (raw_rows / raw_many):.2f}x of it"
        )
        print(f"  peak memory of the drawing process: {peak_mib:,.0f} MiB")
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
