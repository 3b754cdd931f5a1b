"""generate_templates: template questions over a database, as `biarena generate templates DB -o BENCH`."""

from pathlib import Path
from typing import Any

from biarena.api.messages import print_messages


def generate_templates(database: str | Path, out: str | Path, **settings: Any) -> Path:
    """Instantiate the 9 BIS categories' templates over `database` (a SQLite or DuckDB file, or a server URL),
    keep the questions whose gold SQL returns rows, write them as the benchmark directory `out` and return it.

    `settings` are the other fields of `biarena.generate.generate_settings.TemplatesSettings`: `roles` (a
    roles.yaml; default: drafted from the schema), `languages`, `per_category`, `seed`, `now`, `name`. A name it
    does not take is a UsageError that suggests the closest one."""
    from biarena.generate.execute_templates import execute_templates
    from biarena.generate.generate_settings import TemplatesSettings

    values = {"database": str(database), "out": Path(out), **settings}
    return execute_templates(TemplatesSettings.of("generate_templates()", values), print_messages)
