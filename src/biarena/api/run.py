"""run: a system over a benchmark into a run file, as `biarena run BENCH --agent NAME -o RUN`."""

from pathlib import Path
from typing import Any

from biarena.api.command_call import call_command, option_pairs


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
    `{"max_queries": 2}`; `biarena describe agent NAME` lists them); `settings` the other options of `biarena run`
    by their parameter names: `limit`, `per_category`, `concurrency`, `repeats`, `max_calls`, `no_cache`, `structured`,
    `prices`, `label`, `retry_errors`, `partial`, `accepted_only`, `force`, `db_url`, `timeout`, `sandbox`,
    `allow_superuser`.
    A run in which no answer's SQL ran still returns its path (the command exits 1 then)."""
    from biarena.cli.run_cmd import run as run_command

    call_command(
        run_command,
        benchmark_arg=str(benchmark),
        agent=agent,
        model=model,
        out=Path(out),
        option=option_pairs(options),
        **settings,
    )
    return Path(out)
