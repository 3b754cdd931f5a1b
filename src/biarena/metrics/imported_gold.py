"""check_imported_gold: an imported benchmark's gold run once, and how many questions' gold fails said in a line
(`biarena import` does it unless --no-gold-check)."""

import sqlite3
from pathlib import Path

from biarena.benchmarks.native import load_benchmark
from biarena.benchmarks.shown import shown
from biarena.db import DatabasePool, SandboxLimits
from biarena.errors import BiarenaError
from biarena.events import EventHandler, Message, ignore
from biarena.scoring.gold_health import GoldHealth, check_gold

QUIET_CHECK = 50
"""Questions whose gold is run without first saying so (more may take a while)."""


def check_imported_gold(out: Path, on_event: EventHandler = ignore) -> GoldHealth | None:
    """Run the benchmark's gold in `out` and report, as a message, how many questions' gold fails to run or is
    undetermined: those are left out of execution accuracy. A check that cannot run says so and returns None
    (the benchmark stays written)."""

    def say(line: str) -> None:
        on_event(Message(shown(line, limit=None)))

    try:
        benchmark = load_benchmark(out)
        pool = DatabasePool(benchmark, limits=SandboxLimits())
        if len(benchmark.questions) > QUIET_CHECK:
            say(f"running the gold of {len(benchmark.questions)} questions (--no-gold-check skips it)")
        try:
            pool.open_all()
            health = check_gold(benchmark, pool)
        finally:
            pool.close()
    except (BiarenaError, OSError, sqlite3.Error) as error:  # the benchmark is written: a failed check keeps it
        say(f"gold not checked ({error}): check it with biarena audit {out}")
        return None
    say(gold_health_line(health, f"biarena audit {out}"))
    return health


def gold_health_line(health: GoldHealth, audit: str) -> str:
    """`gold: ...` in one line: how many questions' gold runs, and the first failing ones with why."""
    with_gold = health.questions - health.without_gold
    if health.healthy:
        return f"gold: every question's gold runs ({with_gold} with gold" + (
            f", {health.without_gold} without)" if health.without_gold else ")"
        )
    examples = (health.failing + health.undetermined)[:3]
    shown_ones = "; ".join(f"{qid}: {why[:80]}" for qid, why in examples)
    return (
        f"gold: {health.usable} of {with_gold} questions' gold runs ({health.problems()}; e.g. "
        f"{shown_ones}); execution accuracy counts only the {health.usable}: see them with {audit}"
    )
