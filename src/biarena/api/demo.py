"""demo: the main job on small defaults (build, run, score, report), as `biarena demo`."""

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biarena.api.messages import print_messages

if TYPE_CHECKING:
    from biarena.report.execute_demo import DemoResult


def demo(
    out: str | Path = "biarena-demo",
    *,
    benchmark: str | Path = "bis-synth",
    model: str = "local",
    agents: str | Sequence[str] = ("text2sql", "sequential"),
    **settings: Any,
) -> "DemoResult":
    """Answer a few questions of each category of `benchmark` with each of `agents` on `model`, score the runs and
    compare them in `out/report.html`; return a `DemoResult` (`report`, `runs`, each agent's headline scores in
    `rows`, each phase's cost in `phases`, also written to `out/demo-phases.json`).

    `agents` are names in order (or one comma-separated text, as `--agents` takes them); `settings` the other
    fields of `biarena.report.demo_settings.DemoSettings`: `per_category`, `max_queries`, `answer_words`,
    `model_options` (`-M`, e.g. `{"temperature": 0.2}`), `models_file`. A name it does not take is a UsageError that
    suggests the closest one."""
    from biarena.report.demo_settings import DemoSettings
    from biarena.report.execute_demo import execute_demo

    names = [a.strip() for a in agents.split(",") if a.strip()] if isinstance(agents, str) else list(agents)
    values = {"out": Path(out), "benchmark": str(benchmark), "model": model, "agents": names, **settings}
    return execute_demo(DemoSettings.of("demo()", values), print_messages)
