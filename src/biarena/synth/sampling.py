"""Sampling tests for `verify`: p-values of observed counts against planned rates, and the false-alarm budget.

Every planned quantity the simulator draws (a share, a monthly volume, a planted event's factor) is checked by a test
whose false-alarm rate is stated, not by a ratio with fixed slack: at small counts Poisson noise alone moves a ratio
far from its plan. The budget is for a whole CORGI suite build (every check of all ten verticals together) and is
split among the checks by Bonferroni's inequality: P(any false alarm) <= the sum of the checks' alphas.
"""

from collections.abc import Sequence

BUILD_FALSE_ALARM = 1e-3
"""At most one suite build in a thousand stops on a correct simulator."""
EVENT_CHECKS = 100
"""Budget places for planted and propagated events (the built-in verticals have fewer; a test pins it)."""
OTHER_CHECKS = 1_000
"""Budget places for the other sampled checks: shares, segments, seasonality (likewise pinned by a test)."""
EVENT_ALPHA = BUILD_FALSE_ALARM / 2 / EVENT_CHECKS
"""Per planted or propagated event: half the budget, split among few checks, so that an event that did not happen
is caught at small scales (its counts are the smallest the verifier tests)."""
CHECK_ALPHA = BUILD_FALSE_ALARM / 2 / OTHER_CHECKS
"""Per other sampled check (a check of several months or categories splits it again among them)."""


def _binomial(k: int, n: int, p: float, alternative: str) -> float:
    from scipy.stats import binomtest  # scipy loads only when a database is verified

    if n <= 0:
        return 1.0
    return float(binomtest(int(k), int(n), min(max(p, 0.0), 1.0), alternative=alternative).pvalue)


def rate_ratio_pvalue(during: int, before: int, exposure_during: float, exposure_before: float, ratio: float) -> float:
    """Two-sided p-value of counts in two windows against a planned rate ratio (during / before).

    The exact conditional test for two Poisson counts: given their sum, `during` is binomial with probability
    `ratio * e_during / (ratio * e_during + e_before)`. Counts the generator fixes more tightly than Poisson (exact
    monthly volumes and shares) only make it conservative.
    """
    if exposure_during <= 0 or exposure_before <= 0:
        return 1.0
    expected = ratio * exposure_during
    return _binomial(during, during + before, expected / (expected + exposure_before), "two-sided")


def share_pvalue(count: int, n: int, share: float, alternative: str = "two-sided") -> float:
    """Exact binomial p-value of `count` of `n` rows against a planned share (`less`: the share is a floor)."""
    return _binomial(count, n, share, alternative)


def shares_pvalue(counts: Sequence[int], shares: Sequence[float]) -> tuple[float, int]:
    """Bonferroni p-value of category counts against planned shares (a two-sided binomial test per category), and
    the category with the smallest p-value."""
    n = sum(counts)
    pvalues = [share_pvalue(c, n, s) for c, s in zip(counts, shares, strict=True)]
    worst = min(range(len(pvalues)), key=pvalues.__getitem__)
    return min(1.0, pvalues[worst] * len(pvalues)), worst


def tolerant_share_pvalue(count: int, n: int, share: float, tolerance: float) -> float:
    """Two-sided p-value against a share planned within a relative tolerance: the null is that the true share lies
    in `share * (1 ± tolerance)`, so noise at small counts and a deviation within the tolerance at large ones both
    pass."""
    if n <= 0:
        return 1.0
    observed = count / n
    if observed > share * (1 + tolerance):
        return min(1.0, 2 * _binomial(count, n, share * (1 + tolerance), "greater"))
    if observed < share * (1 - tolerance):
        return min(1.0, 2 * _binomial(count, n, share * (1 - tolerance), "less"))
    return 1.0
