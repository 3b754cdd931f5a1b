"""Log-probabilities: asked for only when a request wants them (a request without keeps its cache key), read from
plain and streamed replies of an OpenAI-compatible server, kept by the cache, scripted through the mock, and a
server that refuses them answered without them."""

import json
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from biarena.llm import ChatRequest, Completion, MockProvider, Model, TokenLogprob, get_model, resolve_model
from biarena.llm.cache import ResponseCache
from biarena.llm.openai_provider import OpenAIProvider

ASK = [{"role": "user", "content": "Rate it from 1 to 5."}]
TOP = [{"token": "4", "logprob": -0.4}, {"token": "5", "logprob": -1.2}, {"token": "3", "logprob": -2.5}]


def _entry(token: str, top: int) -> dict[str, Any]:
    alternatives = TOP if token == "4" else [{"token": token, "logprob": -0.01}]
    return {"token": token, "logprob": alternatives[0]["logprob"], "bytes": None, "top_logprobs": alternatives[:top]}


@contextmanager
def logprob_server(mode: str = "streamed") -> Iterator[tuple[str, list[dict]]]:
    """A loopback server replying "4 2", with log-probabilities when asked: `streamed` (with token counts),
    `ignore` (a plain reply whatever is asked), `plain_counts` (counts only in plain replies, so the client asks
    plainly), `refuse` (400 for a request with log-probabilities)."""
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body)
            if mode == "refuse" and body.get("logprobs"):
                self._send(400, {"error": {"message": "logprobs is not supported", "type": "invalid_request_error"}})
                return
            tokens = ["4", " ", "2"]
            top = body.get("top_logprobs") or 0
            logprobs = {"content": [_entry(t, top) for t in tokens]} if body.get("logprobs") else None
            head = {"id": "x", "created": 0, "model": body["model"]}
            usage = {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}
            if not body.get("stream") or mode == "ignore":
                message = {"role": "assistant", "content": "".join(tokens)}
                choice = {"index": 0, "message": message, "logprobs": logprobs, "finish_reason": "stop"}
                self._send(200, {**head, "object": "chat.completion", "choices": [choice], "usage": usage})
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for index, token in enumerate(tokens):
                piece = {"content": [_entry(token, top)]} if logprobs else None
                finish = "stop" if index == len(tokens) - 1 else None
                choice = {"index": 0, "delta": {"content": token}, "logprobs": piece, "finish_reason": finish}
                self._event({**head, "object": "chat.completion.chunk", "choices": [choice]})
            if mode != "plain_counts":
                self._event({**head, "object": "chat.completion.chunk", "choices": [], "usage": usage})
            self.wfile.write(b"data: [DONE]\n\n")

        def _event(self, payload: dict) -> None:
            self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def _model(url: str, cache: Path, *pairs: str) -> Model:
    options = resolve_model(f"openai:m@{url}", ["retries=0", *pairs])
    return get_model(options.spec(), options=options, cache_dir=cache, backoff=0.01)


def test_a_request_without_logprobs_sends_and_keys_what_it_did() -> None:
    request = ChatRequest.make(ASK, max_tokens=6)
    assert "logprobs" not in request.fields()
    provider = OpenAIProvider("m", "http://127.0.0.1:9/v1")
    body = provider.request_payload(request)["body"]
    assert "logprobs" not in body and "top_logprobs" not in body
    asked = provider.request_payload(replace(request, logprobs=5))["body"]
    assert asked["logprobs"] is True and asked["top_logprobs"] == 5
    model = Model(MockProvider())
    assert model.cache_key(request) != model.cache_key(replace(request, logprobs=5))
    assert model.cache_key(request) == model.cache_key(ChatRequest.make(ASK, max_tokens=6, logprobs=None))


@pytest.mark.parametrize("mode", ["streamed", "ignore", "plain_counts"])
def test_logprobs_are_read_from_a_reply_and_kept_by_the_cache(tmp_path: Path, mode: str) -> None:
    with logprob_server(mode) as (url, seen):
        model = _model(url, tmp_path)
        got = model.chat(ASK, max_tokens=6, logprobs=2)
        again = model.chat(ASK, max_tokens=6, logprobs=2)
        plain = model.chat(ASK, max_tokens=6)
    assert seen[0]["logprobs"] is True and seen[0]["top_logprobs"] == 2
    assert got.text == "4 2" and [t.token for t in got.logprobs] == ["4", " ", "2"]
    assert got.logprobs[0] == TokenLogprob("4", -0.4, (("4", -0.4), ("5", -1.2)))
    assert again.cached and again.logprobs == got.logprobs
    # the same request without logprobs is another request: asked, and answered without them
    assert not plain.cached and plain.logprobs == () and "logprobs" not in seen[-1]


def test_a_server_that_refuses_logprobs_is_asked_without_them(tmp_path: Path) -> None:
    with logprob_server("refuse") as (url, seen):
        model = _model(url, tmp_path)
        got = model.chat(ASK, max_tokens=6, logprobs=5)
        model.chat(ASK, max_tokens=7, logprobs=5)
    assert got.text == "4 2" and got.logprobs == ()
    assert [bool(body.get("logprobs")) for body in seen] == [True, False, False]


def test_a_scripted_completion_carries_logprobs_only_when_asked(tmp_path: Path) -> None:
    scripted = Completion(text="4", logprobs=(TokenLogprob("4", -0.4, (("4", -0.4), ("5", -1.2), ("3", -2.5))),))
    model = Model(MockProvider([scripted]), cache=ResponseCache(tmp_path / "cache.sqlite"))
    assert model.chat(ASK).logprobs == ()
    assert model.chat(ASK, logprobs=2).logprobs == (TokenLogprob("4", -0.4, (("4", -0.4), ("5", -1.2))),)


@pytest.mark.real_model
def test_the_embedded_model_gives_the_logprobs_of_its_reply(local_model_installed: None) -> None:
    from biarena.llm.local_provider import LocalProvider

    got = Model(LocalProvider()).chat(
        [{"role": "user", "content": "How many legs has a cat? One digit."}], max_tokens=2, logprobs=3
    )
    assert got.logprobs and got.text.startswith(got.logprobs[0].token)
    first = got.logprobs[0]
    assert len(first.top) == 3 and [lp for _, lp in first.top] == sorted((lp for _, lp in first.top), reverse=True)
    # the model's own distribution: log-probabilities, the sampled token among the likeliest at temperature 0
    assert first.logprob is not None and first.logprob <= 0 and sum(math.exp(lp) for _, lp in first.top) <= 1 + 1e-6
    assert first.token in [token for token, _ in first.top]
