"""Campaign work units per second at 1, 2 and 4 workers, local process pool and Ray side by side, against a
loopback OpenAI-compatible stub answering after 200 ms.

The plan: one small benchmark (4 questions) x text2sql on the stub (no response cache) x 12 seeds x one scorer:
12 cells, 12 units, 48 model calls. Ray's start-up is timed apart (a cluster is started once, not per campaign).
Run: python perf/campaign.py   (a minute or two; Ray's column is left out when Ray is not installed)
"""

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conftest import make_sales_db
from tests.openai_stub import openai_stub
from tests.run_helpers import make_shop

from biarena.campaign import run_campaign

ROOT = Path(__file__).resolve().parents[1]
WORKERS = (1, 2, 4)
SEEDS = 12
QUESTIONS = 4
LATENCY = 0.2


def write_plan(root: Path, url: str) -> Path:
    """The plan over the stub."""
    db = make_sales_db(root / "sales.sqlite")
    make_shop(root, db, QUESTIONS, name="shop")
    plan = root / "plan.yaml"
    plan.write_text(
        "matrix:\n  benchmarks: [shop]\n  systems: [text2sql]\n"
        f"  models: [{{model: 'openai:stub@{url}', options: {{cache: false}}}}]\n"
        f"  seeds: {list(range(SEEDS))}\n  scorers: [execution]\n",
        encoding="utf-8",
    )
    return plan


def timed(plan: Path, out: Path, engine: str, workers: int) -> tuple[float, int]:
    """Seconds a campaign takes and the units it did."""
    started = time.perf_counter()
    summary = run_campaign(plan, out, engine=engine, workers=workers)
    return time.perf_counter() - started, summary.now


def main() -> None:
    """Measure and print the table."""
    os.environ.setdefault("OPENAI_API_KEY", "benchmark")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")])
    try:
        import ray
    except ImportError:
        ray = None
    rows: dict[int, dict[str, str]] = {w: {} for w in WORKERS}
    startup: list[float] = []
    with (
        tempfile.TemporaryDirectory() as work,
        openai_stub(lambda body: "```sql\nSELECT count(*) FROM sales\n```", latency=LATENCY) as (url, state),
    ):
        root = Path(work)
        os.environ["BIARENA_HOME"] = str(root / "home")
        plan = write_plan(root, url)
        for workers in WORKERS:
            seconds, units = timed(plan, root / f"local{workers}", "local", workers)
            rows[workers]["local"] = f"{units / seconds:6.2f} ({seconds:5.1f} s)"
            if ray is not None:
                begun = time.perf_counter()
                ray.init(
                    num_cpus=workers,
                    object_store_memory=100 * 1024 * 1024,
                    include_dashboard=False,
                    configure_logging=False,
                    log_to_driver=False,
                )
                startup.append(time.perf_counter() - begun)
                try:
                    seconds, units = timed(plan, root / f"ray{workers}", "ray", workers)
                finally:
                    ray.shutdown()
                rows[workers]["ray"] = f"{units / seconds:6.2f} ({seconds:5.1f} s)"
        calls = len(state.requests)
    print(f"{SEEDS} units ({QUESTIONS} questions each, {LATENCY * 1000:.0f} ms per model call)")
    print("units per second (wall time):")
    print(f"{'workers':>8}  {'local':>16}  {'ray':>16}")
    for workers in WORKERS:
        print(f"{workers:>8}  {rows[workers]['local']:>16}  {rows[workers].get('ray', 'not installed'):>16}")
    if startup:
        print(f"ray start-up (not counted above): {min(startup):.1f}-{max(startup):.1f} s; stub saw {calls} calls")


if __name__ == "__main__":
    main()
