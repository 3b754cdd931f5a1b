"""64 questions against a loopback OpenAI-compatible stub with 200 ms latency, at concurrency 1 and 16.

Each round runs concurrency 1, concurrency 16, and concurrency 16 again answered from the response cache (the
runner's own cost, 0 model calls). Prints every round with the load average, then the median and lowest speed-up
(target: median >= 14x over 5 rounds, none under 13x; 16x is the limit).
Run: python perf/concurrency.py [ROUNDS]
"""

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.openai_stub import openai_stub

from biarena.benchmarks import resolve_benchmark
from biarena.db import DatabasePool
from biarena.runner import RunStore, make_spec, open_run, run_benchmark, select_questions
from biarena.runner.build_system import build_system


def timed_run(url: str, questions: list, benchmark, path: Path, concurrency: int, cache: Path) -> tuple[float, int]:
    """Run text2sql over the questions; return seconds and model calls made."""
    os.environ["BIARENA_HOME"] = str(cache)
    system = build_system("text2sql", model=f"openai:stub@{url}", concurrency=concurrency)
    pool = DatabasePool(benchmark)
    with RunStore(path, create=True) as store:
        open_run(store, make_spec("bis-synth", benchmark, system, questions), questions)
        started = time.perf_counter()
        summary = run_benchmark(benchmark, system, store, pool, questions, concurrency=concurrency)
        seconds = time.perf_counter() - started
    pool.close()
    return seconds, summary.usage.calls


def main() -> None:
    """Measure and print."""
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    os.environ.setdefault("OPENAI_API_KEY", "benchmark")
    benchmark = resolve_benchmark("bis-synth")
    questions = select_questions(benchmark, limit=64)
    ratios, reruns = [], []
    with (
        tempfile.TemporaryDirectory() as work,
        openai_stub(lambda body: "```sql\nSELECT count(*) FROM metric_log\n```", latency=0.2) as (url, _),
    ):
        root = Path(work)
        for n in range(rounds):
            load = os.getloadavg()[0]
            serial, calls_1 = timed_run(url, questions, benchmark, root / f"c1-{n}.run", 1, root / f"cache1-{n}")
            parallel, calls_16 = timed_run(url, questions, benchmark, root / f"c16-{n}.run", 16, root / f"cache-{n}")
            rerun, again = timed_run(url, questions, benchmark, root / f"again-{n}.run", 16, root / f"cache-{n}")
            ratios.append(serial / parallel)
            reruns.append(rerun)
            print(
                f"round {n + 1} (load {load:.2f}): concurrency 1 {serial:.2f} s ({calls_1} calls), "
                f"concurrency 16 {parallel:.2f} s ({calls_16} calls), speed-up {serial / parallel:.1f}x; "
                f"re-run {rerun:.2f} s ({again} model calls)",
                flush=True,
            )
    print(
        f"speed-up: median {statistics.median(ratios):.1f}x, lowest {min(ratios):.1f}x "
        f"(target: median >= 14x, none under 13x); re-run from the cache: median {statistics.median(reruns):.2f} s"
    )


if __name__ == "__main__":
    main()
