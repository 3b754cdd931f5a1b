"""check_upload: an uploaded file read as an untrusted SQLite database before anything opens it as a run.

A run file reader queries the file's tables, so a file whose schema runs code on a read is refused first: views
(a view named like a run table runs its own query, an endless recursive one included), triggers (they run on the
writes opening a run file may make), virtual tables, generated columns, and indexes on expressions or with a
WHERE clause. A file cut short or damaged is refused by its header and SQLite's quick check. biarena never writes
any of these, so no honest run file is refused.
"""

import sqlite3
import struct
from contextlib import closing
from pathlib import Path
from urllib.parse import quote

from biarena.arena.store import ArenaRefusal
from biarena.benchmarks.archive import SQLITE_HEADER
from biarena.benchmarks.shown import shown
from biarena.db.sql_text import compose

MAX_SCHEMA_ROWS = 1000
"""Most schema entries (tables and indexes) an upload may have; a run file has about twenty."""


def check_upload(path: Path, shown: str) -> None:
    """ArenaRefusal, naming the file as `shown`, unless `path` is an intact SQLite file with a plain schema."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        header = handle.read(100)
    if not header.startswith(SQLITE_HEADER):
        raise ArenaRefusal(f"{shown}: not a biarena run file (not even an SQLite file)")
    if len(header) < 100:
        raise ArenaRefusal(f"{shown}: a damaged SQLite file (cut short: {size} bytes, less than its header)")
    page_size = _page_size(header)
    if page_size is None:
        raise ArenaRefusal(f"{shown}: a damaged SQLite file (its header names no valid page size)")
    pages = _declared_pages(header)
    if size % page_size or (pages and pages * page_size > size):
        whole = f" of the {pages * page_size:,} its header declares" if pages else ""
        raise ArenaRefusal(f"{shown}: a damaged SQLite file (cut short: {size:,} bytes{whole})")
    try:
        with closing(sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1", uri=True)) as conn:
            conn.execute("PRAGMA trusted_schema = OFF")
            _check_schema(conn, shown)
            verdict = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
    except sqlite3.DatabaseError as error:
        raise ArenaRefusal(f"{shown}: a damaged SQLite file ({' '.join(str(error).split())[:200]})") from None
    if verdict != "ok":
        raise ArenaRefusal(f"{shown}: a damaged SQLite file ({' '.join(str(verdict).split())[:200]})")


def _page_size(header: bytes) -> int | None:
    (raw,) = struct.unpack_from(">H", header, 16)
    size = 65536 if raw == 1 else raw
    return size if 512 <= size <= 65536 and size & (size - 1) == 0 else None


def _declared_pages(header: bytes) -> int:
    """Pages the header says the file holds, or 0 when that count is not current (SQLite then trusts the size)."""
    changes, pages = struct.unpack_from(">II", header, 24)
    (valid_for,) = struct.unpack_from(">I", header, 92)
    return pages if pages and valid_for == changes else 0


def _check_schema(conn: sqlite3.Connection, shown: str) -> None:
    rows = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master LIMIT ?", (MAX_SCHEMA_ROWS + 1,)
    ).fetchall()
    if len(rows) > MAX_SCHEMA_ROWS:
        raise ArenaRefusal(f"{shown}: not a biarena run file (more than {MAX_SCHEMA_ROWS} tables and indexes)")
    for kind, name, table, sql in rows:
        what = ""
        if kind in ("view", "trigger"):
            what = f"a {kind} ('{_clip(name)}')"
        elif kind == "table" and (sql or "").lstrip().upper().startswith("CREATE VIRTUAL"):
            what = f"a virtual table ('{_clip(name)}')"
        elif kind == "table" and _has_generated_column(conn, name):
            what = f"a generated column in table '{_clip(name)}'"
        elif kind == "index" and sql is not None and _computed_index(conn, name, table):
            what = f"an index on an expression or with a WHERE clause ('{_clip(name)}')"
        if what:
            raise ArenaRefusal(f"{shown}: not a biarena run file (it holds {what}, which biarena never writes)")


def _has_generated_column(conn: sqlite3.Connection, table: str) -> bool:
    return any(row[6] in (2, 3) for row in conn.execute(compose("PRAGMA table_xinfo({t})", t=table)))


def _computed_index(conn: sqlite3.Connection, name: str, table: str) -> bool:
    if any(row[1] == -2 for row in conn.execute(compose("PRAGMA index_xinfo({i})", i=name))):
        return True
    return any(row[1] == name and row[4] for row in conn.execute(compose("PRAGMA index_list({t})", t=table)))


def _clip(name: str) -> str:
    return shown(name, 40)
