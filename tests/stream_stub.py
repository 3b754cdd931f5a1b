"""An OpenAI-compatible server on loopback that streams its replies as server-sent events, as vLLM, llama.cpp's
server and OpenAI do, or misbehaves as some servers do: it ignores `stream`, refuses `stream_options`, sends no
token counts, or cuts a stream short."""

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = ("usage", "every_chunk", "no_usage", "ignore", "refuse_options", "plain_counts")
"""`usage`: token counts in a last chunk when `stream_options.include_usage` asks; `every_chunk`: counts so far in
every chunk (vLLM's continuous usage); `no_usage`: no counts, streamed or plain; `ignore`: a plain JSON reply
whatever is asked; `refuse_options`: 400 for a request with `stream_options` (as pydantic words it), and counts in a
last chunk unasked (as llama.cpp's server does); `plain_counts`: counts only in plain replies."""


@dataclass
class StreamServer:
    """What the server answers and what it saw."""

    reply: Callable[[dict], str]
    mode: str = "usage"
    pause: float = 0.0
    """Seconds between two chunks."""
    cuts: int = 0
    """Streams to cut short (after two pieces, with no finish reason) before answering whole ones."""
    requests: list[dict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def pieces(text: str) -> list[str]:
    """The pieces a reply is streamed in (one token each, as the server counts them)."""
    return re.findall(r"\s*\S+|\s+", text) or [""]


def plain_body(state: StreamServer, body: dict) -> dict:
    """The JSON of a reply that is not streamed."""
    text = state.reply(body)
    payload: dict[str, Any] = {
        "id": "stub",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "stub"),
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
    }
    if state.mode != "no_usage":
        count = len(pieces(text))
        payload["usage"] = {"prompt_tokens": 11, "completion_tokens": count, "total_tokens": 11 + count}
    return payload


def _handler(state: StreamServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(body)
                cut = state.cuts > 0 and bool(body.get("stream")) and state.mode != "ignore"
                state.cuts -= int(cut)
            if state.mode == "refuse_options" and "stream_options" in body:
                message = "1 validation error: stream_options Extra inputs are not permitted"
                self._json(400, {"error": {"message": message, "type": "invalid_request_error"}})
            elif not body.get("stream") or state.mode == "ignore":
                self._json(200, plain_body(state, body))
            else:
                self._stream(body, cut)

        def _json(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _event(self, payload: dict | str) -> None:
            data = payload if isinstance(payload, str) else json.dumps(payload)
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()
            if state.pause:
                time.sleep(state.pause)

        def _stream(self, body: dict, cut: bool) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()  # HTTP/1.0: the body ends when the connection closes
            text = state.reply(body)
            parts = pieces(text)
            head = {"id": "stub", "object": "chat.completion.chunk", "created": 0, "model": body.get("model", "stub")}
            asked = (body.get("stream_options") or {}).get("include_usage")
            self._event({**head, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]})
            for number, part in enumerate(parts, 1):
                if cut and number > 2:
                    return
                last = number == len(parts)
                chunk: dict[str, Any] = {
                    **head,
                    "choices": [{"index": 0, "delta": {"content": part}, "finish_reason": "stop" if last else None}],
                }
                if state.mode == "every_chunk":
                    chunk["usage"] = {"prompt_tokens": 11, "completion_tokens": number, "total_tokens": 11 + number}
                self._event(chunk)
            if (state.mode == "usage" and asked) or state.mode == "refuse_options":
                usage = {"prompt_tokens": 11, "completion_tokens": len(parts), "total_tokens": 11 + len(parts)}
                self._event({**head, "choices": [], "usage": usage})
            self._event("[DONE]")

    return Handler


@contextmanager
def stream_server(reply: Callable[[dict], str], **settings: Any) -> Iterator[tuple[str, StreamServer]]:
    """Serve on 127.0.0.1 (a free port); yield the base URL (…/v1) and the state."""
    state = StreamServer(reply, **settings)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        server.shutdown()
        server.server_close()
