"""simulate_votes: CORGI Appendix E's check of the Bradley-Terry fit on votes drawn from known strengths."""

from dataclasses import dataclass

import numpy as np
from scipy import stats

from biarena.errors import UsageError
from biarena.stats.bradley_terry import BradleyTerry, fit_bradley_terry


@dataclass(frozen=True)
class Simulation:
    """Known strengths, the votes drawn from them, the fit, and how well the fit recovers them."""

    true_strength: dict[str, float]
    """log(theta) per system, centred to mean 0 like the fit's strengths."""
    games: list[tuple[str, str, str]]
    """The simulated votes `(a, b, "a" | "b")`."""
    fit: BradleyTerry
    """The Bradley-Terry fit of the votes."""
    spearman: float
    """Spearman's rho between the true and the fitted strengths."""
    spearman_p: float
    """Its p-value (no rank correlation as the null)."""
    covered: int
    """Systems whose 95% interval holds the true strength."""

    @property
    def coverage(self) -> float:
        """Share of systems whose interval holds the true strength."""
        return self.covered / len(self.true_strength)


def draw_games(
    theta: np.ndarray, names: list[str], comparisons: int, rng: np.random.Generator
) -> list[tuple[str, str, str]]:
    """Votes as Appendix E draws them: a pair uniform over all pairs, i preferred with theta_i / (theta_i + theta_j)."""
    n = len(names)
    first = rng.integers(0, n, size=comparisons)
    # A second index uniform over the other n - 1 systems makes every unordered pair equally likely.
    second = (first + rng.integers(1, n, size=comparisons)) % n
    wins = rng.random(comparisons) < theta[first] / (theta[first] + theta[second])
    # Object arrays hand out the very name (and "a" / "b") objects, so the votes share them.
    systems = np.array(names, dtype=object)
    winner = np.array(["b", "a"], dtype=object)[wins.astype(np.intp)]
    return list(zip(systems[first].tolist(), systems[second].tolist(), winner.tolist(), strict=True))


def simulate_votes(
    systems: int = 10, comparisons: int = 2000, *, seed: int = 0, spread: float = 5.0, bootstrap: int = 1000
) -> Simulation:
    """Draw latent strengths, simulate votes, fit them, and compare with the truth.

    log(theta) is uniform over an interval `spread` wide, as choix's `generate_params` draws them (its default width,
    5: neighbours among ten systems then differ by about 0.5, a 62% / 38% preference).
    """
    if systems < 2:
        raise UsageError(f"--systems must be at least 2, got {systems}")
    if comparisons < 1:
        raise UsageError(f"--comparisons must be at least 1, got {comparisons}")
    rng = np.random.default_rng(seed)
    names = [f"system-{i + 1:0{len(str(systems))}d}" for i in range(systems)]
    log_theta = rng.uniform(0.0, spread, size=systems)
    log_theta -= log_theta.mean()
    games = draw_games(np.exp(log_theta), names, comparisons, rng)
    fit = fit_bradley_terry(games, systems=names, bootstrap=bootstrap, seed=seed)
    truth = dict(zip(names, (float(v) for v in log_theta), strict=True))
    fitted = np.array([fit.strength[n] for n in names])
    # A system no vote reached has no estimate; it counts as not covered and ranks last.
    fitted = np.where(np.isnan(fitted), -np.inf, fitted)
    rho, p = stats.spearmanr(log_theta, fitted)
    covered = sum(1 for n in names if fit.low[n] <= truth[n] <= fit.high[n])
    return Simulation(truth, games, fit, float(rho), float(p), covered)
