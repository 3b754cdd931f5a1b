"""The cache key is the request a provider sends: any option that changes the request (extra_body, a header, a
query parameter, the server) changes the key; the key itself, the structured-output level and what only changes
how the call is made (timeouts, retries) do not."""

from dataclasses import replace
from pathlib import Path

import pytest

from biarena.llm import ChatRequest, MockProvider, Model, get_model, resolve_model
from biarena.llm.cache import ResponseCache
from biarena.llm.local_provider import LocalProvider
from tests.endpoint_stub import endpoint

ASK = [{"role": "user", "content": "How many legs does a cat have?"}]


def four(body: dict) -> str:
    return "four"


def ask(url: str, cache: Path, *pairs: str) -> bool:
    """Ask once with the model's options `pairs`; whether the reply came from the cache."""
    options = resolve_model(f"openai:m@{url}", ["retries=0", *pairs])
    return get_model(options.spec(), options=options, cache_dir=cache).chat(ASK).cached


def test_each_extra_body_seed_is_its_own_call_and_the_same_one_is_cached(tmp_path: Path) -> None:
    with endpoint(four) as (url, state):
        assert not ask(url, tmp_path, "extra_body=seed=7")
        assert not ask(url, tmp_path, "extra_body=seed=8")
        assert ask(url, tmp_path, "extra_body=seed=7") and ask(url, tmp_path, "extra_body=seed=8")
    assert [body["seed"] for body in state.requests] == [7, 8]


@pytest.mark.parametrize(
    "changed",
    [
        ["extra_headers=X-Tier=gold"],
        ["extra_query=api-version=2025-01-01"],
        ["extra_body=top_k=20"],
        ["temperature=0.5"],
        ["max_tokens=40"],
    ],
)
def test_every_option_that_changes_the_request_changes_the_key(tmp_path: Path, changed: list[str]) -> None:
    base = ["extra_headers=X-Route=blue"]
    with endpoint(four) as (url, state):
        assert not ask(url, tmp_path, *base)
        assert not ask(url, tmp_path, *base, *changed)
        assert ask(url, tmp_path, *base, *changed)
    assert len(state.requests) == 2


def test_the_key_and_how_the_call_is_made_are_not_in_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONE_KEY", "sk-one-1111")
    monkeypatch.setenv("OTHER_KEY", "sk-other-2222")
    monkeypatch.setenv("GATEWAY_KEY", "gw-3333")
    with endpoint(four) as (url, state):
        assert not ask(url, tmp_path, "api_key_env=ONE_KEY")
        assert ask(url, tmp_path, "api_key_env=OTHER_KEY", "key_headers=X-Api-Key=GATEWAY_KEY")
        assert ask(url, tmp_path, "timeout=5", "retries=3", "connections=2", "max_outage=9")
    assert len(state.requests) == 1


def test_the_query_of_extra_query_reaches_the_server_at_the_right_path(tmp_path: Path) -> None:
    with endpoint(four) as (url, state):
        options = resolve_model(f"openai:m@{url}", ["extra_query=api-version=2025-01-01"])
        model = get_model(options.spec(), options=options, cache_dir=tmp_path)
        assert model.chat(ASK).text == "four"
    assert state.paths == ["/v1/models?api-version=2025-01-01", "/v1/chat/completions?api-version=2025-01-01"]


def test_the_mock_is_keyed_on_the_request_without_its_level(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")
    model = Model(MockProvider(["one", "two"]), cache=cache)
    request = ChatRequest.make(ASK)
    assert model.cache_key(request) == model.cache_key(replace(request, structured="prompt"))
    assert model.cache_key(request) != model.cache_key(replace(request, seed=1))
    assert model.chat(ASK).text == "one" and model.chat(ASK).cached
    assert model.chat(ASK, seed=1).text == "two"


def test_the_local_models_key_is_its_llama_cpp_call(tmp_path: Path) -> None:
    weights = tmp_path / "tiny.gguf"
    weights.write_bytes(b"GGUF")
    provider = LocalProvider(weights)
    request = ChatRequest.make(ASK, schema={"type": "object"}, seed=3)
    sent = provider.request_payload(request)
    assert sent["seed"] == 3 and sent["messages"] == ASK
    assert sent["response_format"] == {"type": "json_object", "schema": {"type": "object"}}
    model = Model(provider, cache=ResponseCache(tmp_path / "cache.sqlite"))
    model._identity = ({"sha256": "x"},)  # what the weights are, without hashing a real file
    assert model.cache_key(request) != model.cache_key(replace(request, seed=4))
    assert model.cache_key(request) == model.cache_key(replace(request, structured="json_object"))


def test_a_drafted_reply_is_cached_apart_from_a_plain_one(tmp_path: Path) -> None:
    weights = tmp_path / "tiny.gguf"
    weights.write_bytes(b"GGUF")
    request = ChatRequest.make(ASK, seed=3)
    plain, drafted = LocalProvider(weights), LocalProvider(weights, draft=4)
    assert "draft" not in plain.request_payload(request)  # plain replies keep the key they always had
    assert drafted.request_payload(request)["draft"] == 4
    keys = []
    for provider in (plain, drafted, LocalProvider(weights, draft=2)):
        model = Model(provider, cache=ResponseCache(tmp_path / "cache.sqlite"))
        model._identity = ({"sha256": "x"},)
        keys.append(model.cache_key(request))
    assert len(set(keys)) == 3


def test_the_body_the_server_receives_is_the_keyed_body_and_how_the_reply_is_carried(tmp_path: Path) -> None:
    pairs = ["extra_body=top_k=20,seed=5", "extra_query=api-version=1", "temperature=0.3", "retries=0"]
    with endpoint(four) as (url, state):
        options = resolve_model(f"openai:m@{url}", pairs)
        model = get_model(options.spec(), options=options, cache_dir=tmp_path)
        request = ChatRequest.make(ASK, schema={"type": "object"}, seed=2, max_tokens=64)
        model.complete(request)
        received = dict(state.requests[0])
    keyed = model.provider.request_payload(request)["body"]
    carried = {key: received.pop(key) for key in ("stream", "stream_options") if key in received}
    assert received == keyed and keyed["seed"] == 5 and keyed["top_k"] == 20
    assert carried == {"stream": True, "stream_options": {"include_usage": True}}
