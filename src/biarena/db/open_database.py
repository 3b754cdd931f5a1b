"""open_database: one entry point from a path, a URL or a benchmark's database reference."""

from pathlib import Path
from typing import Any

from biarena.db.database import Database
from biarena.db.limits import SandboxLimits
from biarena.errors import NotFoundError, UsageError

_DUCKDB_SUFFIXES = (".duckdb", ".ddb")


def open_database(
    location: str | Path,
    *,
    limits: SandboxLimits | None = None,
    allow_superuser: bool = False,
    **overrides: Any,
) -> Database:
    """Open a database file (SQLite, or DuckDB by suffix) or an SQLAlchemy URL, read-only.

    `limits` bound each statement; keyword overrides (`timeout=`, `max_rows=`, ...) replace single limits.
    """
    settings = {"limits": limits, **overrides}
    text = str(location)
    if "://" in text or text.startswith("sqlite:"):
        scheme = text.split(":", 1)[0].split("+", 1)[0].lower()
        if scheme == "sqlite":
            path = text.split(":///", 1)[1] if ":///" in text else ""
            if not path or path == ":memory:":
                raise NotFoundError(f"an SQLite URL must name a file: {text}")
            return _file_database(Path(path), settings)
        if scheme == "duckdb":
            path = text.split(":///", 1)[1] if ":///" in text else ""
            if not path or path == ":memory:":
                raise UsageError(f"a DuckDB URL must name a file as duckdb:///PATH: {text}")
            from biarena.db.duckdb_database import DuckDatabase

            return DuckDatabase(path, **settings)
        from biarena.db.server_database import ServerDatabase

        return ServerDatabase(text, allow_superuser=allow_superuser, **settings)
    return _file_database(Path(text), settings)


def _file_database(path: Path, settings: dict[str, Any]) -> Database:
    if not path.is_file():
        raise NotFoundError(f"database file not found: {path}")
    if path.suffix.lower() in _DUCKDB_SUFFIXES or _is_duckdb_file(path):
        from biarena.db.duckdb_database import DuckDatabase

        return DuckDatabase(path, **settings)
    from biarena.db.sqlite_database import SqliteDatabase

    return SqliteDatabase(path, **settings)


def _is_duckdb_file(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(16)
    return head[8:12] == b"DUCK"
