"""duckdb_connection: a plain DuckDB connection for biarena's own reading of files (not the analyst's sandbox)."""

from pathlib import Path
from typing import Any

from biarena.errors import UsageError


def duckdb_connection(path: Path | None, *, missing: str) -> Any:
    """A read-only connection to the DuckDB file at `path`, or an in-memory one (None); UsageError `missing` (with
    the install hint) when DuckDB is not installed."""
    try:
        import duckdb
    except ImportError:
        raise UsageError(f"{missing}: pip install 'biarena[duckdb]'") from None
    return duckdb.connect() if path is None else duckdb.connect(str(path), read_only=True)
