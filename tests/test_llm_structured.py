"""Structured output: stepping down json_schema -> json_object -> prompt per endpoint, and validating every reply."""

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from biarena.errors import UsageError
from biarena.llm import (
    ChatRequest,
    Completion,
    InvalidRequestError,
    MockProvider,
    Model,
    ModelError,
    RetryableError,
    StructuredOutputError,
    get_model,
)
from biarena.llm.cache import ResponseCache
from biarena.llm.openai_provider import status_error
from biarena.llm.structured import LEVELS, at_level, parse_reply
from tests.openai_stub import openai_stub

SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["yes", "no"]}, "score": {"type": "integer"}},
    "required": ["verdict", "score"],
}
ASK = [{"role": "system", "content": "You judge."}, {"role": "user", "content": "Is 2 + 2 = 4?"}]
GOOD = '{"verdict": "yes", "score": 5}'

# What llama-cpp-python's server answers (HTTP 500) to `response_format: {"type": "json_schema", ...}`.
LLAMA_CPP_REJECTION = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
    "'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n  File \"llama_cpp/server/app.py\", line 376, "
    "in create_chat_completion\n    POST /v1/chat/completions"
)


def like_llama_cpp(body: dict) -> tuple[int, str] | None:
    """Reject json_schema the way llama-cpp-python's server does; accept text and json_object."""
    if body.get("response_format", {}).get("type") == "json_schema":
        return 500, LLAMA_CPP_REJECTION
    return None


def text_only(body: dict) -> tuple[int, str] | None:
    """A server that knows no response_format at all (400, as older gateways answer)."""
    if "response_format" in body:
        return 400, f"response_format type '{body['response_format']['type']}' is not supported"
    return None


def schema_reply(body: dict) -> str:
    """A model that answers correctly only when it was told the schema (in the prompt or by the server)."""
    told = "response_format" in body and body["response_format"]["type"] == "json_schema"
    told = told or '"verdict"' in body["messages"][-1]["content"]
    return GOOD if told else '{"answer": "yes"}'


@pytest.fixture(autouse=True)
def fresh_memory(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    LEVELS.forget()
    yield
    LEVELS.forget()


def test_a_server_without_json_schema_gets_json_object_with_the_schema_in_the_prompt(tmp_path: Path) -> None:
    with openai_stub(schema_reply, reject=like_llama_cpp) as (url, state):
        model = get_model(f"openai:qwen@{url}", cache_dir=tmp_path, backoff=0.01, retries=4)
        completion = model.chat(ASK, schema=SCHEMA, max_tokens=40)
        assert completion.parsed == {"verdict": "yes", "score": 5}
        assert completion.structured == "json_object"
        first, second = state.requests
        assert first["response_format"]["type"] == "json_schema"  # tried once, not retried with backoff
        assert second["response_format"] == {"type": "json_object"}
        assert '"verdict"' in second["messages"][-1]["content"] and "JSON schema" in second["messages"][-1]["content"]
        assert second["messages"][0] == ASK[0]
        # remembered for the endpoint: another model on the same server starts at json_object
        other = get_model(f"openai:qwen@{url}", cache_dir=tmp_path, use_cache=False)
        assert other.chat([{"role": "user", "content": "Is 3 > 2?"}], schema=SCHEMA).structured == "json_object"
        assert [r["response_format"]["type"] for r in state.requests[2:]] == ["json_object"]
        # another model name on the same URL is another endpoint (gateways route models to different servers)
        third = get_model(f"openai:other@{url}", cache_dir=tmp_path, use_cache=False)
        third.chat(ASK, schema=SCHEMA)
        assert [r["response_format"]["type"] for r in state.requests[3:]] == ["json_schema", "json_object"]


def test_a_server_without_any_response_format_gets_plain_text_with_the_schema_in_the_prompt(tmp_path: Path) -> None:
    with openai_stub(schema_reply, reject=text_only) as (url, state):
        model = get_model(f"openai:old@{url}", cache_dir=tmp_path, backoff=0.01)
        completion = model.chat(ASK, schema=SCHEMA)
        assert completion.parsed["verdict"] == "yes" and completion.structured == "prompt"
        assert [r.get("response_format", {}).get("type") for r in state.requests] == [
            "json_schema",
            "json_object",
            None,
        ]
        model.chat([{"role": "user", "content": "again"}], schema=SCHEMA)
        assert "response_format" not in state.requests[-1] and len(state.requests) == 4


def test_a_forced_level_is_the_only_one_tried(tmp_path: Path) -> None:
    with openai_stub(schema_reply, reject=like_llama_cpp) as (url, state):
        prompt = get_model(f"openai:qwen@{url}", cache_dir=tmp_path, use_cache=False, structured="prompt")
        assert prompt.chat(ASK, schema=SCHEMA).structured == "prompt"
        assert "response_format" not in state.requests[-1]
        forced = get_model(f"openai:qwen@{url}", cache_dir=tmp_path, use_cache=False, structured="json_schema")
        with pytest.raises(InvalidRequestError, match="rejects structured output as json_schema") as caught:
            forced.chat(ASK, schema=SCHEMA)
        assert caught.value.about_response_format and "Input should be 'text' or 'json_object'" in str(caught.value)
        assert len(state.requests) == 2  # refused at once: no backoff, no other level
    with pytest.raises(UsageError, match="did you mean 'json_object'"):
        get_model("mock", cache_dir=tmp_path, structured="json_objcet")


def test_invalid_requests_are_not_retried_and_real_server_errors_are(tmp_path: Path) -> None:
    too_long = (400, "This model's maximum context length is 4096 tokens. However, you requested 9000 tokens")
    with openai_stub(lambda body: GOOD, reject=lambda body: too_long) as (url, state):
        model = get_model(f"openai:m@{url}", cache_dir=tmp_path, backoff=0.01, retries=4)
        with pytest.raises(InvalidRequestError, match="maximum context length") as caught:
            model.chat(ASK, schema=SCHEMA)
        assert not caught.value.about_response_format
        assert len(state.requests) == 1  # not about the structured output: no step down either
    invalid_body = LLAMA_CPP_REJECTION.replace("response_format", "temperature")
    with openai_stub(lambda body: GOOD, reject=lambda body: (500, invalid_body)) as (url, state):
        model = get_model(f"openai:m@{url}", cache_dir=tmp_path, backoff=0.01, retries=4)
        with pytest.raises(InvalidRequestError, match="HTTP 500"):
            model.chat(ASK)  # a validation failure answered with 500 is still the request's fault
        assert len(state.requests) == 1
    with openai_stub(lambda body: GOOD, failures=[500, 502]) as (url, state):
        model = get_model(f"openai:m@{url}", cache_dir=tmp_path, backoff=0.01, retries=4)
        assert model.chat(ASK, schema=SCHEMA).parsed["score"] == 5
        assert len(state.requests) == 3 and all(r["response_format"]["type"] == "json_schema" for r in state.requests)


@pytest.mark.parametrize(
    ("status", "message", "kind", "about_format"),
    [
        (400, "Invalid schema for response_format 'reply'", InvalidRequestError, True),
        (400, "messages: field required", InvalidRequestError, False),
        (404, "The model `x` does not exist", InvalidRequestError, False),
        (422, "Unprocessable Entity: guided_json is not supported", InvalidRequestError, True),
        (500, LLAMA_CPP_REJECTION, InvalidRequestError, True),
        (500, "CUDA out of memory", RetryableError, False),
        (502, "Bad gateway", RetryableError, False),
        (503, "model is loading", RetryableError, False),
        (429, "Rate limit reached for requests", RetryableError, False),
        (408, "Request timeout", RetryableError, False),
    ],
)
def test_status_errors_are_classified_by_status_and_message(status, message, kind, about_format) -> None:
    error = status_error(status, message, sent_response_format=True)
    assert type(error) is kind and str(error).startswith(f"HTTP {status}: ")
    assert getattr(error, "about_response_format", False) is about_format
    if kind is InvalidRequestError:
        assert not status_error(status, message, sent_response_format=False).about_response_format


def test_the_cache_replays_whatever_level_answered_and_still_validates(tmp_path: Path) -> None:
    with openai_stub(schema_reply, reject=like_llama_cpp) as (url, state):
        get_model(f"openai:qwen@{url}", cache_dir=tmp_path).chat(ASK, schema=SCHEMA)
        assert len(state.requests) == 2
        LEVELS.forget()  # a new process knows nothing of the server
        again = get_model(f"openai:qwen@{url}", cache_dir=tmp_path)
        completion = again.chat(ASK, schema=SCHEMA)
        assert completion.cached and completion.structured == "json_object" and completion.parsed["score"] == 5
        assert len(state.requests) == 2 and again.usage.snapshot().calls == 0
    # the key ignores the level, so a cached reply is only ever used after it validates: an invalid one is repaired
    request = ChatRequest.make(ASK, schema=SCHEMA)
    provider = MockProvider([GOOD])
    model = Model(provider, cache=ResponseCache(tmp_path / "other.sqlite"))
    assert model.cache_key(at_level(request, "prompt")) != model.cache_key(request)  # the prompt differs
    assert model.cache_key(request) == model.cache_key(replace(request, structured="json_object"))
    model.cache.put(model.cache_key(request), Completion(text='{"verdict": "maybe"}', structured="prompt"))
    completion = model.chat(ASK, schema=SCHEMA)
    assert completion.parsed == {"verdict": "yes", "score": 5} and len(provider.requests) == 1
    assert "'score' is a required property" in provider.requests[0].messages[-1][1]


def test_levels_put_the_schema_in_the_last_user_turn() -> None:
    request = ChatRequest.make(ASK, schema=SCHEMA)
    assert at_level(request, "json_schema").messages == request.messages
    for level in ("json_object", "prompt"):
        sent = at_level(request, level)
        assert sent.structured == level and sent.messages[0] == request.messages[0]
        role, content = sent.messages[-1]
        assert role == "user" and content.startswith("Is 2 + 2 = 4?") and json.dumps(SCHEMA) in content
    system_only = at_level(ChatRequest.make([{"role": "system", "content": "s"}], schema=SCHEMA), "prompt")
    assert [role for role, _ in system_only.messages] == ["system", "user"]
    plain = ChatRequest.make(ASK)
    assert at_level(plain, "prompt").messages == plain.messages and at_level(plain, "prompt").structured is None


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ('{"verdict": "yes", "score": 5, "note": "say "hi""}', "the JSON is malformed (Expecting ',' delimiter"),
        ("Sure! The verdict is yes.", "there is no JSON object or array in it"),
        ('{"verdict": "yes", "score": "five"}', "'five' is not of type 'integer' (at 'score')"),
        ('{"verdict": "yes"}', "'score' is a required property"),
        ('[{"verdict": "yes", "score": 5}]', "is not of type 'object'"),
        ("", "the reply is empty"),
    ],
)
def test_an_invalid_reply_is_asked_again_with_what_is_wrong(tmp_path: Path, bad: str, problem: str) -> None:
    provider = MockProvider([bad, f"Fixed:\n```json\n{GOOD}\n```"])
    model = Model(provider, cache=ResponseCache(tmp_path / "c.sqlite"))
    completion = model.chat(ASK, schema=SCHEMA)
    assert completion.parsed == {"verdict": "yes", "score": 5} and completion.rejected == (bad,)
    first, second = provider.requests
    assert second.messages[: len(first.messages)] == first.messages
    (role_reply, quoted), (role_ask, ask) = second.messages[-2:]
    assert role_reply == "assistant" and quoted == bad
    assert role_ask == "user" and problem in ask
    assert model.usage.snapshot().calls == 2


def test_a_reply_cut_off_at_the_token_limit_says_so(tmp_path: Path) -> None:
    cut = Completion(text='{"verdict": "yes", "sco', finish_reason="length")
    provider = MockProvider([cut])
    with pytest.raises(StructuredOutputError, match="cut off at the token limit") as caught:
        Model(provider, cache=None).chat(ASK, schema=SCHEMA, max_tokens=8)
    assert caught.value.raw == '{"verdict": "yes", "sco'
    assert "cut off" in provider.requests[1].messages[-1][1]


def test_a_reply_that_stays_invalid_is_a_clear_failure_with_the_raw_replies(tmp_path: Path) -> None:
    provider = MockProvider(['{"verdict": "perhaps", "score": 1}', "I cannot answer in JSON."])
    with pytest.raises(StructuredOutputError) as caught:
        Model(provider, cache=None).chat(ASK, schema=SCHEMA)
    error = caught.value
    assert isinstance(error, ModelError)
    assert error.raw == "I cannot answer in JSON." and error.replies == (
        '{"verdict": "perhaps", "score": 1}',
        error.raw,
    )
    assert error.problem == "there is no JSON object or array in it"
    assert "not valid JSON for the schema after 2 attempts" in str(error) and "I cannot answer" in str(error)
    assert len(provider.requests) == 2  # asked again once, then given up


def test_parse_reply_takes_the_first_value_the_schema_accepts() -> None:
    text = 'First a draft {"verdict": "no"} then the answer: {"verdict": "no", "score": 0} done'
    assert parse_reply(text, SCHEMA) == {"verdict": "no", "score": 0}
    # a value's insides are never taken on their own, however well they would fit
    nested = '{"reply": {"verdict": "yes", "score": 5}}'
    with pytest.raises(ValueError, match="'verdict' is a required property"):
        parse_reply(nested, SCHEMA)
    assert parse_reply(nested, {"type": "object", "required": ["reply"]}) == json.loads(nested)
    # a broken outer value is reported as broken, not as the small value found inside it
    with pytest.raises(ValueError, match="malformed"):
        parse_reply('{"outer": {"verdict": "yes", "score": 5} "x": 1}', {"type": "object", "required": ["outer"]})
    assert parse_reply("```json\n[1, 2]\n```", {"type": "array"}) == [1, 2]


def test_local_provider_asks_llama_cpp_at_each_level(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from biarena.llm import local_provider

    sent: list[dict] = []

    class FakeLlama:
        def create_chat_completion(self, **kwargs: object) -> dict:
            sent.append(kwargs)
            return {"choices": [{"message": {"content": GOOD}, "finish_reason": "stop"}], "usage": {}}

    monkeypatch.setattr(local_provider, "load_llama", lambda *args, **kwargs: FakeLlama())
    weights = tmp_path / "tiny.gguf"
    weights.write_bytes(b"GGUF")
    provider = local_provider.LocalProvider(weights)
    request = ChatRequest.make(ASK, schema=SCHEMA)
    for level in ("json_schema", "json_object", "prompt"):
        assert provider.complete(at_level(request, level)).finish_reason == "stop"
    assert sent[0]["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert sent[1]["response_format"] == {"type": "json_object"}
    assert "response_format" not in sent[2] and json.dumps(SCHEMA) in sent[2]["messages"][-1]["content"]


def biarena(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("biarena")
    return subprocess.run(
        [str(exe), *map(str, args)], capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})}
    )


def iterative_reply(body: dict) -> str:
    """The iterative agent's two steps: one query, then the answer."""
    if "Step 1:" in body["messages"][-1]["content"]:
        return '{"thought": "I have the count.", "action": "answer", "answer": "There are some."}'
    return '{"thought": "Count the rows.", "action": "query", "sql": "SELECT 1 AS n"}'


def test_iterative_runs_against_a_server_that_rejects_json_schema(tmp_path: Path, bis_synth_dir: Path) -> None:
    with openai_stub(iterative_reply, reject=like_llama_cpp) as (url, state):
        run = tmp_path / "iterative.run"
        result = biarena(
            "run", bis_synth_dir, "--agent", "iterative", "--model", f"openai:qwen@{url}", "--limit", "2", "-o", run
        )
        assert result.returncode == 0, result.stderr
        exported = tmp_path / "iterative.jsonl"
        assert biarena("export", run, "-o", exported).returncode == 0
        records = [json.loads(line) for line in exported.read_text().splitlines()]
        assert [(r["status"], r["error"]) for r in records] == [("ok", None)] * 2, records
        kinds = [r["response_format"]["type"] for r in state.requests]
        assert kinds == ["json_schema"] + ["json_object"] * 4  # one rejection, remembered for the whole run
        forced = biarena(
            "run", bis_synth_dir, "--agent", "iterative", "--model", f"openai:qwen@{url}", "--limit", "1",
            "--structured", "prompt", "--no-cache", "-o", tmp_path / "forced.run",
        )  # fmt: skip
        assert forced.returncode == 0, forced.stderr
        assert all("response_format" not in r for r in state.requests[5:]) and len(state.requests) == 7


def test_structured_option_is_checked(tmp_path: Path, bis_synth_dir: Path) -> None:
    result = biarena(
        "run", bis_synth_dir, "--agent", "iterative", "--model", "mock", "--structured", "schema", "-o", tmp_path / "r"
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "unknown structured output level 'schema'" in result.stderr
    gold = biarena("run", bis_synth_dir, "--system", "gold", "--structured", "prompt", "-o", tmp_path / "g")
    assert gold.returncode == 2 and "does not use a model (--structured)" in gold.stderr
