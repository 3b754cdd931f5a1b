"""LLMAgent: what every model-driven agent shares (prompt context, usage tally, keeping work when a call fails)."""

import threading
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from biarena.agents.prompting import prompt_hash, render, text_hash
from biarena.agents.system import AgentEnv
from biarena.agents.tool_session import ToolLimits, ToolSession
from biarena.db import describe_schema
from biarena.llm import Completion, Message, Model, ModelError, StructuredOutputError
from biarena.options import Options
from biarena.records import Answer, Question, Step, SystemSpec, Usage

AGENT_TOOL_LIMITS = ToolLimits(max_statements=1_000_000, max_database_seconds=float("inf"))
"""A built-in agent's own options bound its statements (step_limit, max_queries); the sandbox bounds each one."""


@dataclass
class Tally:
    """Model usage of one answer, the stage the agent is at (so a failed call says where it failed), and the
    question's database tools (every statement the agent runs goes through them)."""

    usage: Usage = field(default_factory=Usage)
    stage: str = ""
    tools: ToolSession | None = None

    def add(self, completion: Completion, cost: float | None = None) -> None:
        """Count one reply: a call made to the model (with its cost when prices are set), or one from the cache."""
        if completion.cached:
            self.usage.cache_hits += 1
            return
        self.usage.calls += 1
        self.usage.prompt_tokens += completion.prompt_tokens
        self.usage.completion_tokens += completion.completion_tokens
        if cost is not None:
            self.usage.cost = (self.usage.cost or 0.0) + cost


class LLMAgentOptions(Options):
    """What every model-driven agent takes."""

    max_tokens: int = Field(512, ge=1)
    """Token budget of each reply."""


class SchemaAgentOptions(LLMAgentOptions):
    """What every agent that is shown the schema takes."""

    sample_rows: int = Field(2, ge=0)
    """Sample rows per table in the schema the model is shown (a table that explains codes is shown whole)."""


class LLMAgent:
    """Base of the agents that think with a model and act through the SQL sandbox."""

    name = "llm"
    Options: type[LLMAgentOptions] = SchemaAgentOptions
    templates: tuple[str, ...] = ("common_system",)
    shows_schema = True
    """Whether the agent shows the model the schema description (recorded on each answer by hash and size)."""

    def __init__(self, model: Model, options: LLMAgentOptions | None = None, **values: Any) -> None:
        self.model = model
        self.options = self.Options.resolve(options, values, f"agent '{self.name}'")
        self.max_tokens = self.options.max_tokens
        self.sample_rows = int(getattr(self.options, "sample_rows", 0))
        self._schemas: dict[tuple[int, str], str] = {}
        self._schema_lock = threading.Lock()

    def answer_options(self) -> dict[str, Any]:
        """Every option that changes answers (all of the agent's options; they are part of the run)."""
        return self.options.model_dump()

    def spec_options(self) -> dict[str, Any]:
        """The model, prompt version and options (a different one is a different run)."""
        return {**self.model.record(), "prompt_hash": prompt_hash(*self.templates), **self.answer_options()}

    def system_spec(self) -> SystemSpec:
        """Who answered."""
        return SystemSpec(
            agent=self.name,
            model=self.model.spec,
            prompt_hash=prompt_hash(*self.templates),
            options=self.answer_options(),
        )

    def schema(self, env: AgentEnv, question: Question) -> str:
        """The schema text of the question's database (DDL, keys, sample rows, code meanings)."""
        key = (id(env), question.database)
        with self._schema_lock:
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
            "schema": self.schema(env, question) if self.shows_schema else "",
            "knowledge": env.benchmark.knowledge_for(question),
            "question": question.text,
        }

    def system_message(self, env: AgentEnv, question: Question) -> Message:
        """The system prompt: role, dialect, today, schema, knowledge."""
        return {"role": "system", "content": render("common_system", **self.context(env, question))}

    def chat(self, tally: Tally, messages: list[Message], *, stage: str, **kwargs: Any) -> Completion:
        """One model call at `stage` (named in the answer if it fails), counted on this answer."""
        tally.stage = stage
        kwargs.setdefault("max_tokens", self.max_tokens)
        try:
            completion = self.model.chat(messages, **kwargs)
        except StructuredOutputError as error:
            for spent in error.completions:  # replies the schema rejected were still paid for
                tally.add(spent, self.model.cost(spent) if self.model.prices else None)
            raise
        for spent in (*completion.earlier, completion):
            tally.add(spent, self.model.cost(spent) if self.model.prices else None)
        return completion

    def answer(self, question: Question, env: AgentEnv) -> Answer:
        """Answer one question; a failed model call keeps everything produced before it and says where it failed."""
        draft = Answer(question_id=question.id, system=self.system_spec())
        tools = ToolSession(env, question, draft, AGENT_TOOL_LIMITS, record_calls=False)
        tally = Tally(usage=Usage(cost=0.0 if self.model.prices else None), tools=tools)
        try:
            if self.shows_schema:
                self.record_shown(draft, self.schema(env, question))
            self.solve(question, env, tally, draft)
        except ModelError as error:
            draft.error_stage = tally.stage or None
            draft.error = f"{tally.stage} failed: {error}" if tally.stage else str(error)
        if tally.usage.cost is not None:
            tally.usage.cost = round(tally.usage.cost, 8)
        draft.usage = tally.usage
        if not draft.text and draft.final_sql is None:
            draft.status = "error"
            draft.error = draft.error or "the system gave neither an answer nor SQL"
        return draft

    def solve(self, question: Question, env: AgentEnv, tally: Tally, draft: Answer) -> None:
        """The agent's strategy: fill `draft` as work is done, so a failure later keeps what came before."""
        raise NotImplementedError

    @staticmethod
    def record_shown(draft: Answer, text: str) -> None:
        """Record which database text the model was shown: its hash and size."""
        draft.schema_hash = text_hash(text)
        draft.schema_chars = len(text)

    @staticmethod
    def execute(tally: Tally, sql: str, purpose: str | None = None) -> Step:
        """Run one model-written statement through the question's database tools (the sandbox); its step joins
        the answer's steps."""
        assert tally.tools is not None, "a tally made by LLMAgent.answer carries the question's tools"
        step, _ = tally.tools.statement(sql, purpose)
        return step

    @staticmethod
    def final_sql(steps: list[Step]) -> str | None:
        """The query an answer offers: the last one that ran, else the last one written."""
        return next((s.sql for s in reversed(steps) if s.ok), steps[-1].sql if steps else None)
