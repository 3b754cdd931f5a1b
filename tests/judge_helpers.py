"""What the judge tests share: a small benchmark over the sales database, a scripted judge model, answers."""

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from biarena.benchmarks import load_benchmark, save_benchmark
from biarena.db import DatabasePool
from biarena.judges import ScorerContext
from biarena.llm import ChatRequest, Completion, MockProvider, Model
from biarena.metrics import ScoringContext
from biarena.records import Answer, Benchmark, DatabaseRef, Question, Step, SystemSpec

Script = Callable[[ChatRequest], str | Completion]


def shop_context(tmp_path: Path, sales_db: Path, questions: list[Question], model: Model | None) -> ScorerContext:
    """A judge context over a benchmark of `questions` about the sales database."""
    bench = Benchmark(
        name="shop",
        now=datetime(2023, 1, 17, 9, 30),
        databases={"sales": DatabaseRef(path=str(sales_db))},
        questions=questions,
    )
    benchmark = load_benchmark(save_benchmark(bench, tmp_path / "shop"))
    return ScorerContext(scoring=ScoringContext(benchmark, DatabasePool(benchmark)), model=model, seed=0)


def scripted(script: Script | list) -> tuple[Model, MockProvider]:
    """A judge model replying from a script (a function of the request, or replies in order), without a cache."""
    provider = MockProvider([script] if callable(script) else list(script))
    return Model(provider, cache=None, backoff=0.0, retries=0), provider


def reply(**fields: Any) -> str:
    """A JSON reply."""
    return json.dumps(fields)


def prompt_of(request: ChatRequest) -> str:
    """The first user message of a request (the prompt; a reply asked again adds turns after it)."""
    return next(content for role, content in request.messages if role == "user")


def question(qid: str = "q1", text: str = "How many sales were made?", **fields: Any) -> Question:
    """A question about the sales database."""
    return Question(id=qid, text=text, database="sales", **fields)


def answer(text: str | None, *, plan: str | None = None, sql: list[str] | None = None, qid: str = "q1") -> Answer:
    """An answer with optional plan and SQL steps (steps carry a small result)."""
    steps = [Step(sql=s, columns=["n"], preview=[[400]], row_count=1) for s in sql or []]
    return Answer(
        question_id=qid,
        system=SystemSpec(agent="test"),
        plan=plan,
        steps=steps,
        final_sql=steps[-1].sql if steps else None,
        text=text,
    )
