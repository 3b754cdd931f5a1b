"""The System protocol every agent and external adapter implements, and the step helper they share."""

from dataclasses import dataclass
from typing import Any, Protocol

from biarena.db import DatabasePool, QueryResult, SqlProblem
from biarena.records import Answer, Benchmark, Question, Step

PREVIEW_ROWS = 20
"""Rows of a result kept on its step (and shown in prompts)."""


@dataclass
class AgentEnv:
    """What a system may use while answering: the benchmark and its sandboxed databases."""

    benchmark: Benchmark
    databases: DatabasePool
    tools: Any = None
    """The run's tool server (`biarena.toolserver.ToolServer`) when its system queries the database itself."""


class System(Protocol):
    """A system under test: answers one question at a time."""

    name: str

    def spec_options(self) -> dict[str, Any]:
        """Options that change this system's answers (stored in the run spec)."""
        ...

    def answer(self, question: Question, env: AgentEnv) -> Answer:
        """Answer one question; failures are recorded on the Answer, not raised."""
        ...


def run_step(
    env: AgentEnv,
    question: Question,
    sql: str,
    *,
    dialect: str | None = None,
    purpose: str | None = None,
    timeout: float | None = None,
) -> tuple[Step, QueryResult | None]:
    """Run `sql` for `question` through the sandbox and record it as a Step (with what it was for); `timeout`
    shortens the sandbox's time limit (never lengthens it)."""
    db = env.databases.get(question.database)
    if timeout is not None:
        timeout = min(timeout, db.timeout)
    try:
        result = db.execute(sql, dialect=dialect, now=env.benchmark.anchor_for(question), timeout=timeout)
    except SqlProblem as problem:
        return Step(sql=sql, purpose=purpose, error=str(problem), error_kind=problem.kind), None  # type: ignore[arg-type]
    step = Step(
        sql=sql,
        purpose=purpose,
        columns=result.columns,
        preview=result.preview(PREVIEW_ROWS),
        row_count=result.row_count,
        truncated=result.truncated,
        elapsed=round(result.elapsed, 6),
    )
    return step, result
