"""auto_scores: a run's automatic scores as a leaderboard shows them beside the human votes."""

from biarena.judges import JUDGE_CLASSES
from biarena.metrics.summary import overall
from biarena.report.run_data import RunData
from biarena.votes.leaderboard import Contender

AUTO_SCORES = ("execution_accuracy", "ser", "result_f1", "semantic_similarity")
"""Automatic scores the leaderboard shows beside the human ones."""


def auto_scores(run: RunData) -> dict[str, float | None]:
    """The metrics in AUTO_SCORES and each judge's headline score the run has, as `biarena show` reports their means."""
    names = sorted({s.name for s in run.scores})
    row = overall(run.questions, run.scores, names, answers=run.answers)
    scores = {metric: row.means.get(metric) for metric in AUTO_SCORES}
    scores.update({name: row.means.get(name) for name in names if name in JUDGE_CLASSES})
    return scores


def contender(run: RunData, name: str | None = None, *, submitted: bool = False) -> Contender:
    """The run as a leaderboard contender, named `name` (default: its label)."""
    return Contender(name or run.label, run.spec.run_id, auto_scores(run), submitted)
