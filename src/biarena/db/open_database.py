"""open_database: one entry point from a path, a URL or a benchmark's database reference."""

from pathlib import Path

from biarena.db.database import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, Database
from biarena.errors import NotFoundError

_DUCKDB_SUFFIXES = (".duckdb", ".ddb")


def open_database(
    location: str | Path,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> Database:
    """Open a database file (SQLite, or DuckDB by suffix) or an SQLAlchemy URL, read-only."""
    limits = {"timeout": timeout, "max_rows": max_rows}
    text = str(location)
    if "://" in text or text.startswith("sqlite:"):
        scheme = text.split(":", 1)[0].split("+", 1)[0].lower()
        if scheme == "sqlite":
            path = text.split(":///", 1)[1] if ":///" in text else ""
            if not path or path == ":memory:":
                raise NotFoundError(f"an SQLite URL must name a file: {text}")
            return _file_database(Path(path), limits)
        if scheme == "duckdb":
            from biarena.db.duckdb_database import DuckDatabase

            return DuckDatabase(text.split(":///", 1)[1], **limits)
        from biarena.db.server_database import ServerDatabase

        return ServerDatabase(text, **limits)
    return _file_database(Path(text), limits)


def _file_database(path: Path, limits: dict) -> Database:
    if not path.is_file():
        raise NotFoundError(f"database file not found: {path}")
    if path.suffix.lower() in _DUCKDB_SUFFIXES or _is_duckdb_file(path):
        from biarena.db.duckdb_database import DuckDatabase

        return DuckDatabase(path, **limits)
    from biarena.db.sqlite_database import SqliteDatabase

    return SqliteDatabase(path, **limits)


def _is_duckdb_file(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(16)
    return head[8:12] == b"DUCK"
