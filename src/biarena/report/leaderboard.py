"""arena_leaderboard: the arena's votes on the report's runs, fitted as the arena page fits them."""

from biarena.report.auto_scores import AUTO_SCORES, contender
from biarena.report.run_data import RunData
from biarena.votes.leaderboard import Leaderboard, build_leaderboard
from biarena.votes.style import vote_styles
from biarena.votes.vote_file import VoteFile


def arena_leaderboard(votes: VoteFile, runs: list[RunData]) -> Leaderboard:
    """The leaderboard of the report's runs (each named by its label) from an arena's votes and settings; a vote
    counts when both its runs are among them. Beside it, the ranking with the answers' style held fixed."""
    # a vote names its runs by id, or (stored before runs had ids) by the name the arena showed
    texts = {(key, a.question_id): a.text for run in runs for key in (run.spec.run_id, run.label) for a in run.answers}

    return build_leaderboard(
        votes.votes, [contender(run) for run in runs], votes.settings, metrics=AUTO_SCORES, style=vote_styles(texts)
    )
