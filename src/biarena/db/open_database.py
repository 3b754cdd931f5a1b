"""open_database: one entry point from a path, a URL or a benchmark's database reference."""

from pathlib import Path
from typing import Any

from biarena.db.database import Database
from biarena.db.limits import SandboxLimits
from biarena.errors import NotFoundError
from biarena.registry import Registry

ENGINES: Registry[type[Database]] = Registry(
    "engine",
    {
        "sqlite": "biarena.db.sqlite_database:SqliteDatabase",
        "duckdb": "biarena.db.duckdb_database:DuckDatabase",
        "sqlalchemy": "biarena.db.server_database:ServerDatabase",
    },
    group="biarena.engines",
)
"""Database engines by URL scheme, each a Database class imported on first use (plugins add theirs through the
`biarena.engines` entry points); a URL whose scheme names no engine goes to `sqlalchemy` (PostgreSQL, MySQL, ...).
An engine opens a URL with its `from_url(url, allow_superuser=..., **limits)`."""

SERVER_ENGINE = "sqlalchemy"
"""The engine of a URL no other engine claims: SQLAlchemy's (PostgreSQL, MySQL, ...)."""

_DUCKDB_SUFFIXES = (".duckdb", ".ddb")


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
    duck = path.suffix.lower() in _DUCKDB_SUFFIXES or _is_duckdb_file(path)
    return ENGINES["duckdb" if duck else "sqlite"](path, **settings)  # type: ignore[call-arg]


def _is_duckdb_file(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(16)
    return head[8:12] == b"DUCK"
