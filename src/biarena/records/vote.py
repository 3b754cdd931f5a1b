"""Vote: one pairwise vote (a person's in the arena, or a pairwise judge's), with the systems revealed."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Vote:
    """One stored vote, with the systems revealed."""

    id: int
    annotator: str
    benchmark: str
    question_id: str
    left_system: str
    right_system: str
    choice: str
    """What the annotator chose: left, right, tie or both_bad."""
    rationale: str
    created_at: str
    left_run: str | None = None
    """The run id (RunSpec.run_id) of the system shown on the left; None for votes stored before runs had ids."""
    right_run: str | None = None
    """The run id of the system shown on the right."""

    @property
    def winner(self) -> str:
        """The outcome as `(system_a=left, system_b=right, winner)` reads it: a, b, tie or both_bad."""
        return {"left": "a", "right": "b"}.get(self.choice, self.choice)
