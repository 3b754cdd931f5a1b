"""`iterative`: decide the most crucial missing information, write one query, observe; until done."""

from typing import Any

from biarena.agents.llm_agent import LLMAgent, Tally
from biarena.agents.prompting import render, table_text
from biarena.agents.system import AgentEnv
from biarena.llm import Model
from biarena.records import Answer, Question

STEP_SCHEMA = {
    "type": "object",
    "properties": {
        "thought": {"type": "string"},
        "action": {"type": "string", "enum": ["query", "answer"]},
        "sql": {"type": "string"},
        "answer": {"type": "string"},
    },
    "required": ["thought", "action"],
}


class Iterative(LLMAgent):
    """Plan-and-act loop (DB-QA's iterative strategy) with a step limit."""

    name = "iterative"
    templates = ("common_system", "iterative_step")

    def __init__(self, model: Model, *, step_limit: int = 5, max_tokens: int = 384, **kwargs: Any) -> None:
        super().__init__(model, max_tokens=max_tokens, **kwargs)
        self.step_limit = step_limit

    def options(self) -> dict[str, Any]:
        """The step limit."""
        return {"step_limit": self.step_limit}

    def solve(self, question: Question, env: AgentEnv, tally: Tally) -> Answer:
        """Loop until the model answers or the step limit is reached."""
        steps, thoughts, history = [], [], []
        text = None
        for _ in range(self.step_limit):
            prompt = render("iterative_step", question=question.text, history="\n\n".join(history))
            reply = self.chat(
                tally, [self.system_message(env, question), {"role": "user", "content": prompt}], schema=STEP_SCHEMA
            ).parsed
            thoughts.append(reply.get("thought", ""))
            if reply["action"] == "answer" or not reply.get("sql"):
                text = reply.get("answer") or reply.get("thought")
                break
            step = self.execute(env, question, reply["sql"])
            steps.append(step)
            observed = f"error: {step.error}" if step.error else table_text(step.columns, step.preview)
            history.append(f"Step {len(steps)}: {reply.get('thought', '')}\nSQL: {step.sql}\nResult:\n{observed}")
        status = "ok" if text else "error"
        final = next((s.sql for s in reversed(steps) if s.ok), steps[-1].sql if steps else None)
        return Answer(
            question_id=question.id,
            system=self.system_spec(),
            plan="\n".join(t for t in thoughts if t),
            steps=steps,
            final_sql=final,
            text=text,
            status=status,
            error=None if text else f"no answer within {self.step_limit} steps",
        )
