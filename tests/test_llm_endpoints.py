"""Real model endpoints through real HTTP servers on loopback: a server that is down, hangs, rate limits, fails or
cuts its reply short; two servers under one model name; a key per model; what the model is, in the cache key."""

import os
import sqlite3
import time
from email.utils import formatdate
from pathlib import Path

import pytest

from biarena.errors import UsageError
from biarena.llm import InvalidRequestError, ModelError, UnreachableError, get_model, resolve_model
from biarena.llm.gguf_hash import gguf_sha256
from biarena.llm.notices import Notice, listening
from biarena.llm.openai_provider import retry_after, stable_entry
from tests.endpoint_stub import endpoint, free_port, hanging_server

ASK = [{"role": "user", "content": "How many legs does a cat have?"}]


def four(body: dict) -> str:
    return "four"


def model_for(url: str, tmp_path: Path, *pairs: str, name: str = "m"):
    options = resolve_model(f"openai:{name}@{url}", ["retries=2", *pairs])
    return get_model(options.spec(), options=options, cache_dir=tmp_path, backoff=0.01)


def completions(cache_dir: Path) -> int:
    with sqlite3.connect(cache_dir / "llm-cache.sqlite") as conn:
        return conn.execute("SELECT count(*) FROM completions").fetchone()[0]


def test_a_server_that_is_down_is_given_up_on_and_then_not_asked_again(tmp_path: Path) -> None:
    model = model_for(f"http://127.0.0.1:{free_port()}/v1", tmp_path, "max_outage=2")
    with pytest.raises(UnreachableError, match=r"the server does not answer \(APIConnectionError"):
        model.chat(ASK)
    assert model.health.failing and not model.health.down
    with pytest.raises(UnreachableError, match="still does not answer"):
        model.chat([{"role": "user", "content": "again?"}])
    assert model.health.down
    with pytest.raises(UnreachableError, match="given up on the server after 2 calls in a row"):
        model.chat([{"role": "user", "content": "and again?"}])


def test_a_server_that_accepts_and_never_answers_is_given_up_on_after_one_timeout(tmp_path: Path) -> None:
    with hanging_server() as url:
        model = model_for(url, tmp_path, "timeout=0.5", "retries=4", "cache=false")
        with pytest.raises(UnreachableError, match="APITimeoutError") as raised:
            model.chat(ASK)
        assert raised.value.timed_out
        # the server did not even list its models: not asked four more times
        assert model.health.in_a_row == 1
        # with the cache, what the model is was asked first: no reply to that, no question sent
        cached = model_for(url, tmp_path, "timeout=0.5")
        with pytest.raises(UnreachableError, match=r"the server does not answer \(APITimeoutError"):
            cached.chat(ASK)
        assert cached.health.in_a_row == 1


def test_a_slow_server_that_still_answers_is_asked_again(tmp_path: Path) -> None:
    with endpoint(four, actions=[("hang",)]) as (url, state):
        model = model_for(url, tmp_path, "timeout=0.5")
        assert model.chat(ASK).text == "four"
        assert len(state.requests) == 2 and model.health.answered == 1 and not model.health.failing


def test_retry_after_is_waited_for_capped_and_told(tmp_path: Path) -> None:
    waits: list[Notice] = []
    actions = [("status", 429, {"Retry-After": "1"}), ("status", 503, {"Retry-After": "3600"})]
    with endpoint(four, actions=actions) as (url, state), listening(waits.append):
        model = model_for(url, tmp_path, "max_wait=1")
        assert model.chat(ASK).text == "four"
    assert len(state.requests) == 3
    assert [n.seconds for n in waits] == [1.0, 1.0]  # as asked; then capped at max_wait
    assert "HTTP 429" in waits[0].text and "Retry-After 1 s" in waits[0].text and "attempt 2" in waits[0].text
    assert "Retry-After 3600 s" in waits[1].text


def test_retry_after_reads_seconds_milliseconds_and_dates() -> None:
    assert retry_after({"retry-after": "7"}) == 7.0
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    now = time.time()
    assert 9 <= retry_after({"retry-after": formatdate(now + 10, usegmt=True)}, now=now) <= 10
    assert retry_after({"retry-after": formatdate(now - 10, usegmt=True)}, now=now) == 0.0
    assert retry_after({"retry-after": "soon"}) is None and retry_after({}) is None


def test_server_errors_are_retried_and_then_given_up_without_calling_the_server_down(tmp_path: Path) -> None:
    with endpoint(four, actions=[("status", 500), ("status", 502)]) as (url, state):
        assert model_for(url, tmp_path).chat(ASK).text == "four"
        assert len(state.requests) == 3
    with endpoint(four, actions=[("status", 500)] * 3) as (url, state):
        model = model_for(url, tmp_path, "retries=1", "cache=false")
        with pytest.raises(ModelError, match="gave up after 2 attempts: HTTP 500"):
            model.chat(ASK)
        assert not model.health.failing  # the server answered, with errors


def test_a_reply_cut_in_the_middle_of_its_json_is_asked_again(tmp_path: Path) -> None:
    with endpoint(four, actions=[("cut",), ("garbled",)]) as (url, state):
        model = model_for(url, tmp_path)
        assert model.chat(ASK).text == "four"
        assert len(state.requests) == 3 and not model.health.failing


def test_two_servers_serving_the_same_model_name_are_two_cache_entries(tmp_path: Path) -> None:
    with endpoint(four) as (first_url, first), endpoint(lambda body: "4") as (second_url, second):
        assert model_for(first_url, tmp_path).chat(ASK).text == "four"
        assert model_for(second_url, tmp_path).chat(ASK).text == "4"
        again = model_for(first_url, tmp_path).chat(ASK)
        assert again.text == "four" and again.cached
        assert len(first.requests) == 1 and len(second.requests) == 1
    assert completions(tmp_path) == 2


def test_a_model_that_changed_under_the_same_name_is_a_cache_miss_with_a_note(tmp_path: Path) -> None:
    notes: list[Notice] = []
    served = [{"id": "m", "object": "model", "owned_by": "vllm", "root": "/ckpt/a", "created": int(time.time())}]
    with endpoint(four, models=served) as (url, state), listening(notes.append):
        model = model_for(url, tmp_path)
        model.chat(ASK)
        assert model.identity == {"id": "m", "owned_by": "vllm", "root": "/ckpt/a"}  # no request-time `created`
        assert model_for(url, tmp_path).chat(ASK).cached and not notes
        served[0]["root"] = "/ckpt/b"
        changed = model_for(url, tmp_path).chat(ASK)
        assert not changed.cached and len(state.requests) == 2
    assert len(notes) == 1 and notes[0].kind == "note"
    assert f"openai:m@{url} is not the model it was" in notes[0].text and "/ckpt/b" in notes[0].text


def test_a_server_down_is_taken_to_serve_what_it_served_last(tmp_path: Path) -> None:
    port = free_port()
    served = [{"id": "m", "owned_by": "me", "root": "/ckpt/a"}]
    with endpoint(four, port=port, models=served) as (url, _):
        model_for(url, tmp_path).chat(ASK)
    down = model_for(url, tmp_path)
    assert down.identity == {"id": "m", "owned_by": "me", "root": "/ckpt/a"}
    assert down.chat(ASK).cached  # a cached reply needs no server


def test_stable_entry_keeps_what_the_model_is() -> None:
    now = 1_700_000_000
    entry = {"id": "m", "object": "model", "created": now - 2, "permission": [{"id": "x"}], "owned_by": "vllm"}
    assert stable_entry(entry, now=now) == {"id": "m", "owned_by": "vllm"}
    assert stable_entry({"id": "m", "created": now - 86400}, now=now) == {"id": "m", "created": now - 86400}


def test_each_model_sends_the_key_of_its_own_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_KEY", "sk-agent-1111")
    monkeypatch.setenv("JUDGE_KEY", "sk-judge-2222")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with (
        endpoint(four, key="sk-agent-1111") as (agent_url, agent),
        endpoint(four, key="sk-judge-2222") as (
            judge_url,
            judge,
        ),
    ):
        assert model_for(agent_url, tmp_path, "api_key_env=AGENT_KEY").chat(ASK).text == "four"
        assert model_for(judge_url, tmp_path, "api_key_env=JUDGE_KEY").chat(ASK).text == "four"
        # read at call time: a key changed in the variable is the key sent
        monkeypatch.setenv("AGENT_KEY", "sk-agent-3333")
        wrong = model_for(agent_url, tmp_path, "api_key_env=AGENT_KEY", "cache=false")
        with pytest.raises(InvalidRequestError, match="HTTP 401") as refused:
            wrong.chat(ASK)
        assert "sk-agent-3333" not in str(refused.value) and "***" in str(refused.value)
    assert set(agent.authorizations) == {"Bearer sk-agent-1111", "Bearer sk-agent-3333"}
    assert set(judge.authorizations) == {"Bearer sk-judge-2222"}


def test_a_named_key_variable_that_is_not_set_is_a_usage_error(tmp_path: Path) -> None:
    os.environ.pop("NO_SUCH_KEY_VARIABLE", None)
    with pytest.raises(UsageError, match="NO_SUCH_KEY_VARIABLE"):
        model_for("http://127.0.0.1:9/v1", tmp_path, "api_key_env=NO_SUCH_KEY_VARIABLE")


def test_headers_body_and_sampling_options_reach_the_server(tmp_path: Path) -> None:
    pairs = ["extra_headers=X-Route=blue", "extra_body=top_k=20,guided=yes", "temperature=0.7", "top_p=0.9"]
    with endpoint(four) as (url, state):
        model_for(url, tmp_path, *pairs, "max_tokens=50").chat(ASK, max_tokens=512)
        body = state.requests[0]
    assert body["top_k"] == 20 and body["guided"] == "yes"
    assert body["temperature"] == 0.7 and body["top_p"] == 0.9 and body["max_tokens"] == 50


def test_models_file_names_a_model_and_m_pairs_win(tmp_path: Path) -> None:
    models = tmp_path / "models.yaml"
    models.write_text("myvllm:\n  model: openai:qwen@http://gpu:8000/v1\n  timeout: 300\n  api_key_env: VLLM\n")
    chosen = resolve_model("myvllm", ["timeout=30"], models)
    assert chosen.spec() == "openai:qwen@http://gpu:8000/v1" and chosen.timeout == 30 and chosen.api_key_env == "VLLM"
    with pytest.raises(UsageError, match=r"unknown model 'myvlm'.*named: myvllm.*did you mean 'myvllm'"):
        resolve_model("myvlm", [], models)
    with pytest.raises(UsageError, match="-M timeout=soon"):
        resolve_model("myvllm", ["timeout=soon"], models)


def test_two_gguf_files_of_the_same_name_are_two_models(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "model.gguf", tmp_path / "b" / "model.gguf"
    for path, content in ((first, b"one"), (second, b"two")):
        path.parent.mkdir()
        path.write_bytes(content)
    assert gguf_sha256(first, tmp_path) != gguf_sha256(second, tmp_path)
    before = gguf_sha256(first, tmp_path)
    first.write_bytes(b"three")
    os.utime(first, ns=(1, 1))
    assert gguf_sha256(first, tmp_path) != before
