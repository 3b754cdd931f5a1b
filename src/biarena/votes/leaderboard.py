"""build_leaderboard: Bradley-Terry strengths with intervals, win rates, vote counts and automatic scores.

The arena page and `report --arena` both call it, with the same settings (an arena stores the ones it serves with),
so the same votes give the same ranking and intervals in both. A vote names each side's run by its id, so a system is
matched to the run that answered, not guessed from its name; a vote stored before runs had ids is matched by the name
the arena showed.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from biarena.stats.bradley_terry import BradleyTerry, fit_bradley_terry
from biarena.stats.style_control import StyleControlled, fit_style_controlled
from biarena.votes.settings import LeaderboardSettings
from biarena.votes.vote import Vote


@dataclass(frozen=True)
class Contender:
    """A system on the leaderboard: how it is shown, the run that answered, and its automatic scores."""

    name: str
    run_id: str | None
    auto: dict[str, float | None] = field(default_factory=dict)
    submitted: bool = False


@dataclass(frozen=True)
class LeaderboardRow:
    """One system's standing."""

    rank: int
    name: str
    run_id: str | None
    strength: float | None
    """Bradley-Terry log-strength (mean 0), None before the system has a vote."""
    low: float | None
    high: float | None
    votes: int
    win_rate: float | None
    """Share of its votes the system won (ties and both-bad count half)."""
    human: float | None
    """Mean modelled chance of being preferred to each other voted system (0-1)."""
    auto: float | None
    """The automatic score the combined score uses (0-1)."""
    auto_scores: dict[str, float | None]
    combined: float | None
    """Harmonic mean of `auto` and `human`, once the system has at least `min_votes` votes."""
    submitted: bool


@dataclass(frozen=True)
class Leaderboard:
    """Every system's row, strongest first, and the win-rate matrix in that order."""

    rows: list[LeaderboardRow]
    names: list[str]
    wins: dict[tuple[str, str], float]
    matches: dict[tuple[str, str], int]
    total_votes: int
    """Votes between two systems on the board (those fitted)."""
    unmatched_votes: int
    """Votes left out: a side's run is not on the board."""
    ties: int
    """Fitted votes that were ties or both bad."""
    min_votes: int
    auto_metric: str
    bootstrap: int
    judges: list[str]
    """Automatic scores beyond `metrics` (judges' headline scores) that some system has, shown beside the metrics."""
    style_control: StyleControlled | None = None
    """The ranking with the answers' length and Markdown structure held fixed, when the answers were given."""


Style = Callable[[Vote], tuple[Sequence[float], Sequence[float]] | None]
"""A vote -> the style features of its left and right answers (None when an answer is unknown)."""


def harmonic_mean(a: float, b: float) -> float:
    """2ab / (a + b), and 0 when both are 0."""
    return 2 * a * b / (a + b) if a + b > 0 else 0.0


def human_score(fit: BradleyTerry, name: str) -> float | None:
    """The chance the model gives `name` of being preferred to another voted system, averaged over them."""
    others = [s for s in fit.systems if s != name and not math.isnan(fit.strength[s])]
    if math.isnan(fit.strength.get(name, math.nan)) or not others:
        return None
    return sum(fit.probability(name, other) for other in others) / len(others)


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def matched_games(votes: list[Vote], contenders: list[Contender]) -> list[tuple[str, str, str]]:
    """The votes between two contenders as `(name_a, name_b, winner)`: each side found by its run id, or by the name
    shown when the vote has no run id."""
    return [game for game, _ in _matched(votes, contenders)]


def _matched(votes: list[Vote], contenders: list[Contender]) -> list[tuple[tuple[str, str, str], Vote]]:
    by_run = {c.run_id: c.name for c in contenders if c.run_id}
    by_name = {c.name: c.name for c in contenders}
    games = []
    for vote in votes:
        sides = [
            by_run.get(run) if run else by_name.get(name)
            for run, name in ((vote.left_run, vote.left_system), (vote.right_run, vote.right_system))
        ]
        if sides[0] is not None and sides[1] is not None and sides[0] != sides[1]:
            games.append(((sides[0], sides[1], vote.winner), vote))
    return games


def style_controlled(
    votes: list[Vote], contenders: list[Contender], style: Style, *, bootstrap: int, seed: int
) -> StyleControlled | None:
    """The Bradley-Terry fit with each vote's answers' style as covariates (None without a vote whose answers are
    known)."""
    from biarena.votes.style import STYLE_FEATURES

    games = []
    for (a, b, winner), vote in _matched(votes, contenders):
        found = style(vote)
        if found is not None:
            games.append((a, b, winner, found[0], found[1]))
    if not games:
        return None
    return fit_style_controlled(games, features=STYLE_FEATURES, bootstrap=bootstrap, seed=seed)


def build_leaderboard(
    votes: list[Vote],
    contenders: list[Contender],
    settings: LeaderboardSettings | None = None,
    *,
    metrics: tuple[str, ...] = (),
    style: Style | None = None,
) -> Leaderboard:
    """The leaderboard of every contender from the stored votes; `metrics` are the automatic scores shown as such
    (the others a contender has are judges' scores); with `style`, also the ranking with style held fixed."""
    settings = settings or LeaderboardSettings()
    games = matched_games(votes, contenders)
    names = sorted(c.name for c in contenders)
    by_name = {c.name: c for c in contenders}
    fit = fit_bradley_terry(games, systems=names, bootstrap=settings.bootstrap, seed=settings.seed)
    rows = []
    for rank, name in enumerate(fit.systems, start=1):
        contender = by_name[name]
        human = human_score(fit, name)
        auto = contender.auto.get(settings.auto_metric)
        count = fit.counts.get(name, 0)
        won = sum(fit.wins[(a, b)] * n for (a, b), n in fit.matches.items() if a == name)
        enough = count >= settings.min_votes and auto is not None and human is not None
        rows.append(
            LeaderboardRow(
                rank=rank,
                name=name,
                run_id=contender.run_id,
                strength=_number(fit.strength[name]),
                low=_number(fit.low[name]),
                high=_number(fit.high[name]),
                votes=count,
                win_rate=won / count if count else None,
                human=human,
                auto=auto,
                auto_scores=dict(contender.auto),
                combined=harmonic_mean(auto, human) if enough else None,  # type: ignore[arg-type]
                submitted=contender.submitted,
            )
        )
    judged = {n for c in contenders for n, value in c.auto.items() if value is not None}
    return Leaderboard(
        rows=rows,
        names=list(fit.systems),
        wins=dict(fit.wins),
        matches=dict(fit.matches),
        total_votes=len(games),
        unmatched_votes=len(votes) - len(games),
        ties=fit.ties,
        min_votes=settings.min_votes,
        auto_metric=settings.auto_metric,
        bootstrap=settings.bootstrap,
        judges=sorted(judged - set(metrics)),
        style_control=(
            style_controlled(votes, contenders, style, bootstrap=min(settings.bootstrap, 200), seed=settings.seed)
            if style is not None
            else None
        ),
    )


def vote_agreement(judged: list[Vote], human: list[Vote]) -> tuple[list[float], list[float]]:
    """The judge's and the humans' outcomes on the same question and pair of runs, one item per human vote:
    1 when the run with the smaller id won, 0 when the other did, 0.5 for a tie or both bad."""

    def keyed(vote: Vote) -> tuple[tuple[str, str, str], float] | None:
        if not vote.left_run or not vote.right_run or vote.left_run == vote.right_run:
            return None
        first = min(vote.left_run, vote.right_run)
        won = {"a": vote.left_run, "b": vote.right_run}.get(vote.winner)
        outcome = 0.5 if won is None else float(won == first)
        return (vote.question_id, first, max(vote.left_run, vote.right_run)), outcome

    verdicts = dict(found for vote in judged if (found := keyed(vote)) is not None)
    mine, theirs = [], []
    for vote in human:
        found = keyed(vote)
        if found is not None and found[0] in verdicts:
            mine.append(verdicts[found[0]])
            theirs.append(found[1])
    return mine, theirs
