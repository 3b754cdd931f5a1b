"""model_steps: one journaled model step of a generation pipeline, and the JSON schema its reply is held to."""

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


def ask_step(
    work: WorkDir,
    budget: CallBudget,
    key: str,
    model: Model,
    *,
    system: str,
    prompt: str,
    schema: dict[str, Any],
    max_tokens: int,
) -> dict[str, Any]:
    """Step `key` asked of `model` (system and user message) once: `{"reply": parsed}`, or `{"error": ...}`.

    A finished step is read back from the journal; an invalid reply is journaled as the step's error, but a failing
    server is not the model's answer, so it is not journaled and a re-run asks again.
    """
    if work.done(key):
        return work.get(key)
    budget.check()
    chat = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
    try:
        value = {"reply": model.chat(chat, schema=schema, max_tokens=max_tokens).parsed}
    except StructuredOutputError as error:
        value = {"error": str(error)}
    except ModelError as error:
        return {"error": str(error)}
    return work.put(key, value)
