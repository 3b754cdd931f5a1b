"""judge_check: how well a judge tells good answers from degraded copies, as `biarena judge check`."""

import json
import tempfile
from pathlib import Path
from typing import Any

from biarena.api.command_call import call_command, option_pairs


def judge_check(
    judge: str,
    *,
    judge_model: str | None = None,
    benchmark: str = "corgi-synth",
    pairs: int = 20,
    seed: int = 0,
    out: str | Path | None = None,
    options: dict[str, Any] | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """Judge `pairs` good-vs-degraded answer pairs with `judge` and return the figures and every pair, as the JSON
    that `-o FILE` writes (also written to `out` when given).

    `options` are the judge's own (`{"reviewers": 1}`); `settings` the other options of `biarena judge check` by
    their parameter names: `score_name`, `rubric`, `judge_temperature`, `no_cache`."""
    from biarena.cli.judge_cmd import check

    with tempfile.TemporaryDirectory(prefix="biarena-judge-check-") as scratch:
        target = Path(out) if out is not None else Path(scratch) / "check.json"
        call_command(
            check,
            judge_name=judge,
            judge_model=judge_model,
            benchmark_arg=benchmark,
            count=pairs,
            seed=seed,
            out_file=target,
            option=option_pairs(options),
            **settings,
        )
        return json.loads(target.read_text(encoding="utf-8"))
