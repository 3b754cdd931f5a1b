"""score: a run scored by metrics and judges, as `biarena score RUN [--scorer NAME] [--judge NAME]`."""

from pathlib import Path
from typing import Any

from biarena.api.messages import print_messages


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

    `settings` are the other fields of `biarena.scoring.score_settings.ScoreSettings`: `options` (each scorer's,
    `{"interaction": {"max_steps": 4}}`), `judge_model_options`, `models_file`, `contract`, `suite`, `rescore`,
    `benchmark`, `decimals`, `score_budget`, `rubric`, `concurrency`, `max_calls`, `judge_temperature`, `db_url`,
    `timeout`, `sandbox`, `allow_superuser`. A name it does not take is a UsageError that suggests the closest one.
    Scores already stored are not made again (unless `rescore=True`)."""
    from biarena.scoring.execute import execute_score
    from biarena.scoring.score_settings import ScoreSettings

    values = {"run": Path(run), "scorers": scorers, "judges": judges, "judge_model": judge_model, **settings}
    execute_score(ScoreSettings.of("score()", values), print_messages)
    return Path(run)
