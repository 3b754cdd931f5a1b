"""Tool calls written as text: Qwen's `<tool_call>` blocks read into OpenAI tool calls, a forced call's schema, and
call ids that a cached reply keeps."""

import contextlib
import hashlib
import json
import re
from typing import Any

from biarena.llm.types import ToolCall

_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def tool_names(tools: list[dict[str, Any]]) -> list[str]:
    """The names of the functions in OpenAI's `tools`."""
    functions = (tool.get("function") or {} for tool in tools if tool.get("type", "function") == "function")
    return [str(function.get("name", "")) for function in functions]


def call_id(seed: str, index: int) -> str:
    """A tool call's id made from what the reply answers (`seed`) and the call's place in it: the same reply read
    again (from the cache) names its calls alike, and calls of different replies differ."""
    return "call_" + hashlib.sha256(f"{seed}\n{index}".encode()).hexdigest()[:24]


def read_tool_calls(text: str, tools: list[dict[str, Any]], seed: str) -> tuple[str, tuple[ToolCall, ...]]:
    """The text left and the calls found in a reply written in Qwen's format (each call a `<tool_call>{"name": ...,
    "arguments": {...}}</tool_call>` block; a reply that is nothing but such an object, bare or in a ```json fence,
    is one call too). A call of a function the request did not offer, or that is no such object, stays in the text."""
    names = set(tool_names(tools))
    calls: list[ToolCall] = []
    kept: list[str] = []
    end = 0
    for match in _BLOCK.finditer(text):
        found = _call(match.group(1), names)
        if found is None:
            continue
        kept.append(text[end : match.start()])
        end = match.end()
        calls.append(ToolCall(call_id(seed, len(calls)), *found))
    kept.append(text[end:])
    if not calls:
        bare = text.strip()
        fenced = _FENCE.match(bare)
        found = _call(fenced.group(1) if fenced else bare, names)
        if found is not None:
            return "", (ToolCall(call_id(seed, 0), *found),)
    return "".join(kept).strip() if calls else text, tuple(calls)


def _call(body: str, names: set[str]) -> tuple[str, str] | None:
    """A function's name and its arguments' JSON text, from the JSON object of one call."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("name") not in names:
        return None
    arguments = data.get("arguments", data.get("parameters", {}))
    if isinstance(arguments, str):  # some models write the arguments as JSON text, as the API carries them
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(arguments, dict):
        return None
    return str(data["name"]), json.dumps(arguments, ensure_ascii=False)


def forced_call_schema(tools: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The JSON schema of a reply that must be one call: of function `name`, or of any of the tools when `name` is
    empty (a grammar built from it lets the model write nothing else)."""
    chosen = [tool for tool in tools if not name or (tool.get("function") or {}).get("name") == name]
    options = [
        {
            "type": "object",
            "properties": {
                "name": {"const": tool["function"]["name"]},
                "arguments": tool["function"].get("parameters") or {"type": "object"},
            },
            "required": ["name", "arguments"],
        }
        for tool in chosen
    ]
    return options[0] if len(options) == 1 else {"anyOf": options}


def forced_call(text: str, tools: list[dict[str, Any]], seed: str) -> tuple[ToolCall, ...]:
    """The one call a reply constrained by `forced_call_schema` holds (none when it does not parse)."""
    found = _call(text.strip(), set(tool_names(tools)))
    return (ToolCall(call_id(seed, 0), *found),) if found is not None else ()


def llama_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A tool loop's messages as a Hugging Face chat template reads them: each call's arguments as an object (the
    template writes them with `tojson`), and text where OpenAI allows none."""
    shaped = []
    for message in messages:
        message = {**message, "content": message.get("content") or ""}
        if message.get("tool_calls"):
            message["tool_calls"] = [_llama_call(call) for call in message["tool_calls"]]
        shaped.append(message)
    return shaped


def _llama_call(call: dict[str, Any]) -> dict[str, Any]:
    function = dict(call.get("function") or {})
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        with contextlib.suppress(ValueError):  # else kept as the model wrote it
            function["arguments"] = json.loads(arguments)
    return {**call, "function": function}
