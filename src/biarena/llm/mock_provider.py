"""MockProvider: scripted replies for tests; records every request."""

import threading
from collections.abc import Callable

from biarena.llm.types import ChatRequest, Completion, ModelError, RetryableError

Reply = str | Exception | Callable[[ChatRequest], str]


class MockProvider:
    """Replies from a script, in order (the last one repeats), or from a function of the request."""

    name = "mock"

    def __init__(self, replies: list[Reply] | None = None, model: str = "scripted") -> None:
        self.model = model
        self.replies: list[Reply] = list(replies or ["SELECT 1"])
        self.requests: list[ChatRequest] = []
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest) -> Completion:
        """Return the next scripted reply; a scripted exception is raised instead."""
        with self._lock:
            self.requests.append(request)
            index = min(len(self.requests) - 1, len(self.replies) - 1)
            reply = self.replies[index]
        if isinstance(reply, Exception):
            raise reply
        text = reply(request) if callable(reply) else reply
        prompt = sum(len(content.split()) for _, content in request.messages)
        return Completion(text=text, prompt_tokens=prompt, completion_tokens=len(text.split()))


__all__ = ["MockProvider", "ModelError", "RetryableError"]
