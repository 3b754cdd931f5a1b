"""An OpenAI-compatible chat completions server on loopback, for tests and benchmarks."""

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[dict], "str | tuple[str, str]"]
"""The reply text for a request body, or (text, finish_reason)."""

Reject = Callable[[dict], "tuple[int, str] | None"]
"""An error (status, message) to answer a request body with, or None to answer it."""


class StubState:
    """What the stub answers and what it saw."""

    def __init__(
        self, reply: Reply, failures: list[int] | None = None, latency: float = 0.0, reject: Reject | None = None
    ) -> None:
        self.reply = reply
        self.failures = list(failures or [])
        self.latency = latency
        self.reject = reject
        self.requests: list[dict] = []
        self.lock = threading.Lock()


def _handler(state: StubState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # Connections stay open between requests, and replies go out without waiting for the client's
        # acknowledgements (TCP_NODELAY), as an OpenAI-compatible server serves them: every reply says its length.
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(body)
                failure = state.failures.pop(0) if state.failures else None
            if state.latency:
                time.sleep(state.latency)
            if failure:
                self._send(failure, {"error": {"message": f"stub failure {failure}", "type": "stub"}})
                return
            rejected = state.reject(body) if state.reject else None
            if rejected:
                status, message = rejected
                self._send(status, {"error": {"message": message, "type": "stub", "param": None, "code": None}})
                return
            reply = state.reply(body)
            text, finish_reason = reply if isinstance(reply, tuple) else (reply, "stop")
            self._send(
                200,
                {
                    "id": "stub",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "stub"),
                    "choices": [
                        {"index": 0, "finish_reason": finish_reason, "message": {"role": "assistant", "content": text}}
                    ],
                    "usage": {"prompt_tokens": 11, "completion_tokens": len(text.split()), "total_tokens": 11},
                },
            )

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


class _Server(ThreadingHTTPServer):
    # Connections made at once are queued, as a server's listening socket queues them (socketserver's default of 5
    # drops the rest of a burst, and their clients try again a second later).
    request_queue_size = 128


@contextmanager
def openai_stub(
    reply: Reply, failures: list[int] | None = None, latency: float = 0.0, reject: Reject | None = None
) -> Iterator[tuple[str, StubState]]:
    """Serve on 127.0.0.1 (a free port); yield the base URL (…/v1) and the state."""
    state = StubState(reply, failures, latency, reject)
    server = _Server(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        server.shutdown()
        server.server_close()
