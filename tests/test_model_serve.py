"""`biarena model serve`: a model behind OpenAI's chat completions API, driven by the official `openai` client and
the OpenAI Agents SDK against the scripted mock (and once against the embedded model)."""

import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from biarena.errors import FormatError, NotFoundError
from biarena.llm import ChatRequest, Completion, MockProvider, Model, ModelOptions
from biarena.llm.cache import ResponseCache
from biarena.llm.local_provider import LocalProvider
from biarena.llm.mock_script import load_mock_script
from biarena.llm.model_server import ModelServer, ServeSettings, served_model
from biarena.llm.redact import remember_secret
from biarena.llm.tool_calls import read_tool_calls
from biarena.llm.types import InvalidRequestError, ToolCall

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "list_tables",
            "description": "The database's tables.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "run_query",
            "description": "Run one read statement; its rows.",
            "parameters": {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]},
        },
    },
]

LOOP_SCRIPT = """
replies:
  - tool_calls: [{name: list_tables}]
  - tool_calls:
      - name: run_query
        arguments: {sql: "SELECT COUNT(*) FROM orders"}
  - text: "There are {{tool_result}} orders."
"""


def write_script(tmp_path: Path, text: str) -> Path:
    """A mock script file (each test's own, so no reply is read from another test's cache)."""
    path = tmp_path / f"script-{uuid.uuid4().hex[:8]}.yaml"
    path.write_text(text)
    return path


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    """Start servers of the mock on a free loopback port: `serve(script_text, **server_options)` -> (url, model)."""
    servers: list[ModelServer] = []

    def start(text: str, **options: Any) -> tuple[str, Model]:
        model = served_model(ServeSettings(model="mock", model_options=[f"script={write_script(tmp_path, text)}"]))
        server = ModelServer(model, **options)
        servers.append(server)
        return server.start(), model

    yield start
    for server in servers:
        server.stop()


def client(url: str, key: str = "unused") -> openai.OpenAI:
    """The official client, without its own retries (a refusal is seen at once)."""
    return openai.OpenAI(base_url=url, api_key=key, max_retries=0)


def run_tool_loop(api: openai.OpenAI, question: str, results: dict[str, str], stream: bool = False) -> list[Any]:
    """Drive the tool loop as an agent framework does: each reply's calls answered from `results` by tool name,
    until a reply calls none; every reply's message, in order."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Use the tools."},
        {"role": "user", "content": question},
    ]
    replies = []
    for _ in range(6):
        message = streamed_message(api, messages) if stream else plain_message(api, messages)
        replies.append(message)
        messages.append(message)
        if not message.get("tool_calls"):
            return replies
        for call in message["tool_calls"]:
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": results[call["function"]["name"]]})
    raise AssertionError("the tool loop did not end")


def plain_message(api: openai.OpenAI, messages: list[dict[str, Any]]) -> dict[str, Any]:
    reply = api.chat.completions.create(model="any", messages=messages, tools=TOOLS)
    choice = reply.choices[0]
    assert choice.finish_reason == ("tool_calls" if choice.message.tool_calls else "stop")
    return choice.message.model_dump(exclude_none=True, include={"role", "content", "tool_calls"})


def streamed_message(api: openai.OpenAI, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A streamed reply put together from its deltas, as frameworks do."""
    text, calls, finish = "", {}, None
    for chunk in api.chat.completions.create(model="any", messages=messages, tools=TOOLS, stream=True):
        delta = chunk.choices[0].delta
        text += delta.content or ""
        for piece in delta.tool_calls or []:
            call = calls.setdefault(
                piece.index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
            )
            call["id"] += piece.id or ""
            call["function"]["name"] += (piece.function.name or "") if piece.function else ""
            call["function"]["arguments"] += (piece.function.arguments or "") if piece.function else ""
        finish = chunk.choices[0].finish_reason or finish
    assert finish == ("tool_calls" if calls else "stop")
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    return message


def calls_of(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(call["function"]["name"], json.loads(call["function"]["arguments"])) for call in message["tool_calls"]]


def test_plain_chat_and_the_model_list(serve: Any) -> None:
    url, _ = serve('replies: ["Hello from the script."]')
    api = client(url)
    assert [entry.id for entry in api.models.list().data] == ["mock:scripted"]
    reply = api.chat.completions.create(model="anything", messages=[{"role": "user", "content": "Hi there"}])
    assert reply.choices[0].message.content == "Hello from the script."
    assert reply.choices[0].finish_reason == "stop" and reply.model == "mock:scripted"
    assert reply.usage is not None and reply.usage.prompt_tokens == 2 and reply.usage.completion_tokens == 4


def test_a_streamed_reply_is_the_same_reply_in_pieces(serve: Any) -> None:
    text = "One two three four five six seven eight nine ten."
    url, _ = serve(json.dumps({"replies": [text]}))
    chunks = list(
        client(url).chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "Count"}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    pieces = [chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices]
    assert "".join(pieces) == text and len([piece for piece in pieces if piece]) > 1
    assert [chunk.choices[0].finish_reason for chunk in chunks if chunk.choices][-1] == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 10


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_tool_loop_round_trip(serve: Any, stream: bool) -> None:
    url, _ = serve(LOOP_SCRIPT)
    replies = run_tool_loop(client(url), "How many orders?", {"list_tables": '["orders"]', "run_query": "42"}, stream)
    assert [calls_of(reply) for reply in replies[:2]] == [
        [("list_tables", {})],
        [("run_query", {"sql": "SELECT COUNT(*) FROM orders"})],
    ]
    assert replies[0].get("content") is None and replies[2]["content"] == "There are 42 orders."
    assert replies[0]["tool_calls"][0]["id"] != replies[1]["tool_calls"][0]["id"]


def test_conversations_at_once_each_follow_the_script(serve: Any) -> None:
    url, _ = serve(
        """
conversations:
  - when: revenue
    replies:
      - tool_calls: [{name: run_query, arguments: {sql: "SELECT SUM(total) FROM orders -- {{question}}"}}]
      - "Revenue: {{tool_result}}"
  - replies:
      - tool_calls: [{name: list_tables}]
      - tool_calls: [{name: run_query, arguments: {sql: "SELECT COUNT(*) FROM orders"}}]
      - "Orders: {{tool_result}}"
"""
    )
    api = client(url)
    outcomes: dict[int, list[Any]] = {}
    barrier = threading.Barrier(8)

    def converse(number: int) -> None:
        barrier.wait()
        question = f"What is the revenue of shop {number}?" if number % 2 else f"How many orders in shop {number}?"
        outcomes[number] = run_tool_loop(api, question, {"list_tables": "orders", "run_query": str(number)})

    threads = [threading.Thread(target=converse, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for number, replies in outcomes.items():
        if number % 2:
            sql = f"SELECT SUM(total) FROM orders -- What is the revenue of shop {number}?"
            assert calls_of(replies[0]) == [("run_query", {"sql": sql})]
            assert replies[1]["content"] == f"Revenue: {number}" and len(replies) == 2
        else:
            assert [name for reply in replies[:2] for name, _ in calls_of(reply)] == ["list_tables", "run_query"]
            assert replies[2]["content"] == f"Orders: {number}" and len(replies) == 3
    assert sorted(outcomes) == list(range(8))


def test_parallel_calls_unless_the_request_asks_for_one(serve: Any) -> None:
    url, _ = serve("replies: [{tool_calls: [{name: list_tables}, {name: run_query, arguments: {sql: SELECT 1}}]}]")
    user = [{"role": "user", "content": "both"}]
    both = client(url).chat.completions.create(model="m", messages=user, tools=TOOLS).choices[0].message.tool_calls
    one = client(url).chat.completions.create(model="m", messages=user, tools=TOOLS, parallel_tool_calls=False)
    assert [call.function.name for call in both] == ["list_tables", "run_query"]
    assert [call.function.name for call in one.choices[0].message.tool_calls] == ["list_tables"]


def test_bad_requests_get_openai_errors_and_the_server_goes_on(serve: Any) -> None:
    url, _ = serve('replies: ["fine"]')
    user = [{"role": "user", "content": "hi"}]
    refused = [
        (b"not json", None),
        (json.dumps({"model": "m"}).encode(), "messages"),
        (json.dumps({"messages": [{"role": "robot", "content": "x"}]}).encode(), "messages[0].role"),
        (json.dumps({"messages": user, "temperature": 9}).encode(), "temperature"),
        (json.dumps({"messages": user, "n": 3}).encode(), "n"),
        (
            json.dumps(
                {"messages": user, "tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "drop"}}}
            ).encode(),
            "tool_choice",
        ),
        (json.dumps({"messages": [*user, {"role": "tool", "content": "1"}]}).encode(), "messages[1]"),
        (
            json.dumps({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]}).encode(),
            "messages[0].content",
        ),
    ]
    for body, param in refused:
        response = httpx.post(f"{url}/chat/completions", content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 400, body
        error = response.json()["error"]
        assert error["type"] == "invalid_request_error" and error["message"] and error["param"] == param
    missing = httpx.get(f"{url}/embeddings")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    with pytest.raises(openai.BadRequestError, match="tool_choice"):
        client(url).chat.completions.create(model="m", messages=user, tool_choice="required")
    assert client(url).chat.completions.create(model="m", messages=user).choices[0].message.content == "fine"


def test_a_server_with_a_key_refuses_a_request_without_it(serve: Any) -> None:
    url, _ = serve('replies: ["served"]', api_key="local-serving-key-1")
    user = [{"role": "user", "content": "hi"}]
    with pytest.raises(openai.AuthenticationError) as refused:
        client(url, "wrong-key-123456").chat.completions.create(model="m", messages=user)
    assert refused.value.status_code == 401 and refused.value.code == "invalid_api_key"
    assert httpx.get(f"{url}/models").status_code == 401
    reply = client(url, "local-serving-key-1").chat.completions.create(model="m", messages=user)
    assert reply.choices[0].message.content == "served"


def test_the_same_request_is_answered_from_the_cache(serve: Any) -> None:
    url, model = serve('replies: ["once"]')
    messages = [{"role": "user", "content": f"a question never asked before {uuid.uuid4()}"}]
    first = client(url).chat.completions.create(model="m", messages=messages, tools=TOOLS)
    again = client(url).chat.completions.create(model="m", messages=messages, tools=TOOLS, stream=True)
    assert "".join(chunk.choices[0].delta.content or "" for chunk in again if chunk.choices) == "once"
    assert first.choices[0].message.content == "once"
    assert len(model.provider.requests) == 1 and model.usage.snapshot().cache_hits == 1
    other = client(url).chat.completions.create(model="m", messages=messages, tools=TOOLS[:1])  # tools are keyed
    assert other.choices[0].message.content == "once" and len(model.provider.requests) == 2


def test_served_replies_are_redacted(serve: Any) -> None:
    secret = "sk-served-" + uuid.uuid4().hex
    remember_secret(secret)
    url, _ = serve(
        f"""
replies:
  - tool_calls: [{{name: run_query, arguments: {{sql: "SELECT '{secret}'"}}}}]
  - "The key is {secret}"
"""
    )
    replies = run_tool_loop(client(url), "leak it", {"run_query": "x"})
    assert calls_of(replies[0]) == [("run_query", {"sql": "SELECT '***'"})]
    assert replies[1]["content"] == "The key is ***"


def test_an_agents_sdk_agent_runs_its_tool_loop_against_the_served_mock(serve: Any) -> None:
    agents = pytest.importorskip("agents")
    url, _ = serve(
        """
replies:
  - tool_calls: [{name: order_count, arguments: {city: Lyon}}]
  - "Lyon has {{tool_result}} orders."
"""
    )
    agents.set_tracing_disabled(True)
    asked: list[str] = []

    @agents.function_tool
    def order_count(city: str) -> int:
        """The number of orders from a city."""
        asked.append(city)
        return 17

    model = agents.OpenAIChatCompletionsModel(
        model="mock", openai_client=openai.AsyncOpenAI(base_url=url, api_key="unused", max_retries=0)
    )
    agent = agents.Agent(name="analyst", instructions="Answer with the tools.", tools=[order_count], model=model)
    result = agents.Runner.run_sync(agent, "How many orders came from Lyon?")
    assert asked == ["Lyon"] and result.final_output == "Lyon has 17 orders."


def test_a_mock_script_mistake_is_one_line(tmp_path: Path) -> None:
    cases = {
        "replies: []": "replies",
        "replies: [{tool_calls: [{arguments: {}}]}]": "replies.0.tool_calls.0.name",
        "replies: [{txt: hi}]": "replies.0.txt",
        "{replies: [a], conversations: [{replies: [b]}]}": "either",
    }
    for text, said in cases.items():
        with pytest.raises(FormatError, match=said) as error:
            load_mock_script(write_script(tmp_path, text))
        assert "\n" not in str(error.value)
    with pytest.raises(NotFoundError, match="mock script not found"):
        MockProvider.from_options(ModelOptions(provider="mock", script=tmp_path / "nope.yaml"), tmp_path)


def test_qwen_tool_call_blocks_become_tool_calls() -> None:
    text = 'Let me look.\n<tool_call>\n{"name": "run_query", "arguments": {"sql": "SELECT 1"}}\n</tool_call>'
    left, calls = read_tool_calls(text, TOOLS, "seed")
    assert left == "Let me look." and [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("run_query", {"sql": "SELECT 1"})
    ]
    assert read_tool_calls(text, TOOLS, "seed")[1] == calls  # the same reply names its calls alike
    two = (  # the second block unclosed (cut off), its arguments written as JSON text
        '<tool_call>{"name": "list_tables", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "run_query", "arguments": "{\\"sql\\": \\"SELECT 2\\"}"}'
    )
    assert [(c.name, c.arguments) for c in read_tool_calls(two, TOOLS, "s")[1]] == [
        ("list_tables", "{}"),
        ("run_query", '{"sql": "SELECT 2"}'),
    ]
    bare = '```json\n{"name": "list_tables", "arguments": {}}\n```'
    assert read_tool_calls(bare, TOOLS, "s")[1][0].name == "list_tables"
    unknown = '<tool_call>{"name": "drop_table", "arguments": {}}</tool_call>'
    assert read_tool_calls(unknown, TOOLS, "s") == (unknown, ())
    assert read_tool_calls("The answer is 4.", TOOLS, "s") == ("The answer is 4.", ())


def test_the_local_model_is_shown_tools_and_a_required_call_is_held_by_a_grammar(tmp_path: Path) -> None:
    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"GGUF")
    provider = LocalProvider(weights)
    loop = [
        {"role": "user", "content": "How many?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [ToolCall("c1", "run_query", '{"sql": "SELECT 1"}').wire()],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "[[1]]"},
    ]
    payload = provider.request_payload(ChatRequest.make(loop, tools=TOOLS))
    assert payload["tools"] == TOOLS and "response_format" not in payload
    assert payload["messages"][1]["tool_calls"][0]["function"]["arguments"] == {"sql": "SELECT 1"}
    assert payload["messages"][1]["content"] == "" and payload["messages"][2]["tool_call_id"] == "c1"
    forced = provider.request_payload(
        ChatRequest.make(loop, tools=TOOLS, tool_choice={"type": "function", "function": {"name": "run_query"}})
    )
    schema = forced["response_format"]["schema"]
    assert schema["properties"]["name"] == {"const": "run_query"} and schema["properties"]["arguments"]["required"] == [
        "sql"
    ]
    assert (
        "anyOf"
        in provider.request_payload(ChatRequest.make(loop, tools=TOOLS, tool_choice="required"))["response_format"][
            "schema"
        ]
    )
    assert "tools" not in provider.request_payload(ChatRequest.make(loop, tools=TOOLS, tool_choice="none"))
    plain = ChatRequest.make([{"role": "user", "content": "hi"}])
    assert "tools" not in plain.fields() and provider.request_payload(plain)["messages"] == [
        {"role": "user", "content": "hi"}
    ]


def test_tool_calls_are_cached_and_refused_by_a_provider_without_tools(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")
    calls = (ToolCall("call_1", "run_query", '{"sql": "SELECT 1"}'),)
    cache.put("k", Completion(text="", finish_reason="tool_calls", tool_calls=calls))
    assert cache.get("k").tool_calls == calls

    class Plain:
        name, model = "plain", "x"

        def complete(self, request: ChatRequest) -> Completion:
            return Completion(text="no")

    with pytest.raises(InvalidRequestError, match="takes no tools"):
        Model(Plain()).complete(ChatRequest.make([{"role": "user", "content": "hi"}], tools=TOOLS))


def biarena_command(*words: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "biarena", *words],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def test_the_command_serves_and_prints_its_url(tmp_path: Path) -> None:
    script = write_script(tmp_path, LOOP_SCRIPT)
    server = biarena_command(
        "model",
        "serve",
        "--model",
        "mock",
        "-M",
        f"script={script}",
        "--port",
        "0",
        "--api-key-env",
        "SERVE_KEY",
        env={"SERVE_KEY": "key-of-the-server-42"},
    )
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        replies = run_tool_loop(
            client(url, "key-of-the-server-42"), "How many orders?", {"list_tables": "orders", "run_query": "7"}
        )
        assert replies[-1]["content"] == "There are 7 orders."
    finally:
        server.send_signal(signal.SIGINT)
        _, errors = server.communicate(timeout=30)
    assert "serving mock:scripted" in errors and "Traceback" not in errors


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["--model", "mock", "-M", "script=missing.yaml"], "mock script not found: missing.yaml"),
        (["--model", "mock", "--api-key-env", "NO_SUCH_VARIABLE_SET"], "NO_SUCH_VARIABLE_SET"),
        (["--model", "mock", "--host", "no-such-host.invalid"], "--host"),
    ],
)
def test_a_serve_mistake_is_one_line(words: list[str], said: str) -> None:
    process = biarena_command("model", "serve", "--port", "0", *words)
    out, errors = process.communicate(timeout=60)
    assert process.returncode == 2 and said in errors and len(errors.strip().splitlines()) == 1 and not out


@pytest.mark.real_model
def test_the_served_embedded_model_answers_an_openai_client(local_model_installed: None) -> None:
    model = served_model(ServeSettings(model="local", no_cache=True))
    with ModelServer(model) as server:
        reply = client(server.url).chat.completions.create(
            model="local", messages=[{"role": "user", "content": "Say hello."}], max_tokens=16
        )
    assert reply.choices[0].message.content.strip() and reply.choices[0].finish_reason in ("stop", "length")
    assert 0 < reply.usage.completion_tokens <= 16 and reply.model.startswith("local:")
