"""fit_bradley_terry: Bradley-Terry strengths from pairwise votes (choix), with 95% bootstrap intervals."""

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import choix
import numpy as np

from biarena.errors import UsageError

WINNERS = ("a", "b", "tie", "both_bad")
"""What a vote may say: A better, B better, a tie, or both bad."""

ALPHA = 0.001
"""choix's regularization: a tiny prior rate on every pair, so that a system that never lost (or never won) keeps a
finite strength and the fit always converges; beside even a few votes per pair its pull is negligible."""

_CHUNK = 100
"""Bootstrap resamples drawn at a time (their multinomial counts are resamples x distinct votes integers)."""


@dataclass(frozen=True)
class BradleyTerry:
    """A Bradley-Terry fit: strengths on the log scale (mean 0) with 95% bootstrap intervals, win rates, vote counts.

    `strength[s]` is log(theta_s) with the thetas scaled so that the log-strengths average 0; the model's chance that
    `a` is preferred to `b` is 1 / (1 + exp(strength[b] - strength[a])). A system listed but never voted on has no
    estimate: its strength and interval are NaN and its count 0.
    """

    systems: list[str]
    """Systems, strongest first (those without votes last, in the order given)."""
    strength: dict[str, float]
    """Fitted log-strength per system (mean 0 over the systems with votes)."""
    low: dict[str, float]
    """Lower end of the 95% bootstrap interval of the strength."""
    high: dict[str, float]
    """Upper end of the 95% bootstrap interval of the strength."""
    wins: dict[tuple[str, str], float]
    """(a, b) -> share of a's comparisons with b that a won, ties counting half; only pairs compared at least once."""
    counts: dict[str, int]
    """Votes that involve each system."""
    matches: dict[tuple[str, str], int] = field(default_factory=dict)
    """(a, b) -> votes between a and b (both orders)."""
    ties: int = 0
    """Votes that preferred neither side (tie or both bad)."""
    bootstrap: int = 0
    """Bootstrap resamples behind the intervals (0: no interval)."""

    def probability(self, a: str, b: str) -> float:
        """The model's probability that `a` is preferred to `b`."""
        return float(1.0 / (1.0 + np.exp(self.strength[b] - self.strength[a])))


def _comparison_matrix(index: dict[str, int], kinds: dict[tuple[str, str, str], int]) -> np.ndarray:
    """matrix[i, j] = wins of i over j; a tie or a both-bad vote is half a win for each side."""
    matrix = np.zeros((len(index), len(index)))
    for (a, b, winner), count in kinds.items():
        i, j = index[a], index[b]
        if winner == "a":
            matrix[i, j] += count
        elif winner == "b":
            matrix[j, i] += count
        else:
            matrix[i, j] += 0.5 * count
            matrix[j, i] += 0.5 * count
    return matrix


def _fit(matrix: np.ndarray) -> np.ndarray:
    params = choix.ilsr_pairwise_dense(matrix, alpha=ALPHA, max_iter=1000)
    return params - params.mean()


def _check(games: Iterable[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    checked = []
    for number, game in enumerate(games, start=1):
        if len(game) != 3:
            raise UsageError(f"vote {number}: expected (system_a, system_b, winner), got {game!r}")
        a, b, winner = game
        if winner not in WINNERS:
            raise UsageError(f"vote {number}: winner must be one of {', '.join(WINNERS)}, got {winner!r}")
        if a == b:
            raise UsageError(f"vote {number}: a system compared with itself ({a!r})")
        checked.append((str(a), str(b), winner))
    return checked


def _kinds(games: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], int]:
    """Each distinct vote `(a, b, winner)` with how many times it was cast, in the order of its first casting.

    Votes with the same (a, b, winner) are interchangeable, so everything below works on these few thousand kinds
    rather than on the (possibly millions of) votes one by one.
    """
    votes = games if isinstance(games, list | tuple) else list(games)
    try:
        counted = Counter(votes)
    except TypeError:  # a vote that is not a tuple (a list, say): check them one by one
        counted = Counter(_check(votes))
    kinds: dict[tuple[str, str, str], int] = {}
    for game, count in counted.items():
        if not (isinstance(game, tuple) and len(game) == 3 and game[2] in WINNERS and game[0] != game[1]):
            _check(votes)  # raises the first bad vote's error, with its number
        a, b, winner = game
        key = (str(a), str(b), winner)
        kinds[key] = kinds.get(key, 0) + count
    return kinds


def fit_bradley_terry(
    games: Iterable[tuple[str, str, str]],
    *,
    systems: Sequence[str] | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
) -> BradleyTerry:
    """Fit Bradley-Terry strengths to pairwise votes `(system_a, system_b, winner)` with percentile bootstrap intervals.

    `winner` is `a`, `b`, `tie` or `both_bad`. A tie and a both-bad vote both say that neither answer was preferred:
    each counts as half a win for each side (as Chatbot Arena counts ties), so they pull the two strengths together.
    The intervals come from `bootstrap` resamples of the votes with replacement (seeded: the same votes and seed give
    the same intervals); with `bootstrap=0` the intervals equal the estimate.
    """
    kinds = _kinds(games)
    listed = list(dict.fromkeys(systems)) if systems is not None else []
    seen = list(dict.fromkeys(name for a, b, _ in kinds for name in (a, b)))
    unknown = [name for name in seen if systems is not None and name not in listed]
    if unknown:
        raise UsageError(f"votes name systems not in the list: {', '.join(unknown)}")
    voted = [name for name in (listed or seen) if name in set(seen)]
    index = {name: i for i, name in enumerate(voted)}
    nan = float("nan")
    strength = dict.fromkeys(listed, nan)
    low, high = dict(strength), dict(strength)
    if voted:
        estimate = _fit(_comparison_matrix(index, kinds))
        lows, highs = estimate, estimate
        if bootstrap > 0:
            lows, highs = _intervals(index, kinds, bootstrap, seed)
        for name, i in index.items():
            strength[name], low[name], high[name] = float(estimate[i]), float(lows[i]), float(highs[i])
    counts = dict.fromkeys(listed or seen, 0)
    matches: dict[tuple[str, str], int] = {}
    won: dict[tuple[str, str], float] = {}
    for (a, b, winner), count in kinds.items():
        counts[a] += count
        counts[b] += count
        share = {"a": 1.0, "b": 0.0}.get(winner, 0.5)
        for x, y, s in ((a, b, share), (b, a, 1.0 - share)):
            matches[(x, y)] = matches.get((x, y), 0) + count
            won[(x, y)] = won.get((x, y), 0.0) + s * count
    wins = {pair: won[pair] / n for pair, n in matches.items()}
    order = sorted(voted, key=lambda s: -strength[s]) + [s for s in (listed or seen) if s not in index]
    ties = sum(count for (*_, winner), count in kinds.items() if winner in ("tie", "both_bad"))
    return BradleyTerry(
        systems=order,
        strength={s: strength[s] for s in order},
        low={s: low[s] for s in order},
        high={s: high[s] for s in order},
        wins=wins,
        counts={s: counts[s] for s in order},
        matches=matches,
        ties=ties,
        bootstrap=bootstrap if voted else 0,
    )


def _intervals(
    index: dict[str, int], kinds: dict[tuple[str, str, str], int], resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """2.5% and 97.5% percentiles of the strengths refitted on votes resampled with replacement."""
    # Resampling the votes is drawing multinomial counts of the distinct kinds; each resample's comparison matrix is
    # then a weighted count of the kinds' cells (half a cell each way for a tie), summed by one bincount.
    n = len(index)
    cells, owners, shares = [], [], []
    for number, (a, b, winner) in enumerate(kinds):
        i, j = index[a], index[b]
        halves = {"a": ((i, j, 1.0),), "b": ((j, i, 1.0),)}.get(winner, ((i, j, 0.5), (j, i, 0.5)))
        for x, y, share in halves:
            cells.append(x * n + y)
            owners.append(number)
            shares.append(share)
    cell, owner, share = np.array(cells), np.array(owners), np.array(shares)
    total = sum(kinds.values())
    probabilities = np.fromiter(kinds.values(), dtype=float, count=len(kinds)) / total
    rng = np.random.default_rng(seed)
    fits = np.empty((resamples, n))
    for first in range(0, resamples, _CHUNK):
        # Drawn in chunks to bound memory; the generator gives the same rows as one draw of all of them.
        draws = rng.multinomial(total, probabilities, size=min(_CHUNK, resamples - first))
        for r, draw in enumerate(draws, start=first):
            matrix = np.bincount(cell, weights=draw[owner] * share, minlength=n * n).reshape(n, n)
            fits[r] = _fit(matrix)
    return np.percentile(fits, 2.5, axis=0), np.percentile(fits, 97.5, axis=0)
