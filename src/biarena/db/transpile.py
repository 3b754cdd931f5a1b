"""Dialect transpilation with sqlglot."""

import sqlglot
from sqlglot.errors import SqlglotError

from biarena.db.errors import SqlRejected


def transpile(sql: str, read: str, write: str) -> str:
    """Return `sql` rewritten from dialect `read` into dialect `write` (unchanged when equal)."""
    if read == write:
        return sql
    try:
        out = sqlglot.transpile(sql, read=read, write=write)
    except SqlglotError as error:
        raise SqlRejected(f"cannot transpile from {read} to {write}: {error}") from None
    if len(out) != 1:
        raise SqlRejected(f"exactly one statement is allowed, found {len(out)}")
    return out[0]
