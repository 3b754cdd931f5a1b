"""run: a system over a benchmark into a run file, as `biarena run BENCH --agent NAME -o RUN`."""

from pathlib import Path
from typing import Any

from biarena.api.messages import print_messages


def run(
    benchmark: str | Path,
    *,
    agent: str,
    out: str | Path,
    model: str | None = None,
    options: dict[str, Any] | None = None,
    **settings: Any,
) -> Path:
    """Run `agent` over `benchmark` into the run file `out` (resumed when it holds this run); return its path.

    `model` is a model string (`local`, `openai:MODEL@URL`, `mock`); `options` the agent's own (`-O`, e.g.
    `{"max_queries": 2}`; `biarena describe agent NAME` lists them); `settings` the other fields of
    `biarena.runner.run_settings.RunSettings`: `model_options` (`-M`, e.g. `{"temperature": 0.2}`), `models_file`,
    `options_file`, `limit`, `per_category`, `concurrency`, `repeats`, `max_calls`, `no_cache`, `structured`,
    `prices`, `label`, `retry_errors`, `partial`, `accepted_only`, `force`, `db_url`, `timeout`, `sandbox`,
    `allow_superuser`. A name it does not take is a UsageError that suggests the closest one.
    A run in which no answer's SQL ran still returns its path (the command exits 1 then)."""
    from biarena.runner.execute import execute_run
    from biarena.runner.run_settings import RunSettings

    values = {"benchmark": str(benchmark), "agent": agent, "out": Path(out), "model": model, **settings}
    if options is not None:
        values["options"] = options
    return execute_run(RunSettings.of("run()", values), print_messages).out
