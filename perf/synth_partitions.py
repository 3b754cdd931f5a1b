"""The simulator's partitioned Parquet output: speed with 1 and 2 workers, and peak memory.

1. One vertical (food_delivery at scale 10 by default: 4.0M rows, as the simulator's other figure) written as
   `--partitions P` with 1 and 2 workers (and Ray with `--ray`), alternating, the fastest of `--repeat` runs of
   each: rows/s, CPU seconds of all processes (the work split and the cost of starting workers), the peak
   resident memory of the main process and of the largest other process (a worker; with Ray, also Ray's own
   processes), and whether the parts are byte-identical across runs. Wall time shows a speed-up only when the
   workers have idle cores. Beside them, the machine's own ceiling: two 1-worker runs at once, in two processes
   that share nothing, and their rows/s together against one run's (two cores that slow each other down, as the
   cores of a virtual machine do, cap any 2-worker figure there).
2. Memory at a fixed partition size: the same vertical at half, once and twice `scale` with as many times P
   partitions, one worker, chunks of `--memory-chunk` rows (small, so that the large tables span many chunks at
   every scale); the peak of the process that draws. The data drawn is bounded by a chunk; what still grows with
   the business is what depends on parents (kept key columns, parent weights and time indexes).

Each run is a fresh process (its own peak memory), with a time limit; a process of its own samples the run's
processes (a sampling thread would make the run start its workers from a fork server, which `synth` does not).
Run: python perf/synth_partitions.py [--vertical food_delivery] [--scale 10] [--partitions 8] [--repeat 2] [--ray]
"""

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from process_tree import Descendants


def one_run(vertical: str, scale: float, partitions: int, workers: int, engine: str, chunk: int, out: Path) -> dict:
    """Generate once in this process; return rows, seconds, peak memory (MiB) and a digest of the parts."""
    from biarena.synth import generate, vertical_spec

    at = float(os.environ.get("SYNTH_START_AT", "0"))  # two runs at once start together, after their imports
    time.sleep(max(0.0, at - time.time()))
    with Descendants() as descendants:  # its sampling process starts before and stops after the timed part
        started = time.perf_counter()
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
        me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    digest = hashlib.sha256()
    for file in sorted(out.rglob("*.parquet")):
        digest.update(str(file.relative_to(out)).encode() + file.read_bytes())
    return {
        "rows": sum(counts.values()),
        "seconds": seconds,
        "cpu": me.ru_utime + me.ru_stime + sum(descendants.cpu.values()),
        "main_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "worker_mib": max([children.ru_maxrss, *descendants.peak_kib.values()]) / 1024,  # reaped, or seen in /proc
        "files": sum(1 for _ in out.rglob("part-*.parquet")),
        "digest": digest.hexdigest()[:16],
    }


def _command(
    vertical: str, scale: float, partitions: int, workers: int, engine: str, work: Path, chunk: int, tag: str = ""
) -> list[str]:
    out = work / f"{vertical}-{scale:g}-{partitions}-{workers}-{engine}-{chunk}{tag}"
    if out.exists():
        shutil.rmtree(out)
    run = [vertical, str(scale), str(partitions), str(workers), engine, str(chunk), str(out)]
    return [sys.executable, __file__, "--one", *run]


def measured(
    vertical: str, scale: float, partitions: int, workers: int, engine: str, work: Path, chunk: int = 100_000
) -> dict:
    """`one_run` in a fresh process (at most 30 minutes)."""
    args = _command(vertical, scale, partitions, workers, engine, work, chunk)
    done = subprocess.run(args, capture_output=True, text=True, timeout=1800, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def two_at_once(vertical: str, scale: float, partitions: int, work: Path) -> tuple[int, float]:
    """Two 1-worker runs in separate processes, started together once both have imported what they need; their
    rows together and the longer of their times."""
    env = {**os.environ, "SYNTH_START_AT": str(time.time() + 5)}
    runs = [
        subprocess.Popen(
            _command(vertical, scale, partitions, 1, "local", work, 100_000, f"-twin{i}"),
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(2)
    ]
    outputs = [run.communicate(timeout=1800)[0] for run in runs]
    if any(run.returncode for run in runs):
        raise SystemExit("a 1-worker run failed")
    results = [json.loads(out.strip().splitlines()[-1]) for out in outputs]
    return sum(r["rows"] for r in results), max(r["seconds"] for r in results)


def main() -> None:
    """Measure and print."""
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        vertical, scale, partitions, workers, engine, chunk, out = sys.argv[2:9]
        result = one_run(vertical, float(scale), int(partitions), int(workers), engine, int(chunk), Path(out))
        print(json.dumps(result))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vertical", default="food_delivery")
    parser.add_argument("--scale", type=float, default=10.0)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=2, help="Runs of each setting (the fastest counts).")
    parser.add_argument("--ray", action="store_true", help="Also run on a local Ray instance with 2 workers.")
    parser.add_argument("--memory-chunk", type=int, default=20_000, help="Chunk rows in the memory runs.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="biarena-synth-parts-") as folder:
        work = Path(folder)
        print(f"{args.vertical} at scale {args.scale:g}, {args.partitions} partitions")
        runs = [("local", 1), ("local", 2)] + ([("ray", 2)] if args.ray else [])
        digests, best = set(), {}
        for _ in range(args.repeat):
            for engine, workers in runs:
                r = measured(args.vertical, args.scale, args.partitions, workers, engine, work)
                digests.add(r["digest"])
                if (engine, workers) not in best or r["seconds"] < best[engine, workers]["seconds"]:
                    best[engine, workers] = r
            rows, seconds = two_at_once(args.vertical, args.scale, args.partitions, work)
            if "twins" not in best or seconds < best["twins"][1]:
                best["twins"] = (rows, seconds)
        one = best["local", 1]["rows"] / best["local", 1]["seconds"]
        for engine, workers in runs:
            r = best[engine, workers]
            rate = r["rows"] / r["seconds"]
            print(
                f"  {engine:5} {workers} worker(s): {r['rows']:,} rows in {r['seconds']:6.1f} s "
                f"{rate:10,.0f} rows/s ({r['cpu']:5.1f} CPU s); {r['files']} part files; "
                f"peak RSS main {r['main_mib']:6.0f} MiB, largest worker {r['worker_mib']:6.0f} MiB; "
                f"{rate / one:.2f}x 1 worker"
            )
        print(f"  parts identical across runs: {len(digests) == 1}")
        rows, seconds = best["twins"]
        print(
            f"  the machine's ceiling: two 1-worker runs at once, {rows:,} rows in {seconds:.1f} s, "
            f"{rows / seconds:,.0f} rows/s: {rows / seconds / one:.2f}x one run"
        )
        print(f"memory at a fixed partition size (1 worker, chunks of {args.memory_chunk:,} rows):")
        for factor in (0.5, 1, 2):
            scale, partitions = args.scale * factor, max(1, round(args.partitions * factor))
            r = measured(args.vertical, scale, partitions, 1, "local", work, args.memory_chunk)
            print(f"  scale {scale:g}, {partitions} partitions: {r['rows']:,} rows, peak RSS {r['main_mib']:6.0f} MiB")


if __name__ == "__main__":
    main()
