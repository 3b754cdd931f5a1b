"""MockScript: the mock model's replies from a script file, each conversation following it on its own.

A script (YAML or JSON) lists replies, each text or tool calls::

    replies:
      - tool_calls: [{name: list_tables}]
      - tool_calls:
          - name: run_query
            arguments: {sql: "SELECT COUNT(*) FROM orders"}
      - text: "There are {{tool_result}} orders."

A request is answered by the reply at its step: the number of assistant messages since its last user message (each
earlier reply of the conversation, with its tool calls, is one), so conversations served at once each follow the
script from its start; past the end, the last reply repeats. `conversations:` instead of `replies:` holds several
scripts, each with an optional `when:` (words the last user message contains, case aside); the first that matches
is followed. `{{tool_result}}` (the last tool result's content since that user message) and `{{question}}` (the
last user message) are filled in, in text and in the arguments' strings.
"""

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from biarena.errors import FormatError, NotFoundError
from biarena.llm.tool_calls import call_id
from biarena.llm.types import ChatRequest, Completion, ToolCall


def _as_replies(replies: Any) -> Any:
    """A reply written as a text alone stands for `{text: ...}`."""
    if isinstance(replies, list):
        return [{"text": reply} if isinstance(reply, str) else reply for reply in replies]
    return replies


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScriptedCall(_Strict):
    """A function the reply asks to run."""

    name: str = Field(min_length=1)
    """The function's name."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """Its arguments (an object)."""


class ScriptedReply(_Strict):
    """One reply: text, tool calls, or both."""

    text: str = ""
    """The reply's text (with tool calls: what the model says beside them)."""
    tool_calls: list[ScriptedCall] = Field(default_factory=list)
    """The functions the reply asks to run, in order."""


class ScriptedConversation(_Strict):
    """The replies of one kind of conversation, in order."""

    when: str | None = None
    """Words the last user message contains (case aside) for this conversation to be followed; none: any."""
    replies: list[ScriptedReply] = Field(min_length=1)
    """The replies in order (a text alone stands for `{text: ...}`)."""

    @field_validator("replies", mode="before")
    @classmethod
    def _texts(cls, replies: Any) -> Any:
        return _as_replies(replies)


class ScriptFile(_Strict):
    """A script file: `replies` (one conversation) or `conversations` (the first whose `when` matches)."""

    replies: list[ScriptedReply] | None = Field(None, min_length=1)
    """The replies of every conversation, in order."""
    conversations: list[ScriptedConversation] | None = Field(None, min_length=1)
    """Scripts for kinds of conversation, the first whose `when` matches followed (else the last)."""

    @field_validator("replies", mode="before")
    @classmethod
    def _texts(cls, replies: Any) -> Any:
        return _as_replies(replies)

    @model_validator(mode="after")
    def _one_form(self) -> "ScriptFile":
        if (self.replies is None) == (self.conversations is None):
            raise ValueError("a script has either `replies` or `conversations`")
        return self


class MockScript:
    """A reply function for `MockProvider`: the reply at each conversation's step of its script."""

    def __init__(self, conversations: list[ScriptedConversation], digest: str = "") -> None:
        self.conversations = conversations
        self.digest = digest
        """The script file's SHA-256, part of the cache key (an edited script replies anew)."""

    def __call__(self, request: ChatRequest) -> Completion:
        """The reply this request's conversation has reached."""
        messages = request.message_dicts()
        last_user = max((i for i, message in enumerate(messages) if message["role"] == "user"), default=-1)
        question = str(messages[last_user]["content"]) if last_user >= 0 else ""
        since = messages[last_user + 1 :]
        step = sum(1 for message in since if message["role"] == "assistant")
        results = [str(message["content"]) for message in since if message["role"] == "tool"]
        conversation = self._conversation(question)
        reply = conversation.replies[min(step, len(conversation.replies) - 1)]
        values = {"{{question}}": question, "{{tool_result}}": results[-1] if results else ""}
        seed = json.dumps([self.digest, request.messages], ensure_ascii=False)
        calls = tuple(
            ToolCall(call_id(seed, index), call.name, json.dumps(_filled(call.arguments, values), ensure_ascii=False))
            for index, call in enumerate(reply.tool_calls)
        )
        text = _filled(reply.text, values)
        return Completion(
            text=text,
            completion_tokens=len(text.split()) + sum(len(call.arguments.split()) for call in calls),
            finish_reason="tool_calls" if calls else "stop",
            tool_calls=calls,
        )

    def _conversation(self, question: str) -> ScriptedConversation:
        lowered = question.lower()
        for conversation in self.conversations:
            if conversation.when is None or conversation.when.lower() in lowered:
                return conversation
        return self.conversations[-1]


def _filled(value: Any, values: dict[str, str]) -> Any:
    """`value` with the placeholders filled in its text (and in the strings of a mapping or list)."""
    if isinstance(value, str):
        for placeholder, text in values.items():
            value = value.replace(placeholder, text)
        return value
    if isinstance(value, dict):
        return {key: _filled(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [_filled(item, values) for item in value]
    return value


def load_mock_script(path: Path) -> MockScript:
    """Read a script file (YAML or JSON); a mistake is one line naming the file and the field."""
    from biarena.yaml_load import load_yaml

    if not path.is_file():
        raise NotFoundError(f"mock script not found: {path}")
    try:
        raw = path.read_bytes()
        data = load_yaml(raw.decode("utf-8"), str(path), timestamps=False)
    except (OSError, UnicodeDecodeError) as error:
        raise FormatError(f"{path}: cannot read the mock script: {' '.join(str(error).split())}") from None
    try:
        script = ScriptFile.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise FormatError(f"{path}: {where + ': ' if where else ''}{first['msg']}") from None
    conversations = script.conversations or [ScriptedConversation(replies=script.replies or [])]
    return MockScript(conversations, hashlib.sha256(raw).hexdigest())
