"""RunData: what a report needs of one run file, read once."""

from dataclasses import dataclass
from pathlib import Path

from biarena.records import Answer, Question, RunSpec, Score
from biarena.runner import RunStore, scores_by_question


@dataclass
class RunData:
    """A run's spec, questions, answers and scores."""

    path: Path
    spec: RunSpec
    questions: list[Question]
    answers: list[Answer]
    scores: list[Score]

    @classmethod
    def read(cls, path: Path) -> "RunData":
        """Read a run file."""
        with RunStore(path) as store:
            spec = store.spec()
            if spec is None:
                from biarena.errors import FormatError

                raise FormatError(f"{path}: the run has not started")
            return cls(path, spec, store.questions(), store.answers(), store.scores())

    @property
    def label(self) -> str:
        """How the run is named in a report: agent, and model when there is one."""
        model = self.spec.model
        return f"{self.spec.system} ({model})" if model else self.spec.system

    def score_table(self) -> dict[str, dict[str, float | None]]:
        """question id -> score name -> value."""
        return scores_by_question(self.scores)
