"""agreement: how two raters (judges, annotators) agree on the same items: Pearson r, exact agreement, Cohen's kappa."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa

from biarena.errors import UsageError


@dataclass(frozen=True)
class Agreement:
    """Agreement between two raters over the items both rated."""

    n: int
    """Items both rated."""
    pearson_r: float
    """Pearson's correlation (NaN when either rater gives one constant value)."""
    pearson_p: float
    """Two-sided p-value of r (no correlation as the null)."""
    exact: float
    """Share of items given exactly the same value."""
    kappa: float
    """Cohen's kappa over the values as categories (1: perfect, 0: chance)."""


def _pairs(first: Sequence[float | None], second: Sequence[float | None]) -> tuple[np.ndarray, np.ndarray]:
    if len(first) != len(second):
        raise UsageError(f"the raters scored different numbers of items ({len(first)} and {len(second)})")
    kept = [(a, b) for a, b in zip(first, second, strict=True) if a is not None and b is not None]
    if len(kept) < 2:
        raise UsageError("agreement needs at least two items both raters scored")
    return np.array([a for a, _ in kept], dtype=float), np.array([b for _, b in kept], dtype=float)


def kappa(first: Sequence[float], second: Sequence[float], *, weights: str | None = None) -> float:
    """Cohen's kappa of two raters' values taken as categories; `weights` 'linear' or 'quadratic' for ordinal
    scales."""
    x, y = _pairs(first, second)
    levels = np.unique(np.concatenate([x, y]))
    if len(levels) == 1:
        return 1.0  # both raters gave the one value throughout: agreement is perfect, chance cannot be told apart
    table = np.zeros((len(levels), len(levels)))
    np.add.at(table, (np.searchsorted(levels, x), np.searchsorted(levels, y)), 1)
    if weights not in (None, "linear", "quadratic"):
        raise UsageError(f"kappa weights must be 'linear' or 'quadratic', got {weights!r}")
    # Weighted kappa measures disagreement by the distance between category positions: right for evenly spaced
    # scores (0-5 scales), which is what judges and annotators give.
    return float(cohens_kappa(table, wt=weights, return_results=False))


def agreement(first: Sequence[float | None], second: Sequence[float | None]) -> Agreement:
    """Pearson r with its p-value, exact agreement and Cohen's kappa; items either rater left empty are skipped."""
    x, y = _pairs(first, second)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        r, p = float("nan"), float("nan")
    else:
        result = stats.pearsonr(x, y)
        r, p = float(result.statistic), float(result.pvalue)
    return Agreement(n=len(x), pearson_r=r, pearson_p=p, exact=float(np.mean(x == y)), kappa=kappa(x, y))


def agreed_subset_accuracy(
    system: Sequence[float | None], first: Sequence[float | None], second: Sequence[float | None]
) -> tuple[float, int]:
    """BI-Bench 5.3: on the items both annotators scored alike, the share the system scored the same; with the count."""
    if not len(system) == len(first) == len(second):
        raise UsageError("the system and the annotators scored different numbers of items")
    agreed = [
        (s, a) for s, a, b in zip(system, first, second, strict=True) if a is not None and a == b and s is not None
    ]
    if not agreed:
        return float("nan"), 0
    return sum(1 for s, a in agreed if s == a) / len(agreed), len(agreed)


@dataclass(frozen=True)
class KappaInterval:
    """Cohen's kappa with its 95% percentile bootstrap interval (items resampled with replacement)."""

    kappa: float
    low: float | None
    high: float | None
    n: int


def kappa_interval(
    first: Sequence[float | None], second: Sequence[float | None], *, resamples: int = 1000, seed: int = 0
) -> KappaInterval:
    """Cohen's kappa of two raters over the items both rated, with a bootstrap interval (resamples where chance
    agreement is total are left out)."""
    x, y = _pairs(first, second)
    estimate = kappa(x, y)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(resamples):
        pick = rng.integers(0, len(x), size=len(x))
        xs, ys = x[pick], y[pick]
        if len(np.unique(np.concatenate([xs, ys]))) > 1:
            values.append(kappa(xs, ys))
    if not values:
        return KappaInterval(estimate, None, None, len(x))
    return KappaInterval(estimate, float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5)), len(x))
