"""ScoringBudget: how much work comparing one answer may take; past it the answer scores 0 with the reason."""

import math
import time
from dataclasses import dataclass


class OverBudget(Exception):
    """Comparing an answer would take more than its ScoringBudget; the message says which bound."""


@dataclass(frozen=True)
class ScoringBudget:
    """Bounds on the work of scoring one answer beyond running its SQL (which the sandbox limits bound).

    Sizes are checked before the work starts, so the same answer gets the same score on any machine;
    the time limit is a last guard.
    """

    max_sql_chars: int = 100_000
    """Longest query text that is parsed for comparison."""
    max_nodes: int = 5_000
    """Most syntax-tree nodes in one query."""
    max_depth: int = 250
    """Deepest nesting of a query's syntax tree."""
    max_pairs: int = 4_000_000
    """Most node pairs (gold nodes x answer nodes) the tree diff may weigh."""
    seconds: float = 10.0
    """Time for comparing one answer with all its gold queries (`inf` for none)."""

    def deadline(self) -> "Deadline":
        """A clock for one answer's comparison, started now."""
        return Deadline(time.monotonic() + self.seconds if not math.isinf(self.seconds) else math.inf, self.seconds)


@dataclass(frozen=True)
class Deadline:
    """When the comparison of one answer must stop."""

    at: float
    seconds: float

    def check(self) -> None:
        """Raise OverBudget when the time is up."""
        if time.monotonic() > self.at:
            raise OverBudget(f"comparing it took more than the {self.seconds:g} s scoring budget")


NO_DEADLINE = Deadline(math.inf, math.inf)
"""A deadline that never comes."""
