"""The `constant` agent: answers every question with one fixed query (a floor for other agents)."""

from typing import Any

from biarena.agents import AgentEnv, run_step
from biarena.options import Options
from biarena.records import Answer, Question, SystemSpec


class ConstantOptions(Options):
    """Options of the constant agent."""

    sql: str = "SELECT 1"
    """The query given as every answer."""


class ConstantAgent:
    """Answers every question with one fixed query (`-O sql=...`)."""

    name = "constant"
    Options = ConstantOptions
    needs_model = False
    """True for an agent that takes a model (`--model`), given as `model=` when it is made."""

    def __init__(self, options: ConstantOptions | None = None, **values: Any) -> None:
        self.options = ConstantOptions.resolve(options, values, f"agent '{self.name}'")

    def spec_options(self) -> dict[str, Any]:
        """What changes the answers: stored with the run."""
        return self.options.model_dump()

    def answer(self, question: Question, env: AgentEnv) -> Answer:
        """Run the fixed query on the question's database and answer with it."""
        step, _ = run_step(env, question, self.options.sql)
        return Answer(
            question_id=question.id,
            system=SystemSpec(agent=self.name, options=self.spec_options()),
            steps=[step],
            final_sql=self.options.sql,
        )
