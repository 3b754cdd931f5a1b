"""execute_roles: a roles file drafted from a schema (`biarena generate roles DB -o FILE`)."""

import shlex
from pathlib import Path
from typing import Any

from biarena.db import open_database
from biarena.errors import UsageError
from biarena.events import EventHandler, Message, ignore
from biarena.generate.database_location import PASSWORD_KEPT_OUT, DatabaseLocation
from biarena.generate.generate_settings import RolesSettings
from biarena.generate.roles_draft import draft_roles


def execute_roles(settings: RolesSettings, on_event: EventHandler = ignore) -> Path:
    """Write a roles file drafted from the database's schema (time columns, measures, dimensions, joins, commented
    to edit) to `settings.out` and return it; an existing file is replaced only with `force` (UsageError)."""
    out, database = settings.out, settings.database
    if out.exists() and not settings.force:
        raise UsageError(f"{out} exists: choose another -o, or --force to replace it")
    location = DatabaseLocation(database)
    location.check_exists()
    with open_database(database) as db:
        try:
            text = draft_roles(db, settings.name or location.name)
        except ValueError as error:
            raise UsageError(f"{location.shown}: {error}") from None
    out.write_text(text, encoding="utf-8")
    if location.has_password:
        on_event(Message(PASSWORD_KEPT_OUT))
    shown = shlex.quote(location.stored)
    on_event(Message(f"wrote {out}: check it, then biarena generate templates {shown} --roles {out} -o BENCH"))
    return out


def drafted_roles(db: Any, database: str) -> Any:
    """The roles drafted from an open database's schema, as a `Roles` model (a schema with nothing to draft from
    is a UsageError)."""
    from biarena.generate.roles import Roles
    from biarena.yaml_load import load_yaml

    try:
        return Roles.model_validate(load_yaml(draft_roles(db, database), f"{database} (drafted roles)"))
    except ValueError as error:
        raise UsageError(f"{database}: {error}") from None
