"""fit_style_controlled: Bradley-Terry strengths with the answers' style held fixed (Chatbot Arena's style control).

A vote `(a, b, winner)` becomes a logistic regression row: +1 for `a`, -1 for `b` on the system columns, and for each
style feature the normalised difference `(f_a - f_b) / (f_a + f_b)` (standardised over the votes). The system
coefficients are then the strengths once length and Markdown structure are accounted for; the style coefficients say
how much each feature alone sways a vote. A tie is half a win for each side (as in `fit_bradley_terry`).
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from biarena.errors import UsageError

L2 = 1e-3
"""A tiny ridge penalty, so that a system that never lost keeps a finite strength (like choix's alpha)."""


@dataclass(frozen=True)
class StyleControlled:
    """Strengths (log scale, mean 0) with style held fixed, their 95% bootstrap intervals, and the style effects."""

    systems: list[str]
    """Systems, strongest first."""
    strength: dict[str, float]
    low: dict[str, float]
    high: dict[str, float]
    coefficients: dict[str, float]
    """Each style feature's effect on the log-odds of a win, per standard deviation of its normalised difference."""
    votes: int


def _design(
    index: dict[str, int], games: Sequence[tuple[str, str, str, Sequence[float], Sequence[float]]], features: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows, targets, weights = [], [], []
    for a, b, winner, fa, fb in games:
        row = np.zeros(len(index) + features)
        row[index[a]], row[index[b]] = 1.0, -1.0
        for k in range(features):
            total = fa[k] + fb[k]
            row[len(index) + k] = (fa[k] - fb[k]) / total if total else 0.0
        outcome = {"a": [(1.0, 1.0)], "b": [(0.0, 1.0)]}.get(winner, [(1.0, 0.5), (0.0, 0.5)])
        for target, weight in outcome:
            rows.append(row)
            targets.append(target)
            weights.append(weight)
    return np.array(rows), np.array(targets), np.array(weights)


def _fit(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    def loss(beta: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ beta
        p = 1.0 / (1.0 + np.exp(-z))
        value = np.sum(w * (y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z))) + L2 * beta @ beta
        grad = x.T @ (w * (p - y)) + 2 * L2 * beta
        return float(value), grad

    return minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B").x


def fit_style_controlled(
    games: Sequence[tuple[str, str, str, Sequence[float], Sequence[float]]],
    *,
    features: Sequence[str],
    bootstrap: int = 200,
    seed: int = 0,
) -> StyleControlled:
    """Fit strengths and style effects to votes `(a, b, winner, style_a, style_b)`; `features` names the style
    values; intervals from `bootstrap` resamples of the votes (percentile, seeded)."""
    if not games:
        raise UsageError("style control needs at least one vote")
    names = list(dict.fromkeys(s for a, b, *_ in games for s in (a, b)))
    index = {name: i for i, name in enumerate(names)}
    x, y, w = _design(index, games, len(features))
    spread = x[:, len(index) :].std(axis=0)
    spread[spread == 0] = 1.0
    x[:, len(index) :] /= spread
    beta = _fit(x, y, w)
    strengths = beta[: len(index)] - beta[: len(index)].mean()
    low, high = strengths.copy(), strengths.copy()
    if bootstrap > 0 and len(games) > 1:
        rng = np.random.default_rng(seed)
        fits = []
        for _ in range(bootstrap):
            sample = [games[i] for i in rng.integers(0, len(games), size=len(games))]
            xs, ys, ws = _design(index, sample, len(features))
            xs[:, len(index) :] /= spread
            b = _fit(xs, ys, ws)[: len(index)]
            fits.append(b - b.mean())
        low, high = np.percentile(fits, 2.5, axis=0), np.percentile(fits, 97.5, axis=0)
    order = sorted(names, key=lambda s: -strengths[index[s]])
    return StyleControlled(
        systems=order,
        strength={s: float(strengths[index[s]]) for s in order},
        low={s: float(low[index[s]]) for s in order},
        high={s: float(high[index[s]]) for s in order},
        coefficients={f: float(beta[len(index) + k]) for k, f in enumerate(features)},
        votes=len(games),
    )
