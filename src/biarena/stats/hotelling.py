"""hotelling_paired: Hotelling's T^2 test that two judges give the same dimension scores to the same answers."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from biarena.errors import UsageError


@dataclass(frozen=True)
class Hotelling:
    """Paired Hotelling's T^2: the statistic, its F transform with (p, n - p) degrees of freedom, and the p-value."""

    t2: float
    f: float
    df_num: int
    df_den: int
    p: float
    mean_difference: list[float]
    """First judge minus second, per dimension."""


def hotelling_paired(first: Sequence[Sequence[float]], second: Sequence[Sequence[float]]) -> Hotelling:
    """Test whether the mean of the paired differences (first - second) of n answers x p dimensions is zero (CORGI 4.4).

    T^2 = n d' S^-1 d with d the mean difference and S its sample covariance; F = (n - p) / (p (n - 1)) T^2 follows
    F(p, n - p) under the null.
    """
    x, y = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if x.ndim != 2 or x.shape != y.shape:
        raise UsageError(f"both judges need the same answers x dimensions table (got {x.shape} and {y.shape})")
    if np.isnan(x).any() or np.isnan(y).any():
        raise UsageError("every answer needs a score on every dimension from both judges")
    n, p = x.shape
    if n <= p:
        raise UsageError(f"Hotelling's T^2 needs more answers than dimensions (got {n} answers, {p} dimensions)")
    d = x - y
    mean = d.mean(axis=0)
    covariance = np.atleast_2d(np.cov(d, rowvar=False))
    if np.linalg.matrix_rank(covariance) < p:
        raise UsageError("the judges' score differences are collinear (a dimension is constant or a copy of others)")
    t2 = float(n * mean @ np.linalg.solve(covariance, mean))
    f = (n - p) / (p * (n - 1)) * t2
    return Hotelling(t2, f, p, n - p, float(stats.f.sf(f, p, n - p)), [float(v) for v in mean])
