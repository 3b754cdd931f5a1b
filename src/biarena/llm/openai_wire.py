"""OpenAI's chat completions wire format on the serving side: a request body read into a `ChatRequest`, and a
`Completion` written back as a reply body or as the chunks of a streamed one."""

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from biarena.llm.types import ChatRequest, Completion

ROLES = ("system", "developer", "user", "assistant", "tool")
"""The message roles a request may hold (`developer` is read as `system`)."""

DEFAULT_MAX_TOKENS = 1024
"""The reply's token budget when a request names none."""

_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_CHOICES = ("none", "auto", "required")
_FINISHES = ("stop", "length", "tool_calls", "content_filter")


class WireError(ValueError):
    """A request body that is not a chat completion request this server can answer; `param` names the field."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class ChatCall:
    """A chat completion request as the server reads it: what to ask the model, and how to send the reply."""

    request: ChatRequest
    stream: bool = False
    include_usage: bool = False
    """Streamed: end with a chunk that carries the token counts (`stream_options.include_usage`)."""
    parallel_tool_calls: bool = True
    """A reply may call several tools (`parallel_tool_calls: false`: only its first call is sent)."""


def read_chat_call(body: Any, max_tokens: int = DEFAULT_MAX_TOKENS) -> ChatCall:
    """The request a chat completion body asks (temperature 0 and seed 0 unless it says, so a reply is reproducible
    and cached); WireError names the first field that is wrong."""
    if not isinstance(body, dict):
        raise WireError("the body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise WireError("messages must be a non-empty list", "messages")
    tools = _tools(body.get("tools"))
    choice = _tool_choice(body.get("tool_choice"), tools)
    n = body.get("n")
    if n is not None and n != 1:
        raise WireError("n: this server writes one choice per request", "n")
    request = ChatRequest.make(
        [_message(message, index) for index, message in enumerate(messages)],
        temperature=_number(body, "temperature", 0.0, 0.0, 2.0),
        max_tokens=_tokens(body, max_tokens),
        schema=_schema(body.get("response_format")),
        seed=_integer(body, "seed", 0),
        stop=_stop(body.get("stop")),
        tools=tools or None,
        tool_choice=choice,
    )
    top_p = body.get("top_p")
    if top_p is not None:
        request = replace(request, top_p=_number(body, "top_p", 1.0, 0.0, 1.0))
    stream = body.get("stream") or False
    if not isinstance(stream, bool):
        raise WireError("stream must be true or false", "stream")
    options = body.get("stream_options") or {}
    if not isinstance(options, dict):
        raise WireError("stream_options must be an object", "stream_options")
    parallel = body.get("parallel_tool_calls", True)
    if not isinstance(parallel, bool):
        raise WireError("parallel_tool_calls must be true or false", "parallel_tool_calls")
    return ChatCall(request, stream, bool(options.get("include_usage")), parallel)


def sent_reply(call: ChatCall, completion: Completion) -> Completion:
    """The reply as the request allows it sent: its first tool call alone when it asks for no parallel calls."""
    if call.parallel_tool_calls or len(completion.tool_calls) < 2:
        return completion
    return replace(completion, tool_calls=completion.tool_calls[:1])


def _message(message: Any, index: int) -> dict[str, Any]:
    where = f"messages[{index}]"
    if not isinstance(message, dict):
        raise WireError(f"{where} must be an object", where)
    role = message.get("role")
    if role not in ROLES:
        raise WireError(f"{where}.role must be one of {', '.join(ROLES)}, not {role!r}", f"{where}.role")
    content = _content(message.get("content"), f"{where}.content")
    shaped: dict[str, Any] = {"role": "system" if role == "developer" else role, "content": content}
    if role == "assistant" and message.get("tool_calls"):
        shaped["tool_calls"] = _calls(message["tool_calls"], f"{where}.tool_calls")
    elif content is None:
        raise WireError(f"{where}.content is missing", f"{where}.content")
    if role == "tool":
        call = message.get("tool_call_id")
        if not isinstance(call, str) or not call:
            raise WireError(f"{where}.tool_call_id is missing (a tool result names the call it answers)", where)
        shaped["tool_call_id"] = call
    return shaped


def _content(content: Any, where: str) -> str | None:
    """A message's text: a string, or the text parts of a list (another kind of part is refused)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                kind = part.get("type") if isinstance(part, dict) else type(part).__name__
                raise WireError(f"{where}: only text parts are read, not {kind!r}", where)
            texts.append(part["text"])
        return "".join(texts)
    raise WireError(f"{where} must be text or a list of text parts", where)


def _calls(calls: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(calls, list):
        raise WireError(f"{where} must be a list", where)
    read = []
    for index, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise WireError(f"{where}[{index}] must be {{id, type: function, function: {{name, arguments}}}}", where)
        arguments = function.get("arguments", "{}")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        read.append(
            {
                "id": str(call.get("id") or ""),
                "type": "function",
                "function": {"name": function["name"], "arguments": arguments},
            }
        )
    return read


def _tools(tools: Any) -> list[dict[str, Any]]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise WireError("tools must be a list", "tools")
    read = []
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type", "function") != "function" or not isinstance(function, dict):
            raise WireError(f"{where} must be {{type: function, function: {{name, description, parameters}}}}", where)
        name = function.get("name")
        if not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
            raise WireError(f"{where}.function.name must be 1-64 letters, digits, _ or -", where)
        parameters = function.get("parameters")
        if parameters is not None and not isinstance(parameters, dict):
            raise WireError(f"{where}.function.parameters must be a JSON schema object", where)
        read.append({"type": "function", "function": function})
    names = [tool["function"]["name"] for tool in read]
    if len(set(names)) < len(names):
        raise WireError("tools: two tools have the same name", "tools")
    return read


def _tool_choice(choice: Any, tools: list[dict[str, Any]]) -> str | dict[str, Any] | None:
    if choice is None:
        return None
    if isinstance(choice, str):
        if choice not in _CHOICES:
            raise WireError(f"tool_choice must be one of {', '.join(_CHOICES)} or a function", "tool_choice")
        if choice == "required" and not tools:
            raise WireError("tool_choice is required but there are no tools", "tool_choice")
        return choice
    name = (choice.get("function") or {}).get("name") if isinstance(choice, dict) else None
    if not isinstance(name, str):
        raise WireError('tool_choice must be {"type": "function", "function": {"name": NAME}}', "tool_choice")
    if name not in [tool["function"]["name"] for tool in tools]:
        raise WireError(f"tool_choice names '{name}', which is not one of the tools", "tool_choice")
    return {"type": "function", "function": {"name": name}}


def _schema(response_format: Any) -> dict[str, Any] | None:
    if response_format is None:
        return None
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind == "text":
        return None
    if kind == "json_object":
        return {"type": "object"}
    if kind == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
        if not isinstance(schema, dict):
            raise WireError("response_format.json_schema.schema must be a JSON schema object", "response_format")
        return schema
    raise WireError("response_format.type must be text, json_object or json_schema", "response_format")


def _number(body: dict[str, Any], name: str, default: float, low: float, high: float) -> float:
    value = body.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise WireError(f"{name} must be a number from {low:g} to {high:g}", name)
    return float(value)


def _integer(body: dict[str, Any], name: str, default: int) -> int:
    value = body.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise WireError(f"{name} must be an integer", name)
    return value


def _tokens(body: dict[str, Any], default: int) -> int:
    name = "max_completion_tokens" if body.get("max_completion_tokens") is not None else "max_tokens"
    value = _integer(body, name, default)
    if value < 1:
        raise WireError(f"{name} must be at least 1", name)
    return value


def _stop(stop: Any) -> tuple[str, ...]:
    if stop is None:
        return ()
    if isinstance(stop, str):
        return (stop,)
    if isinstance(stop, list) and all(isinstance(item, str) and item for item in stop):
        return tuple(stop)
    raise WireError("stop must be a string or a list of strings", "stop")


def _finish(completion: Completion) -> str:
    """The finish reason as OpenAI's API names it."""
    if completion.tool_calls:
        return "tool_calls"
    return completion.finish_reason if completion.finish_reason in _FINISHES else "stop"


def _usage(completion: Completion) -> dict[str, int]:
    prompt, written = completion.prompt_tokens, completion.completion_tokens
    return {"prompt_tokens": prompt, "completion_tokens": written, "total_tokens": prompt + written}


def completion_body(completion: Completion, *, model: str, reply_id: str, created: int) -> dict[str, Any]:
    """A reply body (`chat.completion`)."""
    message: dict[str, Any] = {"role": "assistant", "content": completion.text}
    if completion.tool_calls:
        message["content"] = completion.text or None
        message["tool_calls"] = [call.wire() for call in completion.tool_calls]
    return {
        "id": reply_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": _finish(completion)}],
        "usage": _usage(completion),
    }


def completion_chunks(
    completion: Completion, *, model: str, reply_id: str, created: int, include_usage: bool = False
) -> Iterator[dict[str, Any]]:
    """A reply as the chunks of a stream (`chat.completion.chunk`): the role, the text a few words at a time, each
    tool call's name then its arguments, the finish reason, and the token counts when asked."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": reply_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    yield chunk({"role": "assistant", "content": ""})
    words = re.findall(r"\s*\S+\s*", completion.text) or ([completion.text] if completion.text else [])
    for start in range(0, len(words), 4):
        yield chunk({"content": "".join(words[start : start + 4])})
    for index, call in enumerate(completion.tool_calls):
        opening = {"index": index, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        yield chunk({"tool_calls": [opening]})
        yield chunk({"tool_calls": [{"index": index, "function": {"arguments": call.arguments}}]})
    yield chunk({}, _finish(completion))
    if include_usage:
        yield {
            "id": reply_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [],
            "usage": _usage(completion),
        }


def error_body(
    message: str, kind: str = "invalid_request_error", param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """An error as OpenAI's API writes it."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}
