"""What the judge-run tests share: schema-valid scripted replies, a small CORGI-style run, and a judge command line
whose model is the mock."""

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from biarena.agents import make_system
from biarena.benchmarks import load_benchmark, save_benchmark
from biarena.llm import MockProvider, Model
from biarena.llm.cache import ResponseCache
from biarena.llm.types import ChatRequest
from biarena.records import Answer, Benchmark, DatabaseRef, Question, Step, SystemSpec
from biarena.runner import RunStore, make_spec, open_run


def fill(schema: dict[str, Any], score: int = 4, pick: bool = True) -> Any:
    """A value valid for `schema`: integers are `score` (clamped to the range), enums' arrays all their items when
    `pick` (else none), strings a short reason, unions their first branch."""
    if "anyOf" in schema:
        return fill(schema["anyOf"][0], score, pick)
    if "enum" in schema:
        if schema.get("type") == "integer":  # a score's scale: the value nearest `score`
            return min(schema["enum"], key=lambda value: abs(value - score))
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {key: fill(sub, score, pick) for key, sub in schema.get("properties", {}).items()}
    if kind == "array":
        items = schema.get("items", {})
        if "enum" in items:
            return list(items["enum"]) if pick else []
        return [fill(items, score, pick) for _ in range(schema.get("minItems", 1))]
    if kind == "integer":
        return max(schema.get("minimum", score), min(schema.get("maximum", score), score))
    if kind == "number":
        return float(score)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return "the answer meets this criterion in part"


def valid_reply(score: int = 4, pick: bool = True) -> Callable[[ChatRequest], str]:
    """A scripted model that answers every structured request with valid JSON for its schema."""

    def reply(request: ChatRequest) -> str:
        return json.dumps(fill(request.schema_dict() or {"type": "string"}, score, pick))

    return reply


def mock_model(replies: list[Any], cache_dir: Path | None = None) -> Model:
    """The mock model replying from `replies` (text, functions of the request, exceptions), cached in `cache_dir`."""
    cache = ResponseCache(cache_dir / "llm-cache.sqlite") if cache_dir is not None else None
    return Model(MockProvider(replies), cache=cache, retries=0, backoff=0.0)


ANSWER_TYPE4 = (
    "Recommendation: raise repeat purchases in Dublin by 10% by the end of Q2.\n"
    "1. Launch a loyalty discount of 5% on second orders from 1 March, owned by the CRM team (Query 1 shows "
    "Dublin's repeat rate at 12% against 20% elsewhere).\n"
    "2. Review delivery delays monthly with the logistics lead.\n"
    "Risk: discounts may erode margin; cap the budget at 2% of revenue and stop if the margin falls below 30%."
)


def corgi_bench(root: Path, sales_db: Path, count: int = 4) -> Benchmark:
    """Questions over the sales database, one per CORGI type in turn (type1 descriptive .. type4 recommendational)."""
    questions = []
    for i in range(count):
        kind = i % 4 + 1
        questions.append(
            Question(
                id=f"q{i:03d}",
                text=f"Question {i} of type {kind}: how can Dublin sell more?",
                database="sales",
                labels=[f"corgi:type{kind}"],
                gold_sql=["SELECT count(*) FROM sales"] if kind == 1 else [],
                reference_answer=None if kind == 1 else "Dublin's repeat rate is low; a loyalty discount helps.",
            )
        )
    bench = Benchmark(name="corgi-mini", databases={"sales": DatabaseRef(path=str(sales_db))}, questions=questions)
    return load_benchmark(save_benchmark(bench, root / "corgi-mini"))


def answer_for(question: Question, *, ok_steps: int = 3, failed_steps: int = 1) -> Answer:
    """An answer with a plan, `ok_steps` statements that ran (rows) and `failed_steps` that failed, and a text."""
    steps = [Step(sql="SELECT count(*) FROM sales", columns=["n"], preview=[[400]], row_count=1)] * ok_steps
    steps += [Step(sql="SELECT nope FROM sales", error="no such column: nope", error_kind="error")] * failed_steps
    return Answer(
        question_id=question.id,
        system=SystemSpec(agent="sequential", model="mock:scripted"),
        plan="Look at repeat purchases by city, then compare delivery times.",
        steps=steps,
        final_sql=steps[0].sql if steps else None,
        text=ANSWER_TYPE4,
    )


def write_run(path: Path, benchmark: Benchmark, answers: dict[str, Answer] | None = None) -> Path:
    """A run file holding the benchmark's questions and an answer to each (`answers` override by question id)."""
    system = make_system("gold")
    with RunStore(path, create=True) as store:
        questions = benchmark.questions
        open_run(store, make_spec(str(benchmark.root), benchmark, system, questions), questions)
        for question in questions:
            store.add_answer((answers or {}).get(question.id) or answer_for(question))
    return path


LAUNCHER = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, {tests!r})
from judge_run_helpers import fill
from biarena.cli import main
from biarena.scoring import execute as score_workflow
from biarena.llm import MockProvider, Model
from biarena.llm.cache import ResponseCache

delay = float({delay!r})

def reply(request):
    time.sleep(delay)
    return json.dumps(fill(request.schema_dict() or {{"type": "string"}}))

score_workflow.get_model = lambda spec, **options: Model(
    MockProvider([reply]), cache=ResponseCache(Path({cache!r}) / "llm-cache.sqlite"), retries=0
)
sys.argv = ["biarena", *sys.argv[1:]]
main()
"""


def judge_command(cache: Path, *args: str | Path, delay: float = 0.0) -> list[str]:
    """`biarena ARGS` in a fresh process whose judge model is the mock (valid replies, `delay` seconds each)."""
    code = LAUNCHER.format(tests=str(Path(__file__).parent), delay=delay, cache=str(cache))
    return [sys.executable, "-c", code, *map(str, args)]
