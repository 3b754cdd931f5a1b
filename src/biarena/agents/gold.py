"""The `gold` system: replays each question's first gold query (a benchmark self-check)."""

from typing import Any

from biarena.agents.system import AgentEnv, run_step
from biarena.db import SqlProblem
from biarena.options import NoOptions
from biarena.records import Answer, Question, SystemSpec


class GoldSystem:
    """Answers with the gold SQL, transpiled to the database's engine when they differ."""

    name = "gold"
    Options = NoOptions

    def __init__(self, options: NoOptions | None = None, **values: Any) -> None:
        self.options = NoOptions.resolve(options, values, f"agent '{self.name}'")

    def spec_options(self) -> dict[str, Any]:
        """The gold system has no options."""
        return {}

    def answer(self, question: Question, env: AgentEnv) -> Answer:
        """Replay the first gold query."""
        system = SystemSpec(agent=self.name)
        if not question.gold_sql:
            return Answer(
                question_id=question.id,
                system=system,
                status="error",
                error="the question has no gold SQL",
            )
        gold = question.gold_sql[0]
        source = env.databases.source_dialect(question.database)
        db = env.databases.get(question.database)
        try:
            # On another engine the gold runs as prepared there: transpiled, with the clock anchored.
            sql = gold if source == db.dialect else db.prepare(gold, source, env.benchmark.anchor_for(question))
        except SqlProblem as problem:
            return Answer(
                question_id=question.id,
                system=system,
                final_sql=gold,
                status="error",
                error=str(problem),
            )
        step, _ = run_step(env, question, sql)
        return Answer(question_id=question.id, system=system, steps=[step], final_sql=sql)
