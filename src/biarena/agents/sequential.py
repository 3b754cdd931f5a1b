"""`sequential`: plan, up to k queries, run them all, synthesize (CORGI Algorithm 1; DB-QA sequential).

The synthesis continues the first call's conversation: the question, the plan and the SQL are already there, so the
second message carries only the results, and a local model reuses everything it evaluated for the first call. The
standing instructions (the plan, the queries' form, the answer's form and length) follow the schema in the system
prompt, so they too are evaluated once for all questions."""

from typing import Any

from pydantic import Field

from biarena.agents.llm_agent import LLMAgent, SchemaAgentOptions, Tally
from biarena.agents.prompting import render, result_text
from biarena.agents.system import AgentEnv
from biarena.agents.written_query import written_plan, written_queries
from biarena.llm import Message, Model
from biarena.records import Answer, Question, Step

PLAN_TOKENS = 150
"""Token budget of the plan in the first reply."""
QUERY_TOKENS = 150
"""Token budget of each query (its "Query N:" line and its SQL) in the first reply."""
ANALYSIS_WORDS = 400
"""Default length of the synthesized analysis."""
SHORT_ANSWER_WORDS = 100
"""Default length of the BIS-style short answer."""


def tokens_for_words(words: int) -> int:
    """A token budget that fits `words` words of English prose with its formatting."""
    return 50 + 3 * words // 2


class SequentialOptions(SchemaAgentOptions):
    """Options of the sequential agent; a budget left unset follows from the others."""

    max_tokens: int | None = Field(
        None, ge=1, description=f"Token budget of the plan and queries (default {PLAN_TOKENS} + {QUERY_TOKENS} each)."
    )
    max_queries: int = Field(5, ge=1)
    """Queries the agent may write for a question, every one run (the reply stops where one more would begin)."""
    answer_words: int | None = Field(
        None,
        ge=1,
        description=f"Words in the answer (default {ANALYSIS_WORDS}; {SHORT_ANSWER_WORDS} with short_answer).",
    )
    answer_tokens: int | None = Field(None, ge=1, description="Token budget of the answer (default: answer_words fit).")
    short_answer: bool = False
    """Write a short BIS-style answer instead of an analysis."""

    def resolved(self) -> "SequentialOptions":
        """These options with each unset budget filled in from the others."""
        words = self.answer_words or (SHORT_ANSWER_WORDS if self.short_answer else ANALYSIS_WORDS)
        return self.model_copy(
            update={
                "max_tokens": self.max_tokens or PLAN_TOKENS + QUERY_TOKENS * self.max_queries,
                "answer_words": words,
                "answer_tokens": self.answer_tokens or tokens_for_words(words),
            }
        )


class Sequential(LLMAgent):
    """A plan and up to `max_queries` queries in one reply; every query runs; a second call writes the answer."""

    name = "sequential"
    Options = SequentialOptions
    options: SequentialOptions
    templates = ("common_system", "sequential_system", "sequential_queries", "sequential_results")

    def __init__(self, model: Model, options: SequentialOptions | None = None, **values: Any) -> None:
        super().__init__(model, options, **values)
        self.options = self.options.resolved()
        self.max_tokens = self.options.max_tokens or 0
        self.max_queries = self.options.max_queries
        self.short_answer = self.options.short_answer
        self.answer_words = self.options.answer_words or 0
        self.answer_tokens = self.options.answer_tokens or 0

    def solve(self, question: Question, env: AgentEnv, tally: Tally, draft: Answer) -> None:
        """S = h(Q, D, K); R = e(S); A = f(Q, R, K), with S and R index-aligned."""
        system = self.system_message(env, question)
        # what stays the same from question to question follows the schema in the system prompt: a local model
        # evaluates it once and reuses it, and each question's own messages stay short
        standing = render(
            "sequential_system", max_queries=self.max_queries, words=self.answer_words, short=self.short_answer
        )
        messages: list[Message] = [
            {"role": "system", "content": f"{system['content']}\n\n{standing}"},
            {
                "role": "user",
                "content": render("sequential_queries", question=question.text, max_queries=self.max_queries),
            },
        ]
        # a query past the last one that may run would be written for nothing: the reply ends where it would begin
        reply = self.chat(tally, messages, stage="plan and queries", stop=(f"Query {self.max_queries + 1}:",)).text
        draft.plan = written_plan(reply)
        written = written_queries(reply)
        if len(written) > self.max_queries:
            draft.notes.append(
                f"the model wrote {len(written)} queries; the first {self.max_queries} ran (max_queries)"
            )
        for query in written[: self.max_queries]:
            self.execute(tally, query.sql, query.purpose)
        draft.final_sql = self.final_sql(draft.steps)
        note = None
        if not written:
            draft.notes.append("the model wrote no SQL; the answer was written without data")
            note = "the reply had no SQL query, so nothing ran"
        elif len(written) > self.max_queries:
            note = f"only the first {self.max_queries} queries ran"
        results = render(
            "sequential_results",
            results=self.results(draft.steps),
            note=note,
            words=self.answer_words,
            short=self.short_answer,
        )
        text = self.chat(
            tally,
            [*messages, {"role": "assistant", "content": reply}, {"role": "user", "content": results}],
            stage="synthesis",
            max_tokens=self.answer_tokens,
        ).text.strip()
        draft.text = text or None
        if not text:
            draft.error, draft.error_stage = "the synthesis was empty", "synthesis"

    @staticmethod
    def results(steps: list[Step]) -> str:
        """What each query returned (its error, or its rows with how many there were), numbered as written."""
        parts = []
        for i, step in enumerate(steps, start=1):
            head = f"Result {i} ({step.purpose}):" if step.purpose else f"Result {i}:"
            parts.append(f"{head}\n{result_text(step)}")
        return "\n\n".join(parts)
