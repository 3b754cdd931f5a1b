"""The simulator's partitioned Parquet output: speed with 1 and 2 workers, and peak memory.

1. One vertical at a mid-size scale written as `--partitions P` with 1 and 2 worker processes (and Ray with
   `--ray`): rows/s, CPU seconds of all processes (the work split and the cost of starting workers), the peak
   resident memory of the main process and of the largest other process (a worker; with Ray, also Ray's own
   processes), and whether the parts are byte-identical across runs. Wall time shows a speed-up only when the
   workers have idle cores.
2. Memory at a fixed partition size: the same vertical at half, once and twice `scale` with as many times P
   partitions, one worker, chunks of `--memory-chunk` rows (small, so that the large tables span many chunks at
   every scale); the peak of the process that draws. The data drawn is bounded by a chunk; what still grows with
   the business is what depends on parents (kept key columns, parent weights and time indexes).

Each run is a fresh process (its own peak memory), with a time limit.
Run: python perf/synth_partitions.py [--vertical food_delivery] [--scale 3] [--partitions 8] [--ray]
"""

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from process_tree import Descendants


def one_run(vertical: str, scale: float, partitions: int, workers: int, engine: str, chunk: int, out: Path) -> dict:
    """Generate once in this process; return rows, seconds, peak memory (MiB) and a digest of the parts."""
    from biarena.synth import generate, vertical_spec

    started = time.perf_counter()
    with Descendants() as descendants:
        counts = generate(
            vertical_spec(vertical),
            out,
            scale=scale,
            seed=0,
            partitions=partitions,
            workers=workers,
            engine=engine,
            chunk=chunk,
        )
    seconds = time.perf_counter() - started
    digest = hashlib.sha256()
    for file in sorted(out.rglob("*.parquet")):
        digest.update(str(file.relative_to(out)).encode() + file.read_bytes())
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "rows": sum(counts.values()),
        "seconds": seconds,
        "cpu": me.ru_utime + me.ru_stime + sum(descendants.cpu.values()),
        "main_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "worker_mib": max([children.ru_maxrss, *descendants.peak_kib.values()]) / 1024,
        "files": sum(1 for _ in out.rglob("part-*.parquet")),
        "digest": digest.hexdigest()[:16],
    }


def measured(
    vertical: str, scale: float, partitions: int, workers: int, engine: str, work: Path, chunk: int = 100_000
) -> dict:
    """`one_run` in a fresh process (at most 30 minutes)."""
    out = work / f"{vertical}-{scale:g}-{partitions}-{workers}-{engine}-{chunk}"
    run = [vertical, str(scale), str(partitions), str(workers), engine, str(chunk), str(out)]
    args = [sys.executable, __file__, "--one", *run]
    done = subprocess.run(args, capture_output=True, text=True, timeout=1800, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Measure and print."""
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        vertical, scale, partitions, workers, engine, chunk, out = sys.argv[2:9]
        result = one_run(vertical, float(scale), int(partitions), int(workers), engine, int(chunk), Path(out))
        print(json.dumps(result))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vertical", default="food_delivery")
    parser.add_argument("--scale", type=float, default=3.0)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--ray", action="store_true", help="Also run on a local Ray instance with 2 workers.")
    parser.add_argument("--memory-chunk", type=int, default=20_000, help="Chunk rows in the memory runs.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="biarena-synth-parts-") as folder:
        work = Path(folder)
        print(f"{args.vertical} at scale {args.scale:g}, {args.partitions} partitions")
        runs = [("local", 1), ("local", 2)] + ([("ray", 2)] if args.ray else [])
        digests = set()
        for engine, workers in runs:
            r = measured(args.vertical, args.scale, args.partitions, workers, engine, work)
            digests.add(r["digest"])
            print(
                f"  {engine:5} {workers} worker(s): {r['rows']:,} rows in {r['seconds']:6.1f} s "
                f"{r['rows'] / r['seconds']:10,.0f} rows/s ({r['cpu']:5.1f} CPU s); {r['files']} part files; "
                f"peak RSS main {r['main_mib']:6.0f} MiB, largest worker {r['worker_mib']:6.0f} MiB"
            )
        print(f"  parts identical across runs: {len(digests) == 1}")
        print(f"memory at a fixed partition size (1 worker, chunks of {args.memory_chunk:,} rows):")
        for factor in (0.5, 1, 2):
            scale, partitions = args.scale * factor, max(1, round(args.partitions * factor))
            r = measured(args.vertical, scale, partitions, 1, "local", work, args.memory_chunk)
            print(f"  scale {scale:g}, {partitions} partitions: {r['rows']:,} rows, peak RSS {r['main_mib']:6.0f} MiB")


if __name__ == "__main__":
    main()
