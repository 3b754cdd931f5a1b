"""Trivial rules that pick the better of two answers without reading the data or calling a model.

`judge check` runs them on the same pairs as the judge: a judge is worth its figure only by its margin over the best
of them. Each rule says which answer it prefers (`good`, `degraded`) or `tie`; a tie is not a win, as for a judge.
"""

import random
import re
from collections.abc import Callable

from biarena.registry import Registry

_WORD = re.compile(r"[\u4e00-\u9fff]|[^\W_]+", re.UNICODE)

Rule = Callable[[str, str, str, random.Random], str]
"""(good text, degraded text, reference, rng) -> `good`, `degraded` or `tie`."""


def words(text: str) -> set[str]:
    """The distinct words of a text, lower-cased (numbers included; each CJK character a word)."""
    return {w.lower() for w in _WORD.findall(text or "")}


def overlap(text: str, reference: str) -> int:
    """How many distinct words of the reference the text uses."""
    return len(words(text) & words(reference))


def _prefer(good: float, degraded: float) -> str:
    return "good" if good > degraded else ("degraded" if degraded > good else "tie")


def shorter(good: str, degraded: str, reference: str, rng: random.Random) -> str:
    """Prefer the shorter answer (in characters)."""
    return _prefer(-len(good), -len(degraded))


def longer(good: str, degraded: str, reference: str, rng: random.Random) -> str:
    """Prefer the longer answer."""
    return _prefer(len(good), len(degraded))


def reference_overlap(good: str, degraded: str, reference: str, rng: random.Random) -> str:
    """Prefer the answer that uses more of the reference's words."""
    return _prefer(overlap(good, reference), overlap(degraded, reference))


def coin(good: str, degraded: str, reference: str, rng: random.Random) -> str:
    """Prefer either answer at random (seeded)."""
    return "good" if rng.random() < 0.5 else "degraded"


BASELINES: Registry[Rule] = Registry(
    "baseline",
    {
        "shorter": "biarena.judges.baselines:shorter",
        "longer": "biarena.judges.baselines:longer",
        "overlap": "biarena.judges.baselines:reference_overlap",
        "random": "biarena.judges.baselines:coin",
    },
)
"""The trivial rules by name, in report order."""
