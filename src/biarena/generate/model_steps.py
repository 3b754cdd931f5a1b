"""model_steps: the pipeline of journaled model steps a generation runs (each asked once, counted as it keeps and
drops), and the JSON schema a step's reply is held to."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from biarena.generate.workdir import CallBudget, WorkDir
from biarena.llm import Model, ModelError, StructuredOutputError

STRING: dict[str, Any] = {"type": "string"}
"""A reply field holding text."""
STRINGS: dict[str, Any] = {"type": "array", "items": STRING}
"""A reply field holding a list of texts."""


def object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    """The JSON schema of an object holding every one of `properties`, in their order."""
    return {"type": "object", "properties": properties, "required": list(properties)}


Say = Callable[[str], None]


@dataclass
class StepCount:
    """What one step did: questions it received, kept, dropped (by reason) and corrected."""

    received: int = 0
    kept: int = 0
    dropped: int = 0
    corrected: int = 0
    invalid_replies: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def drop(self, reason: str) -> None:
        """Count a dropped question under a short reason."""
        self.dropped += 1
        self.reasons[reason] = self.reasons.get(reason, 0) + 1

    def as_dict(self) -> dict[str, Any]:
        """The counts for pipeline.json."""
        data: dict[str, Any] = {"in": self.received, "kept": self.kept, "dropped": self.dropped}
        data["corrected"] = self.corrected
        if self.invalid_replies:
            data["invalid_replies"] = self.invalid_replies
        if self.reasons:
            data["dropped_by_reason"] = dict(sorted(self.reasons.items()))
        return data


class StepPipeline:
    """A pipeline of journaled model steps: its work directory, its model, the call budget of every model it asks,
    a count per step and where its progress messages go."""

    def __init__(
        self, work: WorkDir, model: Model, budget: CallBudget, steps: tuple[str, ...], say: Say | None
    ) -> None:
        self.work = work
        self.model = model
        self.budget = budget
        self.say = say or (lambda _message: None)
        self.counts = {step: StepCount() for step in steps}

    def ask(self, key: str, model: Model, system: str, prompt: str, schema: dict, max_tokens: int) -> dict[str, Any]:
        """Step `key` asked of `model` (system and user message) once: `{"reply": parsed}`, or `{"error": ...}`.

        A finished step is read back from the journal; an invalid reply is journaled as the step's error, but a
        failing server is not the model's answer, so it is not journaled and a re-run asks again.
        """
        if self.work.done(key):
            return self.work.get(key)
        self.budget.check()
        chat = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
        try:
            value = {"reply": model.chat(chat, schema=schema, max_tokens=max_tokens).parsed}
        except StructuredOutputError as error:
            value = {"error": str(error)}
        except ModelError as error:
            return {"error": str(error)}
        return self.work.put(key, value)

    def step_counts(self) -> dict[str, dict[str, Any]]:
        """Each step's counts for pipeline.json, in the steps' order."""
        return {step: count.as_dict() for step, count in self.counts.items()}
