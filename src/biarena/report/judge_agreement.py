"""judge_agreements: how pairwise judges' verdicts (`biarena judge pairwise -o`) rank the report's runs, and how they
agree with the arena's human votes on the same question and pair of runs."""

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from biarena.report.leaderboard import arena_leaderboard
from biarena.report.run_data import RunData
from biarena.stats.agreement import KappaInterval, kappa_interval
from biarena.votes.leaderboard import Leaderboard, vote_agreement
from biarena.votes.settings import LeaderboardSettings
from biarena.votes.vote import Vote
from biarena.votes.vote_file import VoteFile


@dataclass(frozen=True)
class JudgeAgreement:
    """One pairwise judge's verdicts on the report's runs, beside the arena's human votes."""

    judge: str
    """Who gave the verdicts (`judge:pairwise:MODEL`), or the file's name when they do not say."""
    source: str
    """The votes file's name."""
    verdicts: int
    board: Leaderboard
    """The judge's verdicts fitted as the arena's votes are (Bradley-Terry, the arena's settings)."""
    agreement: KappaInterval | None
    """Cohen's kappa with the human votes on the same question and runs (None: no human votes, or under 2 shared)."""
    shared: int
    """Human votes with a verdict of the judge on the same question and pair of runs."""
    exact: float | None
    """Share of those where the judge and the person picked the same outcome (one side, the other, or a tie)."""


def judge_agreements(
    judged: dict[Path, list[Vote]], runs: list[RunData], human: VoteFile | None
) -> list[JudgeAgreement]:
    """Each verdicts file's ranking of the runs and, when there are human votes, its agreement with them."""
    settings = human.settings if human is not None else LeaderboardSettings()
    found = []
    for path, votes in judged.items():
        names = Counter(v.annotator for v in votes if v.annotator)
        board = arena_leaderboard(VoteFile(votes, settings), runs)
        agreement, exact, shared = None, None, 0
        if human is not None:
            mine, theirs = vote_agreement(votes, human.votes)
            shared = len(mine)
            if shared:
                exact = sum(a == b for a, b in zip(mine, theirs, strict=True)) / shared
            if shared >= 2:
                agreement = kappa_interval(mine, theirs, seed=settings.seed)
        judge = names.most_common(1)[0][0] if names else path.name
        found.append(JudgeAgreement(judge, path.name, len(votes), board, agreement, shared, exact))
    return found
