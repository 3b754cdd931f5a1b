"""MockProvider: scripted replies for tests; records every request."""

import itertools
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from biarena.llm.model_options import ModelOptions
from biarena.llm.types import ChatRequest, Completion, ModelError, RetryableError

Reply = str | Completion | Exception | Callable[[ChatRequest], str | Completion]

_INSTANCES = itertools.count(1)


class MockProvider:
    """Replies from a script, in order (the last one repeats), or from a function of the request.

    A reply is text, a Completion (to script a finish reason, tool calls or log-probabilities), an exception to
    raise, or a function of the request returning either (it may raise, e.g. to reject a structured-output level).
    Like a real model, a text reply ends before the first of the request's stop sequences. A script file
    (`-M script=FILE.yaml`, `biarena.llm.mock_script`) is such a function: each conversation follows it on its own.
    """

    name = "mock"
    Options = ModelOptions
    takes_tools = True

    @classmethod
    def from_options(cls, options: ModelOptions, cache_dir: Path, **extra: Any) -> "MockProvider":
        """A mock named by `options` (mock:NAME), replying from `replies=`, else from the script file the options
        name, else a fixed reply."""
        replies = extra.get("replies")
        if replies is None and options.script is not None:
            from biarena.llm.mock_script import load_mock_script

            script = load_mock_script(options.script)
            mock = cls([script], model=options.name or "scripted")
            mock.script_digest = script.digest
            return mock
        return cls(replies, model=options.name or "scripted")

    def __init__(self, replies: list[Reply] | None = None, model: str = "scripted") -> None:
        self.model = model
        # each script is its own server: what one test teaches the structured-output memory stays with it
        self.endpoint = f"mock:{model}#{next(_INSTANCES)}"
        self.replies: list[Reply] = list(replies or ["SELECT 1"])
        self.requests: list[ChatRequest] = []
        self.script_digest = ""
        """The SHA-256 of the script file replying, if one does: part of the cache key."""
        self._lock = threading.Lock()

    def request_payload(self, request: ChatRequest) -> dict[str, Any]:
        """What the script is asked: the request's fields (and which script file answers)."""
        fields = request.fields()
        return {**fields, "script": self.script_digest} if self.script_digest else fields

    def complete(self, request: ChatRequest) -> Completion:
        """Return the next scripted reply; a scripted exception is raised instead."""
        with self._lock:
            self.requests.append(request)
            index = min(len(self.requests) - 1, len(self.replies) - 1)
            reply = self.replies[index]
        if isinstance(reply, Exception):
            raise reply
        if callable(reply):
            reply = reply(request)
        prompt = sum(len(message[1].split()) for message in request.messages)
        if isinstance(reply, Completion):
            # like a server, a scripted reply's log-probabilities are given only when asked for, as many as asked
            logprobs = tuple(
                replace(token, top=token.top[: request.logprobs]) for token in reply.logprobs if request.logprobs
            )
            return replace(reply, prompt_tokens=reply.prompt_tokens or prompt, logprobs=logprobs)
        cut = min((i for i in (reply.find(stop) for stop in request.stop) if i >= 0), default=-1)
        if cut >= 0:
            reply = reply[:cut]
        finish = "stop" if cut >= 0 else None
        return Completion(text=reply, prompt_tokens=prompt, completion_tokens=len(reply.split()), finish_reason=finish)


__all__ = ["MockProvider", "ModelError", "RetryableError"]
