"""generate_answers: reference answers by Conjecture-Construct-Conclude, as `biarena generate answers BENCH -o OUT`."""

from pathlib import Path
from typing import Any

from biarena.api.messages import print_messages


def generate_answers(benchmark: str | Path, out: str | Path, **settings: Any) -> Path:
    """Give the questions of `benchmark` (a directory or a built-in name) reference answers backed by rows injected
    into a copy of each database, in the benchmark directory `out`, and return it; every step is journaled there
    (calling again continues) and counted in pipeline.json. The source databases are only read.

    `settings` are the other fields of `biarena.generate.generate_settings.AnswersSettings`: `model`, `base`
    (`schema` or `data`), `limit`, `sample_rows`, `max_calls`, `no_cache`, `name`, `force`. A name it does not
    take is a UsageError that suggests the closest one."""
    from biarena.generate.execute_answers import execute_answers
    from biarena.generate.generate_settings import AnswersSettings

    values = {"benchmark": str(benchmark), "out": Path(out), **settings}
    chosen = AnswersSettings.of("generate_answers()", values)
    execute_answers(chosen, print_messages)
    return chosen.out
