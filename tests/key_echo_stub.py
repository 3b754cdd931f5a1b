"""A server on loopback that quotes back the key it was sent, in every form an attacker would try: an
OpenAI-compatible model endpoint (its replies, streamed or not, its error bodies and its `/v1/models` entries) and an
external http system (`POST /system`)."""

import base64
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote


def _b64(text: str, *, urlsafe: bool = False, padded: bool = True) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    encoded = encode(text.encode()).decode()
    return encoded if padded else encoded.rstrip("=")


FORMS: dict[str, Callable[[str], str]] = {
    "plain": lambda key: key,
    "url-encoded": lambda key: quote(key, safe=""),
    "percent every byte": lambda key: "".join(f"%{byte:02X}" for byte in key.encode()),
    "percent every byte, lower": lambda key: "".join(f"%{byte:02x}" for byte in key.encode()),
    "base64": lambda key: _b64(key),
    "base64 unpadded": lambda key: _b64(key, padded=False),
    "base64 url-safe": lambda key: _b64(key, urlsafe=True),
    "base64 url-safe unpadded": lambda key: _b64(key, urlsafe=True, padded=False),
    "base64 of 'Bearer KEY'": lambda key: _b64(f"Bearer {key}"),
    "base64 of 'user:KEY'": lambda key: _b64(f"user:{key}"),
    "base64 url-safe of 'x-KEY'": lambda key: _b64(f"x-{key}", urlsafe=True, padded=False),
    "reversed": lambda key: key[::-1],
    "hex": lambda key: key.encode().hex(),
}
"""How a server may quote a key back, each a function of the key."""


@dataclass
class Echo:
    """What the server quotes and how, and what it saw."""

    form: Callable[[str], str] = FORMS["plain"]
    """The form the key is quoted in."""
    system_key: str = ""
    """The key the http system quotes (it is sent none: it knows it as a command system would, from the
    environment)."""
    chunk: int = 0
    """Streamed replies come in pieces this many characters long (0: a reply is not streamed even when asked)."""
    error: int = 0
    """Chat requests (and the http system) are answered with this status, its body quoting the key (0: answered)."""
    places: frozenset[str] = frozenset({"reply", "models"})
    """Where the model endpoint quotes the key: `reply` (its chat replies), `models` (its /v1/models entry)."""
    authorizations: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def quoted(self, key: str) -> str:
        """The key as this server quotes it."""
        return self.form(key)


def key_of(headers: Any) -> str:
    """The bearer key a request carried ('' for none)."""
    given = headers.get("Authorization", "")
    return given[7:] if given.startswith("Bearer ") else ""


def reply_text(body: dict, quoted: str) -> str:
    """A reply that quotes `quoted` in its plan, SQL and answer, whatever the agent asked."""
    return (
        f"Plan: read the key {quoted} back.\n\nQuery 1: the key {quoted}\n```sql\nSELECT '{quoted}' AS k\n```\n"
        f"The key is {quoted}."
    )


def _handler(state: Echo) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args: Any) -> None:
            pass

        def _key(self) -> str:
            with state.lock:
                state.authorizations.append(self.headers.get("Authorization", ""))
            return key_of(self.headers)

        def do_GET(self) -> None:
            key = self._key()
            quoted = state.quoted(key) if "models" in state.places else "someone"
            entry = {"id": "m", "object": "model", "owned_by": f"org {quoted}", "meta": {"note": f"for {quoted}"}}
            self._json(200, {"object": "list", "data": [entry]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path.endswith("/system"):
                quoted = state.quoted(state.system_key)
                if state.error:
                    self._json(state.error, {"error": f"{'x' * 250} bad key {quoted}"})  # past a preview's cut
                    return
                self._json(200, {"sql": f"SELECT '{quoted}' AS k", "answer": f"The key is {quoted}", "plan": quoted})
                return
            quoted = state.quoted(self._key())
            if state.error:
                self._json(state.error, {"error": {"message": f"Incorrect API key provided: {quoted}", "type": "x"}})
                return
            text = reply_text(body, quoted if "reply" in state.places else "none")
            if body.get("stream") and state.chunk:
                self._stream(body, text)
                return
            choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
            usage = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
            reply = {"id": "e", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice]}
            self._json(200, {**reply, "usage": usage})

        def _stream(self, body: dict, text: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            head = {"id": "e", "object": "chat.completion.chunk", "created": 0, "model": "m"}
            pieces = [text[start : start + state.chunk] for start in range(0, len(text), state.chunk)]
            for number, piece in enumerate(pieces, 1):
                finish = "stop" if number == len(pieces) else None
                delta = {"index": 0, "delta": {"content": piece}, "finish_reason": finish}
                self._event({**head, "choices": [delta]})
            if (body.get("stream_options") or {}).get("include_usage"):
                self._event({**head, "choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": len(pieces)}})
            self.wfile.write(b"data: [DONE]\n\n")

        def _event(self, payload: dict) -> None:
            self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
            self.wfile.flush()

        def _json(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def key_echo(**settings: Any) -> Iterator[tuple[str, Echo]]:
    """Serve on 127.0.0.1 (a free port); yield the base URL (…/v1; the http system is at …/v1/system) and the
    state."""
    state = Echo(**settings)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        server.shutdown()
        server.server_close()
