"""What the campaign tests share: two small benchmarks, Python systems that take a while per question (one right,
one wrong), a plan over them, and a campaign folder's canonical files."""

import os
import re
import signal
import time
from pathlib import Path

from tests.conftest import make_sales_db
from tests.run_helpers import make_shop

PAUSE = 0.15
"""Seconds each question takes the Python systems: a cell takes long enough to be killed part-way."""
DIE_MARK = "BIARENA_TEST_DIE_ONCE"
"""An environment variable naming a file: the first system call that finds it missing makes it and kills its
own process (a worker killed under its task)."""


def right(payload: dict) -> dict:
    """The gold SQL of the fixture's question `question N`, after a pause."""
    time.sleep(PAUSE)
    number = int(re.findall(r"\d+", payload["question"])[-1])
    return {"sql": f"SELECT city_id, sum(amount) FROM sales WHERE qty > {number % 5} GROUP BY city_id"}


def wrong(payload: dict) -> dict:
    """SQL that runs and is wrong, after a pause."""
    time.sleep(PAUSE)
    return {"sql": "SELECT count(*) FROM sales"}


def dies_once(payload: dict) -> dict:
    """Kill the process the first time (see DIE_MARK); answer like `wrong` after that."""
    mark = Path(os.environ[DIE_MARK])
    if not mark.exists():
        mark.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return {"sql": "SELECT count(*) FROM sales"}


def make_campaign_plan(root: Path, questions: int = 6, systems: tuple[str, ...] = ("right", "wrong")) -> Path:
    """Two benchmarks over one sales database, and a plan of them x the Python `systems` x two scorers."""
    db = make_sales_db(root / "sales.sqlite")
    make_shop(root, db, questions, name="shop")
    make_shop(root, db, questions, name="mart", ids=[f"m{i}" for i in range(questions)])
    entries = "".join(
        f"    - {{agent: python, name: {name}, options: {{function: 'tests.campaign_helpers:{name}'}}}}\n"
        for name in systems
    )
    plan = root / "plan.yaml"
    plan.write_text(
        "matrix:\n  benchmarks: [shop, mart]\n  systems:\n" + entries + "  scorers: [execution_accuracy, execution]\n",
        encoding="utf-8",
    )
    return plan


def canonical(folder: Path) -> dict[str, bytes]:
    """What a campaign folder holds that must not depend on how its work was shared: its units, its results table
    and the names of its done markers and run files."""
    return {
        "campaign.json": (folder / "campaign.json").read_bytes(),
        "results.csv": (folder / "results.csv").read_bytes(),
        "done": "\n".join(sorted(p.name for p in (folder / "done").iterdir())).encode(),
        "runs": "\n".join(sorted(p.name for p in (folder / "runs").glob("*.sqlite"))).encode(),
    }


def most_at_once(tmp_path: Path, *, seeds: str, **run: object) -> tuple[object, int, int]:
    """Run a text2sql campaign over shop and mart against a loopback model stub that allows one connection
    (`connections: 1`) and counts how many requests it holds at once; returns the campaign's summary, the
    requests the stub saw and the most it held at one time."""
    import threading

    from biarena.campaign import run_campaign
    from tests.openai_stub import openai_stub

    busy = {"now": 0, "most": 0}
    lock = threading.Lock()

    def reply(body: dict) -> str:
        with lock:
            busy["now"] += 1
            busy["most"] = max(busy["most"], busy["now"])
        time.sleep(0.05)
        with lock:
            busy["now"] -= 1
        return "SELECT count(*) FROM sales"

    with openai_stub(reply) as (url, state):
        plan = tmp_path / "model_plan.yaml"
        plan.write_text(
            "matrix:\n  benchmarks: [shop, mart]\n  systems: [text2sql]\n"
            f"  models: [{{model: 'openai:stub@{url}', options: {{connections: 1, cache: false, retries: 0}}}}]\n"
            f"{seeds}  scorers: [execution]\n"
        )
        summary = run_campaign(plan, tmp_path / "out", **run)  # type: ignore[arg-type]
    return summary, len(state.requests), busy["most"]
