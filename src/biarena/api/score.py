"""score: a run scored by metrics and judges, as `biarena score RUN [--scorer NAME] [--judge NAME]`."""

from pathlib import Path
from typing import Any


def score(
    run: str | Path,
    *,
    scorers: list[str] | None = None,
    judges: list[str] | None = None,
    judge_model: str | None = None,
    **settings: Any,
) -> Path:
    """Score the run file `run` and return its path: the deterministic metrics, or the named `scorers`, plus
    `judges` with `judge_model` (default: the local model).

    `settings` are the other options of `biarena score` by their parameter names: `rescore`, `benchmark_arg`,
    `decimals`, `score_budget`, `rubric`, `concurrency`, `max_calls`, `judge_temperature`, `db_url`, `timeout`,
    `sandbox`, `allow_superuser`. Scores already stored are not made again (unless `rescore=True`)."""
    from biarena.api.command_call import call_command
    from biarena.cli.score_cmd import score as score_command

    call_command(
        score_command, run_path=Path(run), scorers=scorers, judges=judges, judge_model=judge_model, **settings
    )
    return Path(run)
