"""auto_scores: a run's automatic scores as a leaderboard shows them beside the human votes."""

from functools import cache
from typing import Any

from biarena.metrics.summary import overall
from biarena.report.run_data import RunData
from biarena.scoring.infos import ScoreInfos, registered_infos
from biarena.votes.leaderboard import Contender


@cache
def auto_score_names() -> tuple[str, ...]:
    """The metrics' headline scores, which the leaderboard shows beside the human ones (and may combine with them);
    the scorers are made the first time this is asked, not when the module loads."""
    return tuple(i.name for i in registered_infos() if i.headline and not i.is_judge)


def __getattr__(name: str) -> Any:
    """`AUTO_SCORES`: auto_score_names(), made on first use."""
    if name == "AUTO_SCORES":
        return auto_score_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def auto_scores(run: RunData) -> dict[str, float | None]:
    """The metrics' headline scores and each other headline score the run has, as `biarena show` reports their
    means."""
    names = sorted({s.name for s in run.scores})
    row = overall(run.questions, run.scores, names, answers=run.answers)
    scores = {metric: row.means.get(metric) for metric in auto_score_names()}
    scores.update({name: row.means.get(name) for name in ScoreInfos.of(run.scores).headlines(names)})
    return scores


def contender(run: RunData, name: str | None = None, *, submitted: bool = False) -> Contender:
    """The run as a leaderboard contender, named `name` (default: its label)."""
    return Contender(name or run.label, run.spec.run_id, auto_scores(run), submitted)
