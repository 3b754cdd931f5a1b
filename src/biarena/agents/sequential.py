"""`sequential`: plan, up to k queries, run them all, synthesize (CORGI Algorithm 1; DB-QA sequential)."""

from typing import Any

from biarena.agents.llm_agent import LLMAgent, Tally
from biarena.agents.prompting import plan_of, render, sql_blocks
from biarena.agents.system import AgentEnv
from biarena.llm import Model
from biarena.records import Answer, Question


class Sequential(LLMAgent):
    """A plan and up to `max_queries` queries in one reply; every query runs; a second call writes the answer."""

    name = "sequential"
    templates = ("common_system", "sequential_queries", "synthesis")

    def __init__(
        self, model: Model, *, max_queries: int = 3, max_tokens: int = 400, answer_tokens: int = 200, **kwargs: Any
    ) -> None:
        super().__init__(model, max_tokens=max_tokens, **kwargs)
        self.max_queries = max_queries
        self.answer_tokens = answer_tokens

    def options(self) -> dict[str, Any]:
        """How many queries the agent may write."""
        return {"max_queries": self.max_queries, "max_tokens": self.max_tokens, "answer_tokens": self.answer_tokens}

    def solve(self, question: Question, env: AgentEnv, tally: Tally) -> Answer:
        """S = h(Q, D, K); R = e(S); A = f(Q, R, K), with S and R index-aligned."""
        context = self.context(env, question)
        messages = [
            self.system_message(env, question),
            {
                "role": "user",
                "content": render("sequential_queries", question=question.text, max_queries=self.max_queries),
            },
        ]
        reply = self.chat(tally, messages).text
        plan = plan_of(reply)
        queries = sql_blocks(reply)[: self.max_queries]
        steps = [self.execute(env, question, sql) for sql in queries]
        synthesis = render(
            "synthesis",
            question=question.text,
            now=context["now"],
            knowledge=context["knowledge"],
            evidence=self.evidence(steps),
        )
        # The synthesis shares the system prompt (schema) with the first call, so a local model reuses its state.
        text = self.chat(
            tally, [messages[0], {"role": "user", "content": synthesis}], max_tokens=self.answer_tokens
        ).text.strip()
        final = next((s.sql for s in reversed(steps) if s.ok), steps[-1].sql if steps else None)
        return Answer(
            question_id=question.id,
            system=self.system_spec(),
            plan=plan,
            steps=steps,
            final_sql=final,
            text=text or None,
            status="ok" if queries else "error",
            error=None if queries else "the model wrote no SQL",
        )
