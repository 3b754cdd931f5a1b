"""migrate: bring a biarena SQLite file (run, arena) to the newest of its numbered schema migrations."""

import sqlite3
from pathlib import Path

from biarena.errors import FormatError


def migrate(conn: sqlite3.Connection, path: Path, migrations: list[str], magic: str, kind: str) -> None:
    """Apply the migrations the file lacks (its `user_version` counts those applied), each in one transaction.

    The first one creates the `meta` table, which then records `magic`; a file newer than this biarena is refused.
    """
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(migrations):
        raise FormatError(f"{path}: made by a newer biarena ({kind} format {version})")
    for index in range(version, len(migrations)):
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            for statement in migrations[index].split(";"):
                if statement.strip():
                    conn.execute(statement)
            if index == 0:
                conn.execute("INSERT INTO meta VALUES ('magic', ?)", (magic,))
            conn.execute(f"PRAGMA user_version = {index + 1}")
