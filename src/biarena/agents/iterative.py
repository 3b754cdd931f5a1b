"""`iterative`: decide the most crucial missing information, write one query, observe; until done or the limit."""

from typing import Any

from pydantic import Field

from biarena.agents.llm_agent import LLMAgent, SchemaAgentOptions, Tally
from biarena.agents.prompting import render, result_text
from biarena.agents.system import AgentEnv
from biarena.llm import Message
from biarena.records import Answer, Question, Step

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
NO_SQL = 'Your last reply chose "action": "query" but gave no SQL. Reply again with the "sql" to run, or answer.'


class IterativeOptions(SchemaAgentOptions):
    """Options of the iterative agent."""

    max_tokens: int = Field(384, ge=1)
    """Token budget of each reply."""
    step_limit: int = Field(5, ge=1)
    """Queries the agent may run before it must answer from what it found."""


class Iterative(LLMAgent):
    """Plan-and-act loop (DB-QA's iterative strategy) with a step limit and a final consolidation."""

    name = "iterative"
    Options = IterativeOptions
    options: IterativeOptions
    templates = ("common_system", "iterative_step", "iterative_final")

    @staticmethod
    def history(steps: list[Step]) -> str:
        """What the agent has looked up so far, step by step."""
        return "\n\n".join(
            f"Step {i}: {step.purpose or ''}\nSQL: {step.sql}\nResult:\n{result_text(step)}"
            for i, step in enumerate(steps, start=1)
        )

    def decide(self, tally: Tally, system: Message, prompt: str, stage: str) -> dict[str, Any]:
        """One decision: query or answer; a query without SQL is asked for again once."""
        messages: list[Message] = [system, {"role": "user", "content": prompt}]
        reply = self.chat(tally, messages, stage=stage, schema=STEP_SCHEMA).parsed
        if reply["action"] == "query" and not str(reply.get("sql") or "").strip():
            retry = [system, {"role": "user", "content": f"{prompt}\n\n{NO_SQL}"}]
            reply = self.chat(tally, retry, stage=stage, schema=STEP_SCHEMA).parsed
        return reply

    def solve(self, question: Question, env: AgentEnv, tally: Tally, draft: Answer) -> None:
        """Loop until the model answers; at the step limit, answer from everything gathered."""
        step_limit = self.options.step_limit
        system = self.system_message(env, question)
        thoughts: list[str] = []
        while len(draft.steps) < step_limit:
            number = len(draft.steps) + 1
            prompt = render(
                "iterative_step",
                question=question.text,
                history=self.history(draft.steps),
                step_limit=step_limit,
                remaining=step_limit - len(draft.steps),
            )
            reply = self.decide(tally, system, prompt, f"step {number}")
            thought = str(reply.get("thought") or "").strip()
            if thought:
                thoughts.append(thought)
                draft.plan = "\n".join(thoughts)
            sql = str(reply.get("sql") or "").strip()
            if reply["action"] == "answer":
                answer = str(reply.get("answer") or "").strip()
                if answer:
                    draft.text = answer
                    return
                draft.notes.append(f"step {number}: the model stopped without an answer; it was asked to consolidate")
                break
            if not sql:
                draft.notes.append(f"step {number}: the model chose to query twice without writing SQL; it stopped")
                break
            self.execute(tally, sql, thought or None)
            draft.final_sql = self.final_sql(draft.steps)
        else:
            draft.notes.append(f"the step limit ({step_limit}) was reached; the answer consolidates what was found")
        final = render(
            "iterative_final", question=question.text, history=self.history(draft.steps), step_limit=step_limit
        )
        text = self.chat(tally, [system, {"role": "user", "content": final}], stage="consolidation").text.strip()
        draft.text = text or None
