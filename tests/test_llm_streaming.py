"""Replies streamed from an OpenAI-compatible server (server-sent events on a real loopback server): the same reply
and the same cache key as a plain one, progress told while a reply is written, and the servers that do not stream as
asked (they ignore it, refuse `stream_options`, count no tokens, or cut a stream short)."""

import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import biarena.llm.writing_notices as writing
from biarena.cli import notice_line
from biarena.llm import ChatRequest, get_model, resolve_model
from biarena.llm.notices import Notice, listening
from tests.cli_in_process import cli
from tests.stream_stub import pieces, stream_server

ASK = [{"role": "user", "content": "How many legs does a cat have?"}]
SCHEMA = {"type": "object", "properties": {"legs": {"type": "integer"}, "why": {"type": "string"}}}


def answer(body: dict) -> str:
    if "response_format" in body:
        return json.dumps({"legs": 4, "why": "a cat walks on four legs, as most mammals that are not apes do"})
    return "A cat has four legs: two in front and two behind, and it walks on all of them."


def model_for(url: str, cache: Path, *pairs: str):
    options = resolve_model(f"openai:m@{url}", ["retries=2", *pairs])
    return get_model(options.spec(), options=options, cache_dir=cache, backoff=0.01, use_cache=False)


def plain_reply(url: str, body: dict) -> dict:
    """What the server answers to the same body asked without streaming."""
    plain = {key: value for key, value in body.items() if key not in ("stream", "stream_options")}
    sent = urllib.request.Request(
        f"{url}/chat/completions", json.dumps(plain).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(sent, timeout=10) as response:
        return json.loads(response.read())


@pytest.mark.parametrize("mode", ["usage", "every_chunk", "ignore", "refuse_options", "no_usage"])
@pytest.mark.parametrize("schema", [None, SCHEMA], ids=["text", "json"])
def test_a_streamed_reply_is_the_reply_the_server_gives_unstreamed(
    tmp_path: Path, mode: str, schema: dict | None
) -> None:
    with stream_server(answer, mode=mode) as (url, state):
        model = model_for(url, tmp_path)
        got = model.chat(ASK, schema=schema, max_tokens=100)
        streamed = [body for body in state.requests if body.get("stream")][-1]
        plain = plain_reply(url, streamed)
    choice = plain["choices"][0]
    usage = plain.get("usage", {})
    assert got.text == choice["message"]["content"] and got.finish_reason == choice["finish_reason"]
    assert (got.prompt_tokens, got.completion_tokens) == (
        usage.get("prompt_tokens", 0),
        usage.get("completion_tokens", 0),
    )
    if schema is not None:
        assert got.parsed == json.loads(choice["message"]["content"])
    # streaming is asked for (without stream_options once the server refused them), and is all that was added
    assert streamed["stream"] is True
    assert ("stream_options" in streamed) == (mode != "refuse_options")
    payload = model.provider.request_payload(ChatRequest.make(ASK, max_tokens=100, schema=schema))["body"]
    assert {k: v for k, v in streamed.items() if k not in ("stream", "stream_options")} == payload


def test_a_streamed_reply_is_cached_under_the_key_a_plain_one_has(tmp_path: Path) -> None:
    with stream_server(answer) as (url, state):
        options = resolve_model(f"openai:m@{url}", ["retries=0"])
        first = get_model(options.spec(), options=options, cache_dir=tmp_path).chat(ASK)
        assert state.requests[-1]["stream"] is True and not first.cached
        state.mode = "ignore"  # the same server, now answering plainly: the reply comes from the cache
        again = get_model(options.spec(), options=options, cache_dir=tmp_path).chat(ASK)
    assert again.cached and len(state.requests) == 1
    assert (again.text, again.prompt_tokens, again.completion_tokens, again.finish_reason) == (
        first.text,
        first.prompt_tokens,
        first.completion_tokens,
        first.finish_reason,
    )


def test_a_refused_stream_options_is_not_sent_again(tmp_path: Path) -> None:
    with stream_server(answer, mode="refuse_options") as (url, state):
        model = model_for(url, tmp_path)
        model.chat(ASK)
        model.chat([{"role": "user", "content": "And a dog?"}])
    assert ["stream_options" in body for body in state.requests] == [True, False, False]
    assert all(body["stream"] for body in state.requests)


def test_a_server_that_counts_tokens_only_unstreamed_is_asked_plainly_from_its_first_reply(tmp_path: Path) -> None:
    heard: list[Notice] = []
    with stream_server(answer, mode="plain_counts") as (url, state), listening(heard.append):
        model = model_for(url, tmp_path)
        replies = [model.chat([{"role": "user", "content": f"question {n}"}]) for n in range(3)]
    assert [bool(body.get("stream")) for body in state.requests] == [True, False, False, False]
    assert [r.completion_tokens for r in replies] == [len(pieces(r.text)) for r in replies]
    notes = [n.text for n in heard if n.kind == "note"]
    assert len(notes) == 1 and "counts no tokens in streamed replies; replies are no longer streamed" in notes[0]


def test_a_server_that_never_counts_tokens_keeps_streaming_after_one_check(tmp_path: Path) -> None:
    with stream_server(answer, mode="no_usage") as (url, state):
        model = model_for(url, tmp_path)
        for n in range(4):
            assert model.chat([{"role": "user", "content": f"question {n}"}]).completion_tokens == 0
    assert [bool(body.get("stream")) for body in state.requests] == [True, False, True, True, True]


def test_a_stream_cut_short_is_asked_again(tmp_path: Path) -> None:
    with stream_server(answer, cuts=1) as (url, state):
        got = model_for(url, tmp_path).chat(ASK)
    assert got.text == answer({}) and len(state.requests) == 2


@pytest.mark.parametrize(("mode", "about"), [("usage", "~"), ("every_chunk", ""), ("no_usage", "~")])
def test_tokens_written_and_the_rate_are_told_while_a_reply_streams(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, about: str
) -> None:
    monkeypatch.setattr(writing, "WRITING_EVERY", 0.05)
    heard: list[Notice] = []
    with stream_server(answer, mode=mode, pause=0.03) as (url, _), listening(heard.append):
        model_for(url, tmp_path).chat(ASK)
    told = [n for n in heard if n.kind == "writing" and "writing:" in n.text]
    assert told, [n.text for n in heard]
    last = told[-1]
    assert 0 < last.tokens <= len(pieces(answer({}))) and last.rate > 0
    assert last.text == f"openai:m writing: {about}{last.tokens} tokens, {about}{last.rate:.1f} tok/s"


def test_replies_streamed_at_once_are_shown_together_on_the_bar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writing, "WRITING_EVERY", 0.05)
    shown: list[str] = []

    def short_and_long(body: dict) -> str:  # the second reply goes on alone after the first ended
        return "four legs " * (3 if body["messages"][-1]["content"] == "q1" else 20)

    listener = notice_line.notice_listener(True, shown.append, print)
    with stream_server(short_and_long, pause=0.05) as (url, _), listening(listener):
        model = model_for(url, tmp_path, "connections=2")
        with ThreadPoolExecutor(2) as pool:
            asked = [pool.submit(model.chat, [{"role": "user", "content": f"q{n}"}]) for n in (1, 2)]
            replies = [future.result().text for future in asked]
    assert replies == [short_and_long({"messages": [{"content": f"q{n}"}]}) for n in (1, 2)]
    assert any(line.startswith("2 replies at once: ~") and line.endswith(" tok/s") for line in shown), shown
    assert shown[-1].startswith("openai:m writing: ~")  # the reply that ended first is no longer counted


def test_a_piped_run_prints_the_progress_line_of_a_streamed_reply(
    tmp_path: Path, bis_synth_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writing, "WRITING_EVERY", 0.05)
    monkeypatch.setattr(notice_line, "PIPED_WRITING_EVERY", 0.0)

    def sql(body: dict) -> str:
        return "The count:\n```sql\nSELECT count(*) FROM metric_log\n```\nThat is every row of the log."

    with stream_server(sql, pause=0.03) as (url, _):
        out = tmp_path / "streamed.run"
        done = cli("run", bis_synth_dir, "--agent", "text2sql", "--model", f"openai:m@{url}", "--limit", "1", "-o", out)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("  openai:m writing: ~")]
    assert lines and all(line.endswith(" tok/s") for line in lines), done.stderr
