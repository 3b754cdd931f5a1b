"""`bibench_baseline`: the main question plus two generated supplementary ones, each text2sql -> answer."""

from pydantic import Field

from biarena.agents.llm_agent import LLMAgent, SchemaAgentOptions, Tally
from biarena.agents.prompting import render, result_text
from biarena.agents.system import AgentEnv
from biarena.agents.written_query import written_queries
from biarena.records import Answer, Question

SUPPLEMENTARY = 2
"""Supplementary questions per question (BI-Bench section 5.1)."""
SUPPLEMENTARY_SCHEMA = {
    "type": "object",
    "properties": {
        "questions": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": SUPPLEMENTARY,
            "maxItems": SUPPLEMENTARY,
        }
    },
    "required": ["questions"],
}


class BIBenchBaselineOptions(SchemaAgentOptions):
    """Options of the bibench_baseline agent."""

    max_tokens: int = Field(384, ge=1)
    """Token budget of each reply."""


class BIBenchBaseline(LLMAgent):
    """BI-Bench's baseline BI system (section 5.1): text-to-SQL, then SQL-to-NLG, for the question and two
    supplementary ones; the answers are synthesized into one response."""

    name = "bibench_baseline"
    Options = BIBenchBaselineOptions
    templates = ("common_system", "bibench_supplementary", "text2sql", "bibench_answer", "bibench_synthesis")

    def solve(self, question: Question, env: AgentEnv, tally: Tally, draft: Answer) -> None:
        """Main + 2 supplementary questions -> SQL -> results -> answers -> one response."""
        context = self.context(env, question)
        system = self.system_message(env, question)
        extra = self.chat(
            tally,
            [system, {"role": "user", "content": render("bibench_supplementary", question=question.text)}],
            stage="supplementary questions",
            schema=SUPPLEMENTARY_SCHEMA,
        ).parsed["questions"]
        extra = [str(q).strip() for q in extra]
        draft.plan = "\n".join(extra)
        answers = []
        for index, asked in enumerate([question.text, *extra]):
            which = "the main question" if index == 0 else f"supplementary question {index}"
            reply = self.chat(
                tally,
                [system, {"role": "user", "content": render("text2sql", question=asked)}],
                stage=f"SQL for {which}",
            ).text
            queries = written_queries(reply)
            if not queries:
                draft.notes.append(f"{which}: the model wrote no SQL")
                answers.append(f"Q: {asked}\nA: (no SQL was written)")
                continue
            if len(queries) > 1:
                draft.notes.append(f"{which}: the model wrote {len(queries)} queries; the first was run")
            step = self.execute(tally, queries[0].sql, asked)
            if index == 0:
                draft.final_sql = step.sql  # only the main question's query answers the question itself
            short = self.chat(
                tally,
                [
                    {
                        "role": "user",
                        "content": render(
                            "bibench_answer",
                            question=asked,
                            sql=step.sql,
                            result=result_text(step),
                            now=context["now"],
                            knowledge=context["knowledge"],
                        ),
                    }
                ],
                stage=f"answer to {which}",
            ).text.strip()
            step.short_answer = short or None
            answers.append(f"Q: {asked}\nA: {short}")
        synthesis = render(
            "bibench_synthesis",
            question=question.text,
            evidence="\n\n".join(answers),
            now=context["now"],
            knowledge=context["knowledge"],
        )
        text = self.chat(tally, [{"role": "user", "content": synthesis}], stage="synthesis").text.strip()
        draft.text = text or None
