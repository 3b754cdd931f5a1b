"""Structured output: the levels a server may support, the schema in the prompt, and parsing a reply."""

import json
import threading
from dataclasses import replace
from typing import Any

import jsonschema

from biarena.errors import UsageError, did_you_mean
from biarena.llm.types import ChatRequest

STRUCTURED_LEVELS = ("json_schema", "json_object", "prompt")
"""Ways to ask for JSON, best first: the server enforces the schema; the server returns some JSON object and the
schema is in the prompt; plain text with the schema in the prompt. Every reply is validated whatever the level."""

_REPLY_PREVIEW = 2000
"""Characters of a rejected reply quoted back to the model when asking again."""


def check_level(level: str | None) -> str | None:
    """A structured-output level named by a user, checked."""
    if level is not None and level not in STRUCTURED_LEVELS:
        raise UsageError(
            f"unknown structured output level '{level}' (known: {', '.join(STRUCTURED_LEVELS)})"
            + did_you_mean(level, list(STRUCTURED_LEVELS))
        )
    return level


class LevelMemory:
    """The structured-output level each endpoint accepted, remembered for the process (thread-safe)."""

    def __init__(self) -> None:
        self._levels: dict[str, int] = {}
        self._lock = threading.Lock()

    def levels(self, endpoint: str) -> tuple[str, ...]:
        """The levels still worth trying on `endpoint`, best first."""
        with self._lock:
            return STRUCTURED_LEVELS[self._levels.get(endpoint, 0) :]

    def accepted(self, endpoint: str, level: str) -> None:
        """Remember that `endpoint` accepted `level` (after rejecting every better one)."""
        with self._lock:
            self._levels[endpoint] = max(self._levels.get(endpoint, 0), STRUCTURED_LEVELS.index(level))

    def forget(self) -> None:
        """Forget every endpoint (for tests)."""
        with self._lock:
            self._levels.clear()


LEVELS = LevelMemory()
"""The process-wide memory of which level each endpoint accepts."""


def schema_instruction(schema: dict[str, Any]) -> str:
    """The words that put a JSON schema in a prompt."""
    # Naming the kind of value matters to small models: asked for "a JSON value", they answer a bare number.
    kind = {"object": "a JSON object", "array": "a JSON array"}.get(str(schema.get("type")), "one JSON value")
    text = json.dumps(schema, ensure_ascii=False)
    return f"Reply with only {kind} (no prose, no code fence) that is valid under this JSON schema:\n{text}"


def at_level(request: ChatRequest, level: str) -> ChatRequest:
    """The request as sent at a structured-output level: below `json_schema` the schema goes into the prompt."""
    schema = request.schema_dict()
    if schema is None or level == "json_schema":
        return replace(request, structured=level if schema is not None else None)
    messages = list(request.messages)
    # Appended to the last user turn rather than added as a new system turn: many chat templates accept only one
    # system message, at the start.
    for index in range(len(messages) - 1, -1, -1):
        role, content = messages[index]
        if role == "user":
            messages[index] = (role, f"{content}\n\n{schema_instruction(schema)}")
            break
    else:
        messages.append(("user", schema_instruction(schema)))
    return replace(request, messages=tuple(messages), structured=level)


def repair_request(request: ChatRequest, reply: str, problem: str) -> ChatRequest:
    """The request that asks again after an invalid reply: the reply, what is wrong with it, and the ask."""
    quoted = reply if len(reply) <= _REPLY_PREVIEW else reply[:_REPLY_PREVIEW] + " ..."
    ask = f"That reply cannot be used: {problem}. Reply again with only the corrected JSON value."
    return replace(request, messages=(*request.messages, ("assistant", quoted), ("user", ask)))


def json_values(text: str) -> list[Any]:
    """The top-level JSON objects and arrays in a reply, in order (a ```json block's first)."""
    found: list[Any] = []
    fenced = _fenced_blocks(text)
    for candidate in [*fenced, text]:
        found.extend(_scan(candidate))
    return found


def _fenced_blocks(text: str) -> list[str]:
    blocks, start = [], text.find("```")
    while start != -1:
        body_start = text.find("\n", start)
        end = text.find("```", start + 3)
        if body_start == -1 or end == -1:
            break
        if body_start < end:
            blocks.append(text[body_start + 1 : end])
        start = text.find("```", end + 3)
    return blocks


def _scan(text: str) -> list[Any]:
    decoder = json.JSONDecoder()
    values, position = [], 0
    while True:
        starts = [i for i in (text.find("{", position), text.find("[", position)) if i != -1]
        if not starts:
            return values
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            position = start + 1
            continue
        values.append(value)
        position = end  # a value's insides are not separate candidates


def _decode_error(text: str) -> str | None:
    """Why the first `{` or `[` of a text does not start valid JSON; None when it does or there is none."""
    starts = [i for i in (text.find("{"), text.find("[")) if i != -1]
    if not starts:
        return None
    try:
        json.JSONDecoder().raw_decode(text, min(starts))
    except json.JSONDecodeError as error:
        return f"the JSON is malformed ({error.msg} at line {error.lineno}, column {error.colno})"
    return None


def _schema_problem(value: Any, schema: dict[str, Any]) -> str | None:
    validator = jsonschema.validators.validator_for(schema)(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path)
    return f"the JSON does not match the schema: {error.message}" + (f" (at '{where}')" if where else "")


def parse_reply(text: str, schema: dict[str, Any], *, cut_off: bool = False) -> Any:
    """The first JSON value in a reply that the schema accepts; ValueError says what is wrong otherwise."""
    values = json_values(text)
    problems = []
    for value in values:
        problem = _schema_problem(value, schema)
        if problem is None:
            return value
        problems.append(problem)
    if not text.strip():
        raise ValueError("the reply is empty")
    if cut_off:
        raise ValueError("the reply was cut off at the token limit before its JSON ended; keep it shorter")
    # A broken outer value outranks a smaller value found inside or after it.
    main = (_fenced_blocks(text) or [text])[0]
    problem = _decode_error(main) or (problems[0] if problems else None)
    raise ValueError(problem or "there is no JSON object or array in it")
