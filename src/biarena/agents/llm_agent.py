"""LLMAgent: what every model-driven agent shares (prompt context, usage tally, failure recording)."""

import threading
from dataclasses import dataclass, field
from typing import Any

from biarena.agents.prompting import prompt_hash, render, table_text
from biarena.agents.system import AgentEnv, run_step
from biarena.db import describe_schema
from biarena.llm import Completion, Message, Model, ModelError
from biarena.records import Answer, Question, Step, SystemSpec, Usage


@dataclass
class Tally:
    """Model usage of one answer."""

    usage: Usage = field(default_factory=Usage)

    def add(self, completion: Completion) -> None:
        """Count one reply: a call made to the model, or one answered from the cache."""
        if completion.cached:
            self.usage.cache_hits += 1
            return
        self.usage.calls += 1
        self.usage.prompt_tokens += completion.prompt_tokens
        self.usage.completion_tokens += completion.completion_tokens


class LLMAgent:
    """Base of the agents that think with a model and act through the SQL sandbox."""

    name = "llm"
    templates: tuple[str, ...] = ("common_system",)

    def __init__(self, model: Model, *, max_tokens: int = 512, sample_rows: int = 2) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.sample_rows = sample_rows
        self._schemas: dict[tuple[int, str], str] = {}
        self._schema_lock = threading.Lock()

    def spec_options(self) -> dict[str, Any]:
        """The model and prompt version (a different one is a different run)."""
        return {"model": self.model.spec, "prompt_hash": prompt_hash(*self.templates), **self.options()}

    def options(self) -> dict[str, Any]:
        """Agent-specific options that change answers."""
        return {}

    def system_spec(self) -> SystemSpec:
        """Who answered."""
        return SystemSpec(
            agent=self.name, model=self.model.spec, prompt_hash=prompt_hash(*self.templates), options=self.options()
        )

    def schema(self, env: AgentEnv, question: Question) -> str:
        """The schema text of the question's database (DDL, keys, sample rows, code meanings)."""
        key = (id(env), question.database)
        with self._schema_lock:
            return self._schema_text(key, env, question)

    def _schema_text(self, key: tuple[int, str], env: AgentEnv, question: Question) -> str:
        if key not in self._schemas:
            db = env.databases.get(question.database)
            ref = env.benchmark.databases.get(question.database)
            self._schemas[key] = describe_schema(
                db, sample_rows=self.sample_rows, description=ref.description if ref else None
            )
        return self._schemas[key]

    def context(self, env: AgentEnv, question: Question) -> dict[str, Any]:
        """Values every prompt template may use."""
        anchor = env.benchmark.anchor_for(question)
        return {
            "dialect": env.databases.get(question.database).dialect,
            "now": anchor.strftime("%Y-%m-%d %H:%M:%S") + (f" ({anchor:%A})") if anchor else None,
            "schema": self.schema(env, question),
            "knowledge": env.benchmark.knowledge,
            "question": question.text,
        }

    def system_message(self, env: AgentEnv, question: Question) -> Message:
        """The system prompt: role, dialect, today, schema, knowledge."""
        return {"role": "system", "content": render("common_system", **self.context(env, question))}

    def chat(self, tally: Tally, messages: list[Message], **kwargs: Any) -> Completion:
        """One model call, counted on this answer."""
        kwargs.setdefault("max_tokens", self.max_tokens)
        completion = self.model.chat(messages, **kwargs)
        tally.add(completion)
        return completion

    def answer(self, question: Question, env: AgentEnv) -> Answer:
        """Answer one question; a model failure is recorded on the answer."""
        tally = Tally()
        try:
            answer = self.solve(question, env, tally)
        except ModelError as error:
            answer = Answer(question_id=question.id, system=self.system_spec(), status="error", error=str(error))
        answer.usage = tally.usage
        return answer

    def solve(self, question: Question, env: AgentEnv, tally: Tally) -> Answer:
        """The agent's strategy."""
        raise NotImplementedError

    @staticmethod
    def evidence(steps: list[Step]) -> str:
        """Queries and their results, index-aligned, for a synthesis prompt."""
        parts = []
        for i, step in enumerate(steps, start=1):
            result = f"error: {step.error}" if step.error else table_text(step.columns, step.preview)
            parts.append(f"Query {i}:\n{step.sql}\nResult {i}:\n{result}")
        return "\n\n".join(parts) if parts else "(no queries were run)"

    @staticmethod
    def execute(env: AgentEnv, question: Question, sql: str) -> Step:
        """Run one model-written statement in the sandbox."""
        step, _ = run_step(env, question, sql)
        return step
