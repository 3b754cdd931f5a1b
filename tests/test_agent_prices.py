"""Usage cost from a price table (`--prices FILE`), and the agent options of `biarena run`."""

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from biarena.agents import make_system
from biarena.benchmarks import save_benchmark
from biarena.errors import FormatError, NotFoundError, UsageError
from biarena.llm import MockProvider, Model
from biarena.llm.cache import ResponseCache
from biarena.llm.prices import load_prices, prices_for
from biarena.records import Benchmark, DatabaseRef, Question
from biarena.runner import RunStore
from tests.test_agents import shop_env


def biarena(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "biarena", *map(str, args)], capture_output=True, text=True, timeout=120
    )


def one_line_error(result: subprocess.CompletedProcess, fragment: str) -> None:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and len(lines) == 1 and fragment in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_load_prices_yaml_and_json(tmp_path: Path) -> None:
    yaml_file = tmp_path / "prices.yaml"
    yaml_file.write_text("openai:gpt-4o-mini: {prompt: 0.15, completion: 0.6}\ngpt-4o: {prompt: 2.5, completion: 10}\n")
    table = load_prices(yaml_file)
    assert table == {
        "openai:gpt-4o-mini": {"prompt": 0.15, "completion": 0.6},
        "gpt-4o": {"prompt": 2.5, "completion": 10.0},
    }
    json_file = tmp_path / "prices.json"
    json_file.write_text(json.dumps({"local": {"prompt": 0, "completion": 0}}))
    assert load_prices(json_file) == {"local": {"prompt": 0.0, "completion": 0.0}}
    # found by full string, without the endpoint, or by the bare name
    assert prices_for(table, "openai:gpt-4o-mini@http://127.0.0.1:8000/v1")["prompt"] == 0.15
    assert prices_for(table, "openai:gpt-4o")["completion"] == 10.0
    with pytest.raises(UsageError, match="no price for model 'openai:o3' in the price table \\(it prices: gpt-4o"):
        prices_for(table, "openai:o3")


@pytest.mark.parametrize(
    ("text", "suffix", "error", "fragment"),
    [
        ("gpt: {prompt: -1, completion: 1}", ".yaml", FormatError, "'gpt': prompt must be a number of 0 or more"),
        ("gpt: {prompt: 1}", ".yaml", FormatError, "'gpt': missing 'completion'"),
        ("gpt: {prompt: 1, completion: 1, input: 2}", ".yaml", FormatError, "unknown key 'input'"),
        ("gpt: {prompt: cheap, completion: 1}", ".yaml", FormatError, "prompt must be a number"),
        ("gpt: 3", ".yaml", FormatError, "'gpt': expected {prompt: PRICE, completion: PRICE}"),
        ("- a\n- b", ".yaml", FormatError, "expected a mapping of model"),
        ("gpt: {prompt: [1, completion: 1}", ".yaml", FormatError, "line 1: invalid YAML"),
        ('{"gpt": {"prompt": 1,}}', ".json", FormatError, "line 1: invalid JSON"),
    ],
)
def test_price_table_errors(tmp_path: Path, text: str, suffix: str, error: type, fragment: str) -> None:
    path = tmp_path / f"prices{suffix}"
    path.write_text(text)
    with pytest.raises(error, match=None) as raised:
        load_prices(path)
    assert fragment in str(raised.value) and str(path) in str(raised.value)


def test_missing_price_table(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="price table not found"):
        load_prices(tmp_path / "nope.yaml")


def test_agent_usage_cost(tmp_path: Path, sales_db: Path) -> None:
    env = shop_env(tmp_path, sales_db)
    question = env.benchmark.questions[0]
    cache = ResponseCache(tmp_path / "cache.sqlite")
    replies = ["Query 1: total\n```sql\nSELECT count(*) FROM sales\n```", "There were 400 sales."]
    model = Model(MockProvider(replies), cache=cache, prices={"prompt": 2.0, "completion": 8.0})
    answer = make_system("sequential", model=model).answer(question, env)
    usage = answer.usage
    assert usage.calls == 2 and usage.prompt_tokens > 0
    assert usage.cost == pytest.approx((usage.prompt_tokens * 2.0 + usage.completion_tokens * 8.0) / 1e6)
    # a re-run answered from the cache costs nothing
    again = Model(MockProvider(["unused"]), cache=cache, prices={"prompt": 2.0, "completion": 8.0})
    rerun = make_system("sequential", model=again).answer(question, env)
    assert rerun.usage.calls == 0 and rerun.usage.cache_hits == 2 and rerun.usage.cost == 0.0
    # without a price table there is no cost
    plain = make_system("sequential", model=Model(MockProvider(replies), cache=None)).answer(question, env)
    assert plain.usage.cost is None


@pytest.fixture
def bench(tmp_path: Path, sales_db: Path) -> Path:
    benchmark = Benchmark(
        name="shop",
        now=datetime(2023, 1, 17, 9, 30),
        databases={"sales": DatabaseRef(path=str(sales_db))},
        questions=[Question(id=f"q{i}", text=f"Question {i}?", database="sales") for i in range(2)],
    )
    return save_benchmark(benchmark, tmp_path / "shop")


def test_run_with_prices_and_agent_options(bench: Path, tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("scripted: {prompt: 1.5, completion: 6}\n")
    run = tmp_path / "seq.run"
    result = biarena(
        "run", bench, "--agent", "sequential", "--model", "mock", "--prices", prices, "--max-queries", "2",
        "--answer-words", "120", "--short-answer", "--sample-rows", "1", "--no-cache", "-o", run,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    with RunStore(run) as store:
        spec, answers = store.spec(), store.answers()
    assert spec is not None and {k: spec.options[k] for k in ("max_queries", "answer_words", "short_answer")} == {
        "max_queries": 2,
        "answer_words": 120,
        "short_answer": True,
    }
    assert spec.options["sample_rows"] == 1 and spec.options["max_tokens"] == 450
    assert len(answers) == 2
    for answer in answers:
        usage = answer.usage
        assert usage.cost == pytest.approx((usage.prompt_tokens * 1.5 + usage.completion_tokens * 6) / 1e6)
    # a different answer length is a different run
    again = biarena("run", bench, "--agent", "sequential", "--model", "mock", "--answer-words", "300", "-o", run)
    assert again.returncode == 2 and "holds a different run" in again.stderr


def test_run_option_errors(bench: Path, tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("gpt-4o: {prompt: 2.5, completion: 10}\n")
    one_line_error(
        biarena("run", bench, "--agent", "text2sql", "--model", "mock", "--prices", prices, "-o", tmp_path / "a.run"),
        "no price for model 'mock'",
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text("gpt-4o: {prompt: 2.5}\n")
    one_line_error(
        biarena("run", bench, "--agent", "text2sql", "--model", "mock", "--prices", bad, "-o", tmp_path / "b.run"),
        "missing 'completion'",
    )
    one_line_error(
        biarena("run", bench, "--system", "gold", "--prices", prices, "-o", tmp_path / "c.run"),
        "does not use a model (--prices)",
    )
    one_line_error(
        biarena("run", bench, "--agent", "text2sql", "--model", "mock", "--step-limit", "3", "-o", tmp_path / "d.run"),
        "does not take",
    )
    assert not (tmp_path / "a.run").exists() and not (tmp_path / "d.run").exists()


def test_prices_do_not_change_the_run(bench: Path, tmp_path: Path) -> None:
    run = tmp_path / "t.run"
    assert biarena("run", bench, "--agent", "text2sql", "--model", "mock", "-o", run).returncode == 0
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"mock:scripted": {"prompt": 1, "completion": 1}}))
    resumed = biarena("run", bench, "--agent", "text2sql", "--model", "mock", "--prices", prices, "-o", run)
    assert resumed.returncode == 0, resumed.stderr
    with RunStore(run) as store:
        assert len(store.answers()) == 2
