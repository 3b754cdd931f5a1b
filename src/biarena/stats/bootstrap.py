"""Bootstrap intervals: a mean's, and the paired difference between two systems on any score (scipy.stats.bootstrap)."""

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from biarena.errors import UsageError


@dataclass(frozen=True)
class Interval:
    """An estimate with its bootstrap confidence interval (None when there are too few values for one)."""

    estimate: float
    low: float | None
    high: float | None
    n: int


def _interval(data: tuple[np.ndarray, ...], statistic, *, paired: bool, confidence: float, resamples: int, seed: int):
    from scipy import stats  # a second and more to import: only where an interval is drawn

    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            # BCa cannot be computed on a degenerate sample (all values equal); the percentile interval then is.
            warnings.simplefilter("ignore")
            result = stats.bootstrap(
                data,
                statistic,
                paired=paired,
                vectorized=True,
                confidence_level=confidence,
                n_resamples=resamples,
                method=method,
                random_state=np.random.default_rng(seed),
            )
        low, high = result.confidence_interval
        if np.isfinite(low) and np.isfinite(high):
            return float(low), float(high)
    return None, None


def mean_interval(
    values: Sequence[float | None], *, confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> Interval:
    """The mean of the values (None skipped) with its bootstrap interval."""
    x = np.array([v for v in values if v is not None], dtype=float)
    if len(x) == 0:
        raise UsageError("no values to average")
    if len(x) == 1:
        return Interval(float(x[0]), None, None, 1)
    if np.ptp(x) == 0:
        return Interval(float(x[0]), float(x[0]), float(x[0]), len(x))
    low, high = _interval(
        (x,), lambda a, axis: np.mean(a, axis=axis), paired=False, confidence=confidence, resamples=resamples, seed=seed
    )
    return Interval(float(x.mean()), low, high, len(x))


@dataclass(frozen=True)
class PairedDifference:
    """Mean of first - second over the items both have, its bootstrap interval, and the share of resamples whose sign
    differs from the estimate's (a two-sided bootstrap p-value)."""

    difference: float
    low: float | None
    high: float | None
    n: int
    p: float


def paired_bootstrap(
    first: Sequence[float | None],
    second: Sequence[float | None],
    *,
    confidence: float = 0.95,
    resamples: int = 10000,
    seed: int = 0,
) -> PairedDifference:
    """Paired bootstrap of mean(first - second) over the items both systems have a score on (same order)."""
    if len(first) != len(second):
        raise UsageError(f"paired scores need the same items ({len(first)} and {len(second)} values)")
    kept = [(a, b) for a, b in zip(first, second, strict=True) if a is not None and b is not None]
    if len(kept) < 2:
        raise UsageError("a paired bootstrap needs at least two items both systems have a score on")
    x = np.array([a for a, _ in kept], dtype=float)
    y = np.array([b for _, b in kept], dtype=float)
    d = x - y
    estimate = float(d.mean())
    if np.ptp(d) == 0:
        return PairedDifference(estimate, estimate, estimate, len(d), 0.0 if estimate else 1.0)
    low, high = _interval(
        (x, y),
        lambda a, b, axis: np.mean(a, axis=axis) - np.mean(b, axis=axis),
        paired=True,
        confidence=confidence,
        resamples=resamples,
        seed=seed,
    )
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, len(d), size=(resamples, len(d)))].mean(axis=1)
    # Share of resampled means on the other side of zero, doubled: small when zero is far outside the distribution.
    other_side = np.mean(means <= 0) if estimate > 0 else np.mean(means >= 0)
    return PairedDifference(estimate, low, high, len(d), float(min(1.0, 2 * other_side)))
