"""`text2sql`: one query (BIS style), corrected once when it fails to run."""

from pydantic import Field

from biarena.agents.llm_agent import LLMAgent, SchemaAgentOptions, Tally
from biarena.agents.prompting import render, result_text
from biarena.agents.system import AgentEnv
from biarena.agents.written_query import written_queries
from biarena.llm import Message
from biarena.records import Answer, Question

REPLY_KEPT_CHARS = 500
"""How much of a reply without SQL is kept in the answer's notes, for a reviewer."""


class Text2SQLOptions(SchemaAgentOptions):
    """Options of the text2sql agent."""

    max_tokens: int = Field(384, ge=1)
    """Token budget of each reply."""
    retries: int = Field(1, ge=0)
    """Corrected queries asked for after an execution error."""


class Text2SQL(LLMAgent):
    """Question -> one SQL query -> run; on an execution error, the error goes back for a corrected query."""

    name = "text2sql"
    Options = Text2SQLOptions
    options: Text2SQLOptions
    templates = ("common_system", "text2sql", "text2sql_fix")

    def solve(self, question: Question, env: AgentEnv, tally: Tally, draft: Answer) -> None:
        """Write, run, and if needed correct one query."""
        messages: list[Message] = [
            self.system_message(env, question),
            {"role": "user", "content": render("text2sql", question=question.text)},
        ]
        for attempt in range(self.options.retries + 1):
            stage = "query" if attempt == 0 else f"correction {attempt}"
            reply = self.chat(tally, messages, stage=stage).text
            queries = written_queries(reply)
            if not queries:
                draft.notes.append(f"{stage}: the reply had no SQL: {reply.strip()[:REPLY_KEPT_CHARS]}")
                draft.error = "the model wrote no SQL"
                draft.error_stage = stage
                break
            if len(queries) > 1:
                draft.notes.append(f"{stage}: the model wrote {len(queries)} queries; the first was run")
            step = self.execute(tally, queries[0].sql, queries[0].purpose)
            draft.final_sql = step.sql
            if step.ok or attempt == self.options.retries:
                break
            messages += [
                {"role": "assistant", "content": reply},
                {"role": "user", "content": render("text2sql_fix", error=step.error)},
            ]
        last = draft.steps[-1] if draft.steps else None
        draft.text = result_text(last) if last is not None and last.ok else None
