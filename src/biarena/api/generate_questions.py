"""generate_questions: questions generated over a database, as `biarena generate questions DB -o BENCH`."""

from pathlib import Path
from typing import Any

from biarena.api.messages import print_messages


def generate_questions(
    database: str | Path, out: str | Path, *, options: dict[str, Any] | None = None, **settings: Any
) -> Path:
    """Generate questions over `database` (a SQLite or DuckDB file, or a server URL) into the benchmark directory
    `out` and return it; every step is journaled there (calling again continues) and counted in pipeline.json.

    `options` are the method's own (`-O`; `biarena describe question-method NAME` lists them, e.g.
    `{"roles": "roles.yaml"}` for method `template`); `settings` the other fields of
    `biarena.generate.generate_settings.QuestionsSettings`: `method` (`llm` or `template`), `model`,
    `options_file`, `max_calls`, `no_cache`, `name`, `force`. A name it does not take is a UsageError that
    suggests the closest one."""
    from biarena.generate.execute_questions import execute_questions
    from biarena.generate.generate_settings import QuestionsSettings

    values = {"database": str(database), "out": Path(out), **settings}
    if options is not None:
        values["options"] = options
    chosen = QuestionsSettings.of("generate_questions()", values)
    execute_questions(chosen, print_messages)
    return chosen.out
