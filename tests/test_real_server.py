"""A real OpenAI-compatible server: llama-cpp-python's own, on loopback, serving the embedded model.

That server accepts `response_format` of type `text` and `json_object` only, and answers `json_schema` with HTTP 500
and a validation message: the structured-output levels must step down, once, and every reply still validate.
Few and short calls (the model writes about 10 tokens/s on 2 cores).
"""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from biarena.agents import AgentEnv, make_system
from biarena.benchmarks import load_benchmark
from biarena.db import DatabasePool
from biarena.llm import InvalidRequestError, get_model
from biarena.llm.structured import LEVELS
from tests.cli_in_process import cli
from tests.run_helpers import answers_of

pytestmark = [pytest.mark.real_model, pytest.mark.slow]

LEGS = {"type": "object", "properties": {"legs": {"type": "integer"}}, "required": ["legs"]}
ASK = [{"role": "user", "content": "How many legs does a cat have?"}]
REJECTED = '"POST /v1/chat/completions HTTP/1.1" 500'


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_up(url: str, process: subprocess.Popen, log: Path, deadline: float = 300.0) -> None:
    start = time.monotonic()
    while time.monotonic() - start < deadline:
        if process.poll() is not None:
            pytest.fail(f"the llama-cpp-python server exited ({process.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"the llama-cpp-python server did not answer within {deadline:.0f} s:\n{log.read_text()[-3000:]}")


def start_server(directory: Path) -> tuple[str, subprocess.Popen, Path]:
    """Start llama-cpp-python's server with the embedded model on a free loopback port (skipped when it is not
    installed); returns its base URL, its process and its log, once it answers."""
    try:
        import llama_cpp.server.app  # noqa: F401  (the `server` extra)

        from biarena.llm.weights import model_home, model_path

        weights = model_path(model_home(None))
    except Exception as error:  # not installed here
        if os.environ.get("CI"):
            pytest.fail(f"llama-cpp-python's server and the embedded model must be installed in CI: {error}")
        pytest.skip(f"llama-cpp-python's server or the embedded model is not installed: {error}")
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1"
    log = directory / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(weights), "--n_ctx", "4096"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--seed", "0"]
    # One thread: llama.cpp's threads spin while they wait for each other, which on a shared 2-core machine makes
    # two threads several times slower than one.
    command += ["--n_threads", "1", "--n_threads_batch", "1"]
    with log.open("w") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"}
        )
    try:
        wait_until_up(url, process, log)
    except BaseException:
        stop(process)
        raise
    return url, process, log


def stop(process: subprocess.Popen) -> None:
    """End the server (killed if it does not stop in 30 s)."""
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """llama-cpp-python's server with the embedded model on a free loopback port; yields (base URL, its log)."""
    url, process, log = start_server(tmp_path_factory.mktemp("llama-server"))
    try:
        yield url, log
    finally:
        stop(process)


def rejections(log: Path) -> int:
    """How many chat requests the server answered with HTTP 500."""
    return log.read_text().count(REJECTED)


def test_structured_replies_step_down_once_and_validate(server: tuple[str, Path], tmp_path: Path) -> None:
    url, log = server
    LEVELS.forget()
    before = rejections(log)
    model = get_model(f"openai:qwen@{url}", cache_dir=tmp_path, use_cache=False, backoff=5.0, retries=4)
    stepped = model.chat(ASK, schema=LEGS, max_tokens=24)
    assert stepped.structured == "json_object" and isinstance(stepped.parsed["legs"], int), stepped.text
    assert rejections(log) == before + 1  # json_schema refused once; not retried with backoff
    again = model.chat([{"role": "user", "content": "How many legs does a spider have?"}], schema=LEGS, max_tokens=24)
    assert again.structured == "json_object" and isinstance(again.parsed["legs"], int)
    assert rejections(log) == before + 1  # remembered for the endpoint

    prompt = get_model(f"openai:qwen@{url}", cache_dir=tmp_path, use_cache=False, structured="prompt")
    plain = prompt.chat(ASK, schema=LEGS, max_tokens=24)
    assert plain.structured == "prompt" and isinstance(plain.parsed["legs"], int), plain.text

    forced = get_model(f"openai:qwen@{url}", cache_dir=tmp_path, use_cache=False, structured="json_schema")
    with pytest.raises(InvalidRequestError, match="Input should be 'text' or 'json_object'"):
        forced.chat(ASK, schema=LEGS, max_tokens=24)
    assert rejections(log) == before + 2


@pytest.mark.extended
def test_iterative_answers_through_the_server(server: tuple[str, Path], bis_synth_dir: Path, tmp_path: Path) -> None:
    url, log = server
    LEVELS.forget()
    before = rejections(log)
    model = get_model(f"openai:qwen@{url}", cache_dir=tmp_path, use_cache=False, backoff=5.0, retries=4)
    benchmark = load_benchmark(bis_synth_dir)
    pool = DatabasePool(benchmark)
    # the smaller database without sample rows keeps the prompt short; at most one query, then the answer
    agent = make_system("iterative", model=model, step_limit=1, max_tokens=256, sample_rows=0)
    question = next(q for q in benchmark.questions if q.id == "ops/filtering/000/en")
    try:
        answer = agent.answer(question, AgentEnv(benchmark=benchmark, databases=pool))
    finally:
        pool.close()
    assert answer.status == "ok", answer.error
    assert answer.text and answer.plan, answer
    assert all(step.sql for step in answer.steps) and answer.usage.calls >= 1
    assert rejections(log) == before + 1  # json_schema refused once, then json_object for every step


def test_a_run_through_the_server_answers_and_stops_early_when_the_server_is_killed(
    bis_synth_dir: Path, tmp_path: Path
) -> None:
    url, process, _ = start_server(tmp_path)
    out = tmp_path / "killed.run"
    # one short question: the smaller prompt without sample rows, a short reply, no second try
    args = ["run", bis_synth_dir, "--agent", "text2sql", "--model", f"openai:qwen@{url}", "-o", out]
    args += ["-O", "sample_rows=0", "-O", "max_tokens=96", "-O", "retries=0", "-M", "cache=false", "-M", "retries=1"]
    # a shared 2-core machine may take minutes over the schema's prompt: a long timeout, so slow is not taken for down
    args += ["-M", "timeout=900"]
    try:
        first = cli(*args, "--limit", "1")
        assert first.returncode in (0, 1), first.stderr  # 1: its SQL did not run (a small model's answer)
        [answer] = answers_of(out).values()
        assert answer["status"] == "ok" and answer["final_sql"], (answer.get("error"), first.stderr[-2000:])
    finally:
        process.kill()
        process.wait()
    stopped = cli(*args, "--limit", "6")
    assert stopped.returncode == 4, stopped.stderr
    line = next(line for line in stopped.stderr.splitlines() if line.startswith("stopped:"))
    assert f"openai:qwen@{url} does not answer (3 questions in a row" in line and "1 of 6 questions answered" in line
    assert len(answers_of(out)) == 4  # the first, and the three the server did not answer; two never asked
