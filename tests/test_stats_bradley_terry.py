"""Bradley-Terry fits against worked examples and a direct maximum-likelihood fit; Appendix E's simulation."""

import math
import re

import numpy as np
import pytest
from scipy import optimize

from biarena.errors import UsageError
from biarena.stats import fit_bradley_terry, simulate_votes
from tests.run_helpers import cli, one_line_error


def direct_ml(outcomes: list[tuple[str, str, str]], names: list[str]) -> dict[str, float]:
    """Bradley-Terry by maximizing the log-likelihood with scipy (ties as half a win each), mean-zero log-strengths."""
    index = {n: i for i, n in enumerate(names)}

    def negative_log_likelihood(free: np.ndarray) -> float:
        beta = np.append(free, -free.sum())
        total = 0.0
        for a, b, winner in outcomes:
            share = {"a": 1.0, "b": 0.0}.get(winner, 0.5)
            d = beta[index[a]] - beta[index[b]]
            total -= share * -np.logaddexp(0, -d) + (1 - share) * -np.logaddexp(0, d)
        return total

    result = optimize.minimize(negative_log_likelihood, np.zeros(len(names) - 1), method="BFGS", tol=1e-10)
    beta = np.append(result.x, -result.x.sum())
    return {n: float(beta[i]) for n, i in index.items()}


def test_two_systems_three_wins_in_four_give_log_three_apart() -> None:
    fit = fit_bradley_terry([("x", "y", "a")] * 3 + [("x", "y", "b")], bootstrap=0)
    # The ML estimate of theta_x / theta_y is 3 / 1; strengths are log-thetas centred on 0.
    assert fit.strength["x"] - fit.strength["y"] == pytest.approx(math.log(3), abs=0.01)
    assert fit.strength["x"] + fit.strength["y"] == pytest.approx(0, abs=1e-9)
    assert fit.probability("x", "y") == pytest.approx(0.75, abs=0.002)
    assert fit.systems == ["x", "y"]
    assert fit.wins == {("x", "y"): 0.75, ("y", "x"): 0.25}
    assert fit.counts == {"x": 4, "y": 4}


def test_ties_and_both_bad_count_half_a_win_each() -> None:
    # One win and one tie for x is 1.5 wins against 0.5: the same estimate as three wins in four.
    with_tie = fit_bradley_terry([("x", "y", "a"), ("y", "x", "tie")], bootstrap=0)
    with_both_bad = fit_bradley_terry([("x", "y", "a"), ("x", "y", "both_bad")], bootstrap=0)
    for fit in (with_tie, with_both_bad):
        assert fit.strength["x"] - fit.strength["y"] == pytest.approx(math.log(3), abs=0.02)
        assert fit.wins[("x", "y")] == 0.75 and fit.ties == 1


def test_matches_a_direct_maximum_likelihood_fit() -> None:
    rng = np.random.default_rng(7)
    names = ["alpha", "beta", "gamma", "delta"]
    theta = np.exp([1.0, 0.3, -0.2, -1.1])
    outcomes = []
    for _ in range(400):
        i, j = rng.choice(4, size=2, replace=False)
        r = rng.random()
        winner = "tie" if r < 0.1 else ("a" if r < 0.1 + 0.9 * theta[i] / (theta[i] + theta[j]) else "b")
        outcomes.append((names[i], names[j], winner))
    fit = fit_bradley_terry(outcomes, bootstrap=200, seed=1)
    expected = direct_ml(outcomes, names)
    for name in names:
        assert fit.strength[name] == pytest.approx(expected[name], abs=0.01)
        assert fit.low[name] < fit.strength[name] < fit.high[name]
    assert fit.systems == sorted(names, key=lambda n: -expected[n])
    assert sum(fit.counts.values()) == 2 * len(outcomes)
    for (a, b), rate in fit.wins.items():
        assert rate + fit.wins[(b, a)] == pytest.approx(1)


def test_intervals_are_reproducible_and_narrow_with_more_votes() -> None:
    few = [("x", "y", "a")] * 6 + [("x", "y", "b")] * 4 + [("y", "z", "a")] * 5 + [("z", "y", "a")] * 5
    first = fit_bradley_terry(few, bootstrap=300, seed=4)
    assert first == fit_bradley_terry(few, bootstrap=300, seed=4)
    many = fit_bradley_terry(few * 20, bootstrap=300, seed=4)
    assert many.high["x"] - many.low["x"] < first.high["x"] - first.low["x"]


def test_a_listed_system_without_votes_has_no_estimate() -> None:
    fit = fit_bradley_terry([("x", "y", "a"), ("y", "x", "b")], systems=["x", "y", "idle"], bootstrap=50)
    assert fit.systems[-1] == "idle" and math.isnan(fit.strength["idle"]) and math.isnan(fit.low["idle"])
    assert fit.counts["idle"] == 0
    assert fit.strength["x"] > 0 > fit.strength["y"]  # x never lost: still a finite estimate


def test_bad_votes_are_refused_with_a_clear_message() -> None:
    with pytest.raises(UsageError, match="winner must be one of"):
        fit_bradley_terry([("x", "y", "left")])
    with pytest.raises(UsageError, match="compared with itself"):
        fit_bradley_terry([("x", "x", "a")])
    with pytest.raises(UsageError, match="not in the list: z"):
        fit_bradley_terry([("x", "z", "a")], systems=["x", "y"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_simulation_recovers_the_order_of_ten_systems(seed: int) -> None:
    sim = simulate_votes(10, 2000, seed=seed, bootstrap=200)
    assert sim.spearman >= 0.9
    assert len(sim.games) == 2000 and sum(sim.fit.counts.values()) == 4000
    assert sum(sim.true_strength.values()) == pytest.approx(0, abs=1e-9)
    assert sim.covered >= 7  # 95% intervals: missing more than three of ten is very unlikely


def test_simulated_pairs_are_uniform_and_wins_follow_theta() -> None:
    sim = simulate_votes(3, 30000, seed=5, bootstrap=0)
    pairs = {}
    for a, b, _ in sim.games:
        pairs[frozenset((a, b))] = pairs.get(frozenset((a, b)), 0) + 1
    assert len(pairs) == 3 and all(abs(n - 10000) < 400 for n in pairs.values())
    theta = {n: math.exp(v) for n, v in sim.true_strength.items()}
    for (a, b), rate in sim.fit.wins.items():
        assert rate == pytest.approx(theta[a] / (theta[a] + theta[b]), abs=0.02)


def test_arena_simulate_prints_spearman_and_coverage() -> None:
    result = cli("arena", "simulate", "--systems", "10", "--comparisons", "2000", "--seed", "1", "--bootstrap", "200")
    assert result.returncode == 0, result.stderr
    rho = float(result.stdout.split("Spearman's rho (true vs fitted order): ")[1].split()[0])
    assert rho >= 0.9
    coverage = re.search(r"CI coverage: (\d+)/10 = [\d.]+% \(nominal 95%\)", result.stdout)
    assert coverage and int(coverage.group(1)) >= 7
    assert len(re.findall(r"system-\d\d", result.stdout)) == 10
    one_line_error(cli("arena", "simulate", "--systems", "1"), "--systems must be at least 2")


def test_votes_as_lists_or_a_generator_fit_as_tuples_do() -> None:
    votes = [("x", "y", "a")] * 5 + [("y", "x", "a")] * 2 + [("x", "y", "tie")] * 3
    expected = fit_bradley_terry(votes, bootstrap=50, seed=3)
    assert fit_bradley_terry([list(v) for v in votes], bootstrap=50, seed=3) == expected
    assert fit_bradley_terry((v for v in votes), bootstrap=50, seed=3) == expected
    assert expected.counts == {"x": 10, "y": 10} and expected.ties == 3
    with pytest.raises(UsageError, match="vote 7: winner must be one of"):
        fit_bradley_terry([*votes[:6], ("x", "y", "left"), *votes])
