"""An answer as the run store can keep it: sanitized, without its previews when too large, or an error saying why."""

from pydantic import ValidationError

from biarena.records import Answer, SystemSpec
from biarena.records.sanitize import clean_value, describe_changes

MAX_ANSWER_BYTES = 32 * 1024 * 1024
"""An answer whose record is larger than this is stored without its result previews (or as an error)."""


def storable_answer(answer: Answer, max_bytes: int) -> tuple[Answer, str]:
    """The answer as it can be stored within `max_bytes`, and its JSON."""
    try:
        try:
            body = answer.model_dump_json()
        except ValueError:  # pydantic's serialization error is a ValueError
            answer = _sanitized(answer)
            body = answer.model_dump_json()
        if len(body) > max_bytes:
            answer = _without_previews(answer, len(body), max_bytes)
            body = answer.model_dump_json()
        if len(body) > max_bytes:
            answer = unstorable_answer(answer, f"the answer is {len(body):,} characters, over the store's limit")
            body = answer.model_dump_json()
        return answer, body
    except (ValidationError, ValueError, RecursionError, MemoryError) as error:
        answer = unstorable_answer(answer, f"{type(error).__name__}: {str(error)[:300]}")
        return answer, answer.model_dump_json()


def _sanitized(answer: Answer) -> Answer:
    data, changes = clean_value(answer.model_dump(mode="python"))
    cleaned = Answer.model_validate(data)
    if changes:
        cleaned.sanitized.append(describe_changes(changes))
    return cleaned


def _without_previews(answer: Answer, size: int, limit: int) -> Answer:
    steps = [step.model_copy(update={"preview": []}) for step in answer.steps]
    note = f"result previews dropped: the answer was {size:,} characters, over the store's {limit:,}"
    return answer.model_copy(update={"steps": steps, "sanitized": [*answer.sanitized, note]})


def unstorable_answer(answer: Answer, reason: str) -> Answer:
    """An error answer in place of one that cannot be stored, keeping its question, system and usage."""
    system, _ = clean_value(answer.system.model_dump(mode="python"))
    usage = answer.usage
    return Answer(
        question_id=answer.question_id,
        system=SystemSpec.model_validate(system),
        usage=usage,
        status="error",
        error=f"the answer could not be stored: {clean_value(reason)[0]}",
        sanitized=[f"answer replaced by an error: {clean_value(reason)[0][:200]}"],
    )
