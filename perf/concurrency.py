"""64 questions against a loopback OpenAI-compatible stub with 200 ms latency, at concurrency 1 and 16.

Prints both wall times, the speedup (target >= 12x), and the model calls of a re-run (target 0).
Run: python perf/concurrency.py
"""

import os
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
    os.environ.setdefault("OPENAI_API_KEY", "benchmark")
    benchmark = resolve_benchmark("bis-synth")
    questions = select_questions(benchmark, limit=64)
    with (
        tempfile.TemporaryDirectory() as work,
        openai_stub(lambda body: "```sql\nSELECT count(*) FROM metric_log\n```", latency=0.2) as (url, _),
    ):
        root = Path(work)
        serial, calls_1 = timed_run(url, questions, benchmark, root / "c1.run", 1, root / "cache1")
        parallel, calls_16 = timed_run(url, questions, benchmark, root / "c16.run", 16, root / "cache16")
        rerun, calls_again = timed_run(url, questions, benchmark, root / "again.run", 16, root / "cache16")
    print(f"concurrency 1:  {serial:6.2f} s ({calls_1} calls)")
    print(f"concurrency 16: {parallel:6.2f} s ({calls_16} calls)")
    print(f"speedup: {serial / parallel:.1f}x (target >= 12x)")
    print(f"re-run: {calls_again} model calls in {rerun:.2f} s (target 0)")


if __name__ == "__main__":
    main()
