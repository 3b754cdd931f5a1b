"""`no_interaction`: the database's records in the prompt, no SQL (refuses when they do not fit)."""

from typing import Any

from biarena.agents.llm_agent import LLMAgent, Tally
from biarena.agents.prompting import render, table_text
from biarena.agents.system import AgentEnv
from biarena.llm import Model
from biarena.records import Answer, Question

CHARS_PER_TOKEN = 4


class NoInteraction(LLMAgent):
    """Answers from the data itself, as many records as fit the context window."""

    name = "no_interaction"
    templates = ("no_interaction",)

    def __init__(self, model: Model, *, context_tokens: int = 6000, max_tokens: int = 384, **kwargs: Any) -> None:
        super().__init__(model, max_tokens=max_tokens, **kwargs)
        self.context_tokens = context_tokens

    def options(self) -> dict[str, Any]:
        """The record budget."""
        return {"context_tokens": self.context_tokens}

    def records(self, env: AgentEnv, question: Question) -> str | None:
        """Every table's rows as text, or None when the database does not fit the budget."""
        db = env.databases.get(question.database)
        budget = (self.context_tokens - self.max_tokens) * CHARS_PER_TOKEN
        parts, used = [], 0
        for table in db.tables():
            sample = db.sample_rows(table, max(1, budget // 8))
            text = (
                f"Table {table}:\n{table_text(sample.columns, [list(r) for r in sample.rows], limit=len(sample.rows))}"
            )
            used += len(text)
            if used > budget:
                return None
            parts.append(text)
        return "\n\n".join(parts)

    def solve(self, question: Question, env: AgentEnv, tally: Tally) -> Answer:
        """Answer from the records, or refuse clearly."""
        records = self.records(env, question)
        if records is None:
            return Answer(
                question_id=question.id,
                system=self.system_spec(),
                status="error",
                error=f"the database does not fit the context ({self.context_tokens} tokens); "
                "use an agent that queries it",
            )
        context = self.context(env, question)
        prompt = render(
            "no_interaction",
            question=question.text,
            now=context["now"],
            knowledge=context["knowledge"],
            records=records,
        )
        text = self.chat(tally, [{"role": "user", "content": prompt}]).text.strip()
        return Answer(question_id=question.id, system=self.system_spec(), text=text)
