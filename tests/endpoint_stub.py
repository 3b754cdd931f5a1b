"""OpenAI-compatible servers on loopback that misbehave as real ones do: down, hanging, rate limiting, failing,
cutting a reply short; each lists its models and may require a key."""

import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Action = tuple[Any, ...]
"""What to do with one chat request: ("reply",), ("status", CODE, {HEADER: VALUE}), ("cut",) (a reply cut off in
the middle of its JSON), ("garbled",) (a whole reply that is not JSON), ("hang",) (never answer)."""


@dataclass
class Endpoint:
    """What a stub server answers and what it saw."""

    reply: Callable[[dict], str]
    actions: list[Action] = field(default_factory=list)
    key: str | None = None
    """The API key the server wants (401 for any other), as `Authorization: Bearer KEY`."""
    header_keys: dict[str, str] = field(default_factory=dict)
    """Other headers the server wants with these values (401 for any other): `X-Api-Key`, Azure's `api-key`."""
    echo: bool = False
    """Error bodies quote the keys the request carried, as some gateways do."""
    models: list[dict] | None = field(default_factory=lambda: [])
    """The /v1/models entries (None: the server has no model list, 404)."""
    requests: list[dict] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    """The path (with its query) of each request, in order."""
    authorizations: list[str] = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event)
    """Set to let hanging requests go (so the server can shut down)."""
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(state: Endpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _authorized(self) -> bool:
            given = self.headers.get("Authorization", "")
            with state.lock:
                state.authorizations.append(given)
                state.paths.append(self.path)
            if state.key is not None and given != f"Bearer {state.key}":
                # as OpenAI does, the error quotes the key it was given
                self._send(401, {"error": {"message": f"Incorrect API key provided: {given[7:]}", "type": "auth"}})
                return False
            for name, wanted in state.header_keys.items():
                if self.headers.get(name) != wanted:
                    self._send(401, {"error": {"message": f"{name} {self.headers.get(name)} is not valid"}})
                    return False
            return True

        def _quoted_keys(self) -> str:
            names = ["Authorization", *state.header_keys]
            return "; request keys: " + ", ".join(f"{name}: {self.headers.get(name)}" for name in names)

        def do_GET(self) -> None:
            if not self._authorized():
                return
            if state.models is None or not self.path.endswith("/models"):
                self._send(404, {"error": {"message": "not found"}})
                return
            self._send(200, {"object": "list", "data": state.models})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(body)
                action = state.actions.pop(0) if state.actions else ("reply",)
            if action[0] == "hang":
                state.released.wait(60)
                self.close_connection = True
                return
            if not self._authorized():
                return
            if action[0] == "status":
                status, headers = action[1], action[2] if len(action) > 2 else {}
                message = f"stub failure {status}" + (self._quoted_keys() if state.echo else "")
                self._send(status, {"error": {"message": message, "type": "stub"}}, headers)
                return
            text = state.reply(body)
            payload = {
                "id": "stub",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "stub"),
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 11, "completion_tokens": len(text.split()), "total_tokens": 11},
            }
            data = json.dumps(payload).encode()
            if action[0] == "cut":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if action[0] == "garbled":
                data = data[: len(data) // 2]
            self._send_bytes(200, data, {})

        def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
            self._send_bytes(status, json.dumps(payload).encode(), headers or {})

        def _send_bytes(self, status: int, data: bytes, headers: dict) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


def free_port() -> int:
    """A loopback port nothing listens on (a server that is down)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def endpoint(reply: Callable[[dict], str], port: int = 0, **settings: Any) -> Iterator[tuple[str, Endpoint]]:
    """Serve on 127.0.0.1 (`port`, or a free one); yield the base URL (…/v1) and the state."""
    state = Endpoint(reply, **settings)
    server = ThreadingHTTPServer(("127.0.0.1", port), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        state.released.set()
        server.shutdown()
        server.server_close()


@contextmanager
def hanging_server() -> Iterator[str]:
    """A server that accepts connections and never says a word; yields its base URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)  # the kernel accepts into the backlog; nobody ever reads
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        listener.close()
