"""Day-by-day activity density from a spec's seasonality, and exact allocation of counts."""

from datetime import date, datetime, timedelta

import numpy as np

from biarena.synth.spec import Seasonality


def days(start: date, end: date) -> list[date]:
    """Every day from start to end inclusive."""
    return [start + timedelta(days=i) for i in range((end - start).days + 1)]


def active_days(start: date, anchor: datetime) -> list[date]:
    """The days with activity: from start to the last day that begins before the anchor."""
    return days(start, (anchor - timedelta(seconds=1)).date())


def level(calendar: list[date], seasonality: Seasonality) -> np.ndarray:
    """The growth trend's level on each day (1 before the first phase), compounding phase after phase."""
    out = np.ones(len(calendar))
    ordinals = np.array([d.toordinal() for d in calendar], dtype=float)
    phases = sorted(seasonality.trend, key=lambda t: t.since)
    for phase, following in zip(phases, [*phases[1:], None], strict=True):
        end = following.since.toordinal() if following else np.inf
        years = (np.clip(ordinals, phase.since.toordinal(), end) - phase.since.toordinal()) / 365.25
        out *= (1 + phase.growth) ** years
    return out


def density(calendar: list[date], seasonality: Seasonality) -> np.ndarray:
    """Relative activity of each day: growth trend x month multiplier x weekend x named events."""
    out = level(calendar, seasonality) if seasonality.trend else np.ones(len(calendar))
    for i, day in enumerate(calendar):
        out[i] *= seasonality.months.get(day.month, 1.0)
        if day.weekday() >= 5:
            out[i] *= seasonality.weekend
        for event in seasonality.events:
            if day.month == event.month and event.days[0] <= day.day <= event.days[1]:
                out[i] *= event.factor
    return out


def allocate_days(total: int, calendar: list[date], weights: np.ndarray) -> np.ndarray:
    """Counts per day: first per month, then within each month, so every month gets its exact share."""
    months = np.array([d.year * 12 + d.month for d in calendar])
    keys = sorted(set(months.tolist()))
    per_month = allocate(total, np.array([weights[months == k].sum() for k in keys]))
    out = np.zeros(len(calendar), dtype=np.int64)
    for key, count in zip(keys, per_month, strict=True):
        mask = months == key
        out[mask] = allocate(int(count), weights[mask])
    return out


def allocate(total: int, weights: np.ndarray) -> np.ndarray:
    """Split `total` into integer counts proportional to `weights` (largest remainder: exact, deterministic)."""
    weights = np.asarray(weights, dtype=float)
    if total <= 0 or weights.sum() <= 0:
        return np.zeros(len(weights), dtype=np.int64)
    ideal = weights / weights.sum() * total
    counts = np.floor(ideal).astype(np.int64)
    short = total - int(counts.sum())
    if short > 0:
        order = np.argsort(-(ideal - counts), kind="stable")
        counts[order[:short]] += 1
    return counts
