"""read_judge_check: the figures `biarena judge check -o FILE` writes, read defensively for the report."""

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biarena.errors import FormatError, NotFoundError

RATE_KEYS = ("rate", "share", "value", "mean", "accuracy")
LOW_KEYS = ("low", "lower", "ci_low")
HIGH_KEYS = ("high", "upper", "ci_high")
COUNT_KEYS = ("trials", "n", "judged", "pairs", "count", "total")
TIE_KEYS = ("ties", "tie_rate", "tied")
NESTED = ("good_higher", "agreement")
"""Keys under which a figure may nest its rate with its interval (`{"good_higher": {"rate", "low", "high"}}`)."""
NAME_KEYS = ("degradation", "name", "check")
CONTAINERS = ("judges", "results", "figures")
"""Keys under which a file may nest its per-judge figures."""


@dataclass(frozen=True)
class CheckFigure:
    """One judge check figure: how often the judge preferred the good answer over one kind of degraded copy."""

    check: str
    """The degradation (or `overall`, `self-consistency`) the figure is about."""
    rate: float
    low: float | None
    high: float | None
    n: int | None
    ties: float | None


def _number(data: dict[str, Any], keys: tuple[str, ...]) -> float | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
    return None


def _figure(check: str, body: Any, *, bare: bool = True) -> CheckFigure | None:
    """A figure from a record with a rate (nested or not), or from a bare share in 0..1 when `bare`."""
    if isinstance(body, int | float) and not isinstance(body, bool):
        return CheckFigure(check, float(body), None, None, None, None) if bare and 0 <= body <= 1 else None
    if not isinstance(body, dict):
        return None
    nested = next((body[k] for k in NESTED if isinstance(body.get(k), dict)), None)
    source = nested if nested is not None and _number(nested, RATE_KEYS) is not None else body
    rate = _number(source, RATE_KEYS)
    if rate is None:
        return None
    low, high = _number(source, LOW_KEYS), _number(source, HIGH_KEYS)
    interval = source.get("interval") or source.get("ci")
    if low is None and isinstance(interval, list | tuple) and len(interval) == 2:
        low, high = (float(v) if isinstance(v, int | float) else None for v in interval)
    count = _number(source, COUNT_KEYS)
    if count is None:
        count = _number(body, COUNT_KEYS)
    return CheckFigure(check, rate, low, high, int(count) if count is not None else None, _number(body, TIE_KEYS))


def _named(item: Any) -> str | None:
    if isinstance(item, dict):
        return next((str(item[k]) for k in NAME_KEYS if isinstance(item.get(k), str)), None)
    return None


def _figures_of(body: dict[str, Any]) -> list[CheckFigure]:
    """One judge's figures: its degradations (a list of named records or a dict), overall, self-consistency."""
    found: list[CheckFigure] = []
    degradations = body.get("degradations")
    if isinstance(degradations, list):
        for item in degradations:
            name = _named(item)
            if name and (figure := _figure(name, item)):
                found.append(figure)
            # the judge's margin over the best trivial rule on this degradation, beside its figure
            if name and isinstance(item.get("margin"), dict) and (margin := _figure(f"{name} margin", item["margin"])):
                found.append(margin)
    elif isinstance(degradations, dict):
        found += [f for name, item in degradations.items() if (f := _figure(str(name), item))]
    # Beside a list of degradations, bare numbers are the report's counts and settings (seed, tokens), not figures.
    bare = degradations is None
    for key, item in body.items():
        if key == "degradations" or key in ("judge", "pairs"):
            continue
        figure = _figure("self-consistency" if key == "consistency" else str(key), item, bare=bare)
        if figure is not None:
            found.append(figure)
    return found


def _judges(data: Any) -> dict[str, dict[str, Any]]:
    if isinstance(data, list):  # several reports, or {"judge": name, ...} records
        merged: dict[str, dict[str, Any]] = {}
        for item in data:
            merged.update(_judges(item))
        return merged
    if not isinstance(data, dict):
        return {}
    if isinstance(data.get("judge"), str):  # one judge's report, as `judge check -o` writes it
        return {data["judge"]: data}
    for key in CONTAINERS:
        if isinstance(data.get(key), dict | list):
            return _judges(data[key]) if isinstance(data[key], list) else data[key]
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}


def read_judge_check(path: Path) -> dict[str, list[CheckFigure]]:
    """judge -> its check figures; keys the report does not know are skipped, a file without figures is refused."""
    if not path.is_file():
        raise NotFoundError(f"{path}: no such judge check file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise FormatError(f"{path}: not a judge check file (not JSON: {error})") from None
    figures = {judge: found for judge, body in _judges(data).items() if (found := _figures_of(body))}
    if not figures:
        raise FormatError(f"{path}: no judge check figures in it (expected judge -> check -> {{rate, low, high, n}})")
    return figures
