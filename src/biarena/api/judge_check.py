"""judge_check: how well a judge tells good answers from degraded copies, as `biarena judge check`."""

import json
from pathlib import Path
from typing import Any

from biarena.api.messages import print_messages


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

    `options` are the judge's own (`{"reviewers": 1}`); `settings` the other fields of
    `biarena.judges.check_settings.JudgeCheckSettings`: `score_name`, `rubric`, `judge_temperature`,
    `judge_model_options`, `models_file`, `options_file`, `no_cache`. A name it does not take is a UsageError that
    suggests the closest one."""
    from biarena.judges.check_settings import JudgeCheckSettings
    from biarena.judges.execute_check import execute_judge_check, write_check

    values = {"judge": judge, "judge_model": judge_model, "benchmark": benchmark, "pairs": pairs, "seed": seed}
    values.update(out=Path(out) if out is not None else None, **settings)
    if options is not None:
        values["options"] = options
    made = JudgeCheckSettings.of("judge_check()", values)
    report = execute_judge_check(made, print_messages)
    write_check(report, made, print_messages)
    return json.loads(json.dumps(report.to_dict(), ensure_ascii=False))  # as the JSON file reads back
