"""bis-synth: a built-in BIS-style benchmark built by code (no LLM), deterministic for a seed."""

import tempfile
from importlib import resources
from pathlib import Path

from biarena.benchmarks import save_benchmark
from biarena.db import open_database
from biarena.generate.bis_synth.data import ANCHOR, build_ads, build_ops
from biarena.generate.factory import generate_questions
from biarena.generate.roles import load_roles
from biarena.records import Benchmark, DatabaseRef

KNOWLEDGE = """\
bis-synth holds two databases.

ads: operations of advertising tasks. `task` lists the tasks (task_id, advertiser, industry, objective,
status code, budget). `metric_log` holds the real hourly metrics of each task and `metric_log_predicted`
the predicted ones, with the same column names; in both, the column `task` is the task id (it is called
`task_id` elsewhere). CTR is the click-through rate (clicks / impressions) and CVR the conversion rate
(conversions / clicks). `pre_ranking_filter_log` counts requests filtered before ranking, by filter key.
`metadata_mapping` explains codes: filter keys, status codes and abbreviations, in English and Chinese.

ops: system operations. `cpu` and `memory` hold hourly utilisation (0-1) per host ip; `microservice`
maps each ip to its microservice.

Timestamps are text 'YYYY-MM-DD HH:MM:SS', hourly, for the 16 days up to now. A week starts on Monday.
'Recently' means the last 3 days. Percentages are on a 0-100 scale.
"""


def make_benchmark(work: Path, *, seed: int = 0, per_category: tuple[int, int] = (8, 5)) -> Benchmark:
    """Write bis-synth's two databases into `work` and return the benchmark over them."""
    build_ads(work / "ads.sqlite", seed)
    build_ops(work / "ops.sqlite", seed)
    roles_dir = resources.files("biarena.generate.bis_synth")
    questions = []
    for name, count in zip(("ads", "ops"), per_category, strict=True):
        roles = load_roles(Path(str(roles_dir.joinpath(f"{name}.roles.yaml"))))
        with open_database(work / f"{name}.sqlite") as db:
            questions += generate_questions(db, roles, per_category=count, seed=seed, now=ANCHOR)
    return Benchmark(
        name="bis-synth",
        description="A BIS-style NL2SQL benchmark built by code: 9 BIS categories plus language, in English and "
        "Chinese, over ad-task and system operations data anchored at 2023-01-17 20:20:15.",
        knowledge=KNOWLEDGE,
        now=ANCHOR,
        source_format="bis-synth",
        databases={
            "ads": DatabaseRef(path=str(work / "ads.sqlite"), description="Ad-task operations."),
            "ops": DatabaseRef(path=str(work / "ops.sqlite"), description="System operations."),
        },
        questions=questions,
    )


def build(target: Path, *, seed: int = 0) -> Benchmark:
    """Build bis-synth as a native benchmark directory at `target` (which must be empty or absent)."""
    with tempfile.TemporaryDirectory(prefix="bis-synth-") as work:
        benchmark = make_benchmark(Path(work), seed=seed)
        save_benchmark(benchmark, target, overwrite=target.exists() and not any(target.iterdir()))
    return benchmark


__all__ = ["ANCHOR", "KNOWLEDGE", "build", "make_benchmark"]
