"""The events a scoring pass reports besides `Message` and `ScoreProgress`: its start, its end, an outage's stop."""

from dataclasses import dataclass


@dataclass(frozen=True)
class ScoreStarted:
    """Scoring is about to make its results."""

    judges: frozenset[str]
    """The scorers that call a model (their results are worth a line each in a log)."""


@dataclass(frozen=True)
class ScoreEnded:
    """Scoring made what it could; the summary lines follow as messages."""


@dataclass(frozen=True)
class ScoreStopped:
    """Scoring stopped early: the judges' model's server does not answer."""

    model: str
    in_a_row: int
    last_error: str
    answered: int
    """Model calls answered."""

    def line(self, resume: str) -> str:
        """What to tell the user, with `resume`: how to score the rest once the server is back."""
        return (
            f"stopped: {self.model} does not answer ({self.in_a_row} judgements in a row got no reply: "
            f"{self.last_error[:120]}); {self.answered} model calls answered; score the rest when it is back: {resume}"
        )
