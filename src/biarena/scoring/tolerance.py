"""Tolerance: how numbers compare when results are compared, a setting every scorer in a pass shares."""

from dataclasses import dataclass

MAX_DECIMALS = 6
"""Default precision cap: values equal to 6 decimals are equal."""


@dataclass(frozen=True)
class Tolerance:
    """How numbers compare: to `max_decimals` places, and to fewer when one side was rounded."""

    max_decimals: int = MAX_DECIMALS
    rounding_aware: bool = True
