"""open_database: one entry point from a path, a URL or a benchmark's database reference."""

from pathlib import Path
from typing import Any

from biarena.db.database import Database
from biarena.db.dialect import dialect_of, file_engines
from biarena.db.limits import SandboxLimits
from biarena.errors import NotFoundError
from biarena.registry import Registry

ENGINES: Registry[Any] = Registry(
    "engine",
    {
        "sqlite": "biarena.db.sqlite_dialect:SQLITE",
        "duckdb": "biarena.db.duckdb_dialect:DUCKDB",
        "sqlalchemy": "biarena.db.server_database:ServerDatabase",
    },
    group="biarena.engines",
)
"""Database engines by URL scheme, each imported on first use (plugins add theirs through the `biarena.engines`
entry points): an embedded engine's Dialect (everything known of it, its Database class included), or a Database
class; a URL whose scheme names no engine goes to `sqlalchemy` (PostgreSQL, MySQL, ...). An engine opens a file
with `engine(path, **limits)` and a URL with its `from_url(url, allow_superuser=..., **limits)`."""

DEFAULT_FILE_ENGINE = "sqlite"
"""The engine of a database file no engine claims by its suffix or first bytes."""

SERVER_ENGINE = "sqlalchemy"
"""The engine of a URL no other engine claims: SQLAlchemy's (PostgreSQL, MySQL, ...)."""


def open_database(
    location: str | Path,
    *,
    limits: SandboxLimits | None = None,
    allow_superuser: bool = False,
    **overrides: Any,
) -> Database:
    """Open a database file (SQLite, or DuckDB by suffix) or a URL (an engine's scheme, else SQLAlchemy's), read-only.

    `limits` bound each statement; keyword overrides (`timeout=`, `max_rows=`, ...) replace single limits.
    """
    settings = {"limits": limits, **overrides}
    text = str(location)
    if "://" in text or text.startswith("sqlite:"):
        scheme = text.split(":", 1)[0].split("+", 1)[0].lower()
        engine = ENGINES[scheme if scheme != SERVER_ENGINE and scheme in ENGINES else SERVER_ENGINE]
        return engine.from_url(text, allow_superuser=allow_superuser, **settings)
    return _file_database(Path(text), settings)


def _file_database(path: Path, settings: dict[str, Any]) -> Database:
    if not path.is_file():
        raise NotFoundError(f"database file not found: {path}")
    return ENGINES[file_engine(path)](path, **settings)  # type: ignore[call-arg]


def file_engine(path: Path) -> str:
    """The engine of the database file at `path`: the one its suffix or first bytes name, else SQLite."""
    with path.open("rb") as handle:
        head = handle.read(16)
    suffix = path.suffix.lower()
    claimed = (n for n in file_engines() if n != DEFAULT_FILE_ENGINE and dialect_of(n).claims_file(suffix, head))
    return next(claimed, DEFAULT_FILE_ENGINE)
