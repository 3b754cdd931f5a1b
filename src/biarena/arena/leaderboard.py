"""build_leaderboard: Bradley-Terry strengths with intervals, win rates, vote counts and automatic scores."""

import math
from dataclasses import dataclass

from biarena.arena.catalog import AUTO_SCORES, Catalog
from biarena.stats.bradley_terry import BradleyTerry, fit_bradley_terry


@dataclass(frozen=True)
class LeaderboardRow:
    """One system's standing."""

    rank: int
    name: str
    strength: float | None
    """Bradley-Terry log-strength (mean 0), None before the system has a vote."""
    low: float | None
    high: float | None
    votes: int
    human: float | None
    """Mean modelled chance of being preferred to each other voted system (0-1)."""
    auto: float | None
    """The automatic score the combined score uses (0-1)."""
    auto_scores: dict[str, float | None]
    combined: float | None
    """Harmonic mean of `auto` and `human`, once the system has at least the configured number of votes."""
    submitted: bool


@dataclass(frozen=True)
class Leaderboard:
    """Every system's row, strongest first, and the win-rate matrix in that order."""

    rows: list[LeaderboardRow]
    names: list[str]
    wins: dict[tuple[str, str], float]
    matches: dict[tuple[str, str], int]
    total_votes: int
    min_votes: int
    auto_metric: str
    judges: list[str]
    """Judges whose headline score some system has, shown beside the metrics."""


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


def _judge_columns(catalog: Catalog) -> list[str]:
    found = {name for s in catalog.systems.values() for name, value in s.auto.items() if value is not None}
    return sorted(found - set(AUTO_SCORES))


def build_leaderboard(
    outcomes: list[tuple[str, str, str]],
    catalog: Catalog,
    *,
    min_votes: int,
    auto_metric: str = "execution_accuracy",
    bootstrap: int = 1000,
    seed: int = 0,
) -> Leaderboard:
    """The leaderboard of every system in the catalog from votes `(system_a, system_b, winner)`."""
    systems = catalog.systems
    names = sorted(systems)
    known = [o for o in outcomes if o[0] in systems and o[1] in systems]
    fit = fit_bradley_terry(known, systems=names, bootstrap=bootstrap, seed=seed)
    rows = []
    for rank, name in enumerate(fit.systems, start=1):
        system = systems[name]
        human = human_score(fit, name)
        auto = system.auto.get(auto_metric)
        votes = fit.counts.get(name, 0)
        combined = harmonic_mean(auto, human) if votes >= min_votes and auto is not None and human is not None else None
        rows.append(
            LeaderboardRow(
                rank=rank,
                name=name,
                strength=_number(fit.strength[name]),
                low=_number(fit.low[name]),
                high=_number(fit.high[name]),
                votes=votes,
                human=human,
                auto=auto,
                auto_scores=dict(system.auto),
                combined=combined,
                submitted=system.submitted,
            )
        )
    return Leaderboard(
        rows=rows,
        names=list(fit.systems),
        wins=dict(fit.wins),
        matches=dict(fit.matches),
        total_votes=len(known),
        min_votes=min_votes,
        auto_metric=auto_metric,
        judges=_judge_columns(catalog),
    )
