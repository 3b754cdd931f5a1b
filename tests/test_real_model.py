"""The embedded local model, for real: few and short (about 10 tokens/s on 2 cores)."""

from pathlib import Path

import pytest

from biarena.agents import AgentEnv, make_system
from biarena.benchmarks import load_benchmark
from biarena.db import DatabasePool
from tests.run_helpers import require_embedded_model

pytestmark = [pytest.mark.real_model, pytest.mark.slow]


@pytest.fixture(scope="module")
def local_model():
    require_embedded_model()
    from biarena.llm import get_model

    return get_model("local", use_cache=False)


def test_weights_are_assembled_and_verified(local_model) -> None:
    from biarena.llm.weights import SHA256, SIZE

    path: Path = local_model.provider.path
    assert path.stat().st_size == SIZE
    assert path.with_suffix(".sha256").read_text().strip() == SHA256


def test_text2sql_with_the_local_model_writes_sql_that_runs(local_model, bis_synth_dir: Path) -> None:
    benchmark = load_benchmark(bis_synth_dir)
    env = AgentEnv(benchmark=benchmark, databases=DatabasePool(benchmark))
    agent = make_system("text2sql", model=local_model)
    picks = [q for q in benchmark.questions if q.id in ("ads/filtering/000/en", "ads/language/000/en")]
    picks = picks or benchmark.questions[:2]
    for question in picks[:2]:
        answer = agent.answer(question, env)
        assert answer.final_sql, answer.error
        assert any(step.ok for step in answer.steps), [s.error for s in answer.steps]


@pytest.mark.extended
def test_sequential_with_the_local_model_answers_with_a_query(local_model, bis_synth_dir: Path) -> None:
    benchmark = load_benchmark(bis_synth_dir)
    env = AgentEnv(benchmark=benchmark, databases=DatabasePool(benchmark))
    agent = make_system("sequential", model=local_model, max_queries=2)
    question = next(q for q in benchmark.questions if q.id == "ops/filtering/000/en")
    answer = agent.answer(question, env)
    assert answer.status == "ok", answer.error
    assert len(answer.steps) >= 1 and answer.text
