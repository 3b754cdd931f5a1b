"""The events a run reports besides `Message` and `RunProgress`: its start, its end, and a stop for an outage."""

from dataclasses import dataclass

from biarena.runner.run import RunSummary


@dataclass(frozen=True)
class RunStarted:
    """The run is about to ask its questions."""

    name: str
    """The system's name."""
    total: int
    """Answers the run asks for (questions times tries)."""
    completed: int
    """Of those, answered before this call."""
    tries: int
    """Tries asked of each question."""


@dataclass(frozen=True)
class RunEnded:
    """The run asked what it could; the summary lines follow as messages."""

    summary: RunSummary


@dataclass(frozen=True)
class RunStopped:
    """The run stopped early: its model's server does not answer."""

    model: str
    """The model's spec."""
    in_a_row: int
    """Questions in a row that got no reply."""
    last_error: str
    answered: int
    total: int

    def line(self, resume: str) -> str:
        """What to tell the user, with `resume`: how to go on once the server is back."""
        error = self.last_error if len(self.last_error) <= 120 else self.last_error[:119] + "…"
        return (
            f"stopped: {self.model} does not answer ({self.in_a_row} questions in a row got no reply: {error}); "
            f"{self.answered} of {self.total} questions answered; resume when it is back: {resume}"
        )
