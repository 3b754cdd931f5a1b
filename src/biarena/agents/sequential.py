"""`sequential`: plan, up to k queries, run them all, synthesize (CORGI Algorithm 1; DB-QA sequential).

The synthesis continues the first call's conversation: the question, the plan and the SQL are already there, so the
second message carries only the results, and a local model reuses everything it evaluated for the first call. The
standing instructions (the plan, the queries' form, the answer's form and length) follow the schema in the system
prompt, so they too are evaluated once for all questions."""

from typing import Any

from biarena.agents.llm_agent import LLMAgent, Tally
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


class Sequential(LLMAgent):
    """A plan and up to `max_queries` queries in one reply; every query runs; a second call writes the answer."""

    name = "sequential"
    templates = ("common_system", "sequential_system", "sequential_queries", "sequential_results")

    def __init__(
        self,
        model: Model,
        *,
        max_queries: int = 5,
        max_tokens: int | None = None,
        answer_words: int | None = None,
        answer_tokens: int | None = None,
        short_answer: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(model, max_tokens=max_tokens or PLAN_TOKENS + QUERY_TOKENS * max_queries, **kwargs)
        self.max_queries = max_queries
        self.short_answer = short_answer
        self.answer_words = answer_words or (SHORT_ANSWER_WORDS if short_answer else ANALYSIS_WORDS)
        self.answer_tokens = answer_tokens or tokens_for_words(self.answer_words)

    def options(self) -> dict[str, Any]:
        """How many queries the agent may write, and the answer's form and length."""
        return {
            "max_queries": self.max_queries,
            "answer_words": self.answer_words,
            "answer_tokens": self.answer_tokens,
            "short_answer": self.short_answer,
        }

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
            draft.steps.append(self.execute(env, question, query.sql, query.purpose))
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
