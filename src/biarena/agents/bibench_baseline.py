"""`bibench_baseline`: the main question plus two generated supplementary ones, each text2sql -> answer."""

from typing import Any

from biarena.agents.llm_agent import LLMAgent, Tally
from biarena.agents.prompting import render, sql_blocks, table_text
from biarena.agents.system import AgentEnv
from biarena.llm import Model
from biarena.records import Answer, Question

SUPPLEMENTARY_SCHEMA = {
    "type": "object",
    "properties": {"questions": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2}},
    "required": ["questions"],
}


class BIBenchBaseline(LLMAgent):
    """BI-Bench's baseline BI system (section 5.1)."""

    name = "bibench_baseline"
    templates = ("common_system", "bibench_supplementary", "text2sql", "bibench_answer", "bibench_synthesis")

    def __init__(self, model: Model, *, max_tokens: int = 384, **kwargs: Any) -> None:
        super().__init__(model, max_tokens=max_tokens, **kwargs)

    def solve(self, question: Question, env: AgentEnv, tally: Tally) -> Answer:
        """Main + 2 supplementary questions -> SQL -> results -> answers -> one response."""
        system = self.system_message(env, question)
        extra = self.chat(
            tally,
            [system, {"role": "user", "content": render("bibench_supplementary", question=question.text)}],
            schema=SUPPLEMENTARY_SCHEMA,
        ).parsed["questions"][:2]
        steps, answers = [], []
        for asked in [question.text, *extra]:
            reply = self.chat(tally, [system, {"role": "user", "content": render("text2sql", question=asked)}]).text
            queries = sql_blocks(reply)
            if not queries:
                answers.append(f"Q: {asked}\nA: (no SQL was written)")
                continue
            step = self.execute(env, question, queries[0])
            steps.append(step)
            result = f"error: {step.error}" if step.error else table_text(step.columns, step.preview)
            short = self.chat(
                tally,
                [{"role": "user", "content": render("bibench_answer", question=asked, sql=step.sql, result=result)}],
            ).text
            answers.append(f"Q: {asked}\nA: {short.strip()}")
        text = self.chat(
            tally,
            [
                {
                    "role": "user",
                    "content": render("bibench_synthesis", question=question.text, evidence="\n\n".join(answers)),
                }
            ],
        ).text.strip()
        main = steps[0].sql if steps else None
        return Answer(
            question_id=question.id,
            system=self.system_spec(),
            plan="\n".join(extra),
            steps=steps,
            final_sql=main,
            text=text,
        )
