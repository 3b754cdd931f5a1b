"""`text2sql`: one query (BIS style), corrected once when it fails to run."""

from typing import Any

from biarena.agents.llm_agent import LLMAgent, Tally
from biarena.agents.prompting import render, sql_blocks, table_text
from biarena.agents.system import AgentEnv
from biarena.llm import Model
from biarena.records import Answer, Question


class Text2SQL(LLMAgent):
    """Question -> one SQL query -> run; on an execution error, the error goes back for a corrected query."""

    name = "text2sql"
    templates = ("common_system", "text2sql", "text2sql_fix")

    def __init__(self, model: Model, *, retries: int = 1, max_tokens: int = 384, **kwargs: Any) -> None:
        super().__init__(model, max_tokens=max_tokens, **kwargs)
        self.retries = retries

    def options(self) -> dict[str, Any]:
        """Self-correction retries."""
        return {"retries": self.retries}

    def solve(self, question: Question, env: AgentEnv, tally: Tally) -> Answer:
        """Write, run, and if needed correct one query."""
        messages = [
            self.system_message(env, question),
            {"role": "user", "content": render("text2sql", question=question.text)},
        ]
        steps = []
        for attempt in range(self.retries + 1):
            reply = self.chat(tally, messages).text
            queries = sql_blocks(reply)
            if not queries:
                return Answer(
                    question_id=question.id,
                    system=self.system_spec(),
                    steps=steps,
                    status="error",
                    error="the model wrote no SQL",
                    text=reply[:2000],
                )
            step = self.execute(env, question, queries[0])
            steps.append(step)
            if step.ok or attempt == self.retries:
                break
            messages += [
                {"role": "assistant", "content": reply},
                {"role": "user", "content": render("text2sql_fix", error=step.error)},
            ]
        last = steps[-1]
        text = table_text(last.columns, last.preview) if last.ok else None
        return Answer(question_id=question.id, system=self.system_spec(), steps=steps, final_sql=last.sql, text=text)
