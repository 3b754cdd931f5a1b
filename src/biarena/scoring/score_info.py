"""ScoreInfo: what one score is, declared once by the scorer that gives it, and read by every display."""

import math
from dataclasses import dataclass
from typing import Literal

Need = Literal["gold_sql", "reference", "model", "database"]
"""What a score needs besides the answer: the question's gold SQL, its reference answer, a model, its database."""

Average = Literal["asked", "answered"]
"""How a score is averaged over a group of questions (those the scorer applies to):
`asked`: over every question asked, an unanswered one counting 0 (a score against a gold that cannot be compared
is left out); `answered`: over the questions the system answered, unanswered ones left out."""

Kind = Literal["metric", "judge"]
"""`metric`: tabled by category and language beside the other metrics; `judge`: tabled by question type, one table
per scorer."""


@dataclass(frozen=True)
class ScoreInfo:
    """One score's declaration: its name and label, what it measures, its scale and how tables treat it."""

    name: str
    """The score's name as stored (`execution_accuracy`, `corgi.data_sense`)."""
    label: str
    """Short column header for tables (`EA`, `data sense`)."""
    description: str
    """What the score measures, in a sentence."""
    range: tuple[float, float] = (0.0, 1.0)
    """Lowest and highest value (`inf` for a count without a top)."""
    higher_is_better: bool | None = True
    """Which way is better; None for a measure that is neither (a length, a count)."""
    needs: frozenset[Need] = frozenset()
    """What the score needs besides the answer; without gold SQL a gold score is left out of means, not 0."""
    headline: bool = False
    """True for the scorer's main score(s): the ones reports put intervals and charts on and leaderboards show."""
    average: Average = "asked"
    """How means count the questions (see `Average`)."""
    kind: Kind = "metric"
    """Which tables show it (see `Kind`)."""
    shown: bool = True
    """False for a metric the text tables leave out (it stays in JSON, CSV and exports)."""

    @property
    def needs_gold(self) -> bool:
        """True when the score compares with the gold SQL."""
        return "gold_sql" in self.needs

    @property
    def is_judge(self) -> bool:
        """True for a judge's score."""
        return self.kind == "judge"


def undeclared(name: str, *, judge: bool = False) -> ScoreInfo:
    """A stand-in for a stored score that no registered scorer declares (an old run, a removed scorer)."""
    return ScoreInfo(
        name=name,
        label=name,
        description="a score no registered scorer declares",
        range=(-math.inf, math.inf),
        higher_is_better=None,
        kind="judge" if judge else "metric",
    )
