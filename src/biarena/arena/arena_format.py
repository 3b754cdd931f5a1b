"""The arena file's format: its numbered migrations, and recognizing an arena file without changing it."""

import sqlite3
from pathlib import Path

from biarena.errors import FormatError
from biarena.sqlite_migrations import migrate
from biarena.votes.vote_file import ARENA_MAGIC

# Numbered migrations: index i takes the schema from version i to i + 1.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
    );
    CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        csrf TEXT NOT NULL,
        expires_at TEXT NOT NULL
    );
    CREATE TABLE systems (
        name TEXT PRIMARY KEY,
        path TEXT NOT NULL,
        benchmark TEXT NOT NULL,
        submitted_by INTEGER REFERENCES users(id),
        created_at TEXT NOT NULL
    );
    CREATE TABLE comparisons (
        token TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        benchmark TEXT NOT NULL,
        question_id TEXT NOT NULL,
        left_system TEXT NOT NULL,
        right_system TEXT NOT NULL,
        created_at TEXT NOT NULL,
        vote_id INTEGER REFERENCES votes(id)
    );
    CREATE INDEX comparisons_open ON comparisons (user_id, vote_id);
    CREATE TABLE votes (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        benchmark TEXT NOT NULL,
        question_id TEXT NOT NULL,
        left_system TEXT NOT NULL,
        right_system TEXT NOT NULL,
        system_lo TEXT NOT NULL,
        system_hi TEXT NOT NULL,
        choice TEXT NOT NULL CHECK (choice IN ('left', 'right', 'tie', 'both_bad')),
        rationale TEXT NOT NULL DEFAULT '',
        day TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (user_id, benchmark, question_id, system_lo, system_hi)
    );
    CREATE INDEX votes_by_day ON votes (user_id, day);
    """,
    # Sign-in forms, each a server-side pre-session whose CSRF token works once; failed sign-ins counted per
    # client address and per token prefix, each count living until its window ends.
    """
    CREATE TABLE login_forms (
        id INTEGER PRIMARY KEY,
        id_hash TEXT NOT NULL UNIQUE,
        csrf_hash TEXT NOT NULL,
        expires_at TEXT NOT NULL
    );
    CREATE INDEX login_forms_expiry ON login_forms (expires_at);
    CREATE TABLE sign_in_failures (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        failures INTEGER NOT NULL,
        window_ends TEXT NOT NULL
    );
    CREATE INDEX sign_in_failures_expiry ON sign_in_failures (window_ends);
    """,
    # Look-alike keys (confusable skeletons) of user names, so an invite checks for a look-alike with one
    # indexed lookup; not unique, because a store made before this check may already hold two look-alikes.
    # Filled from the names when the store opens (see ArenaStore._index_names).
    """
    CREATE TABLE user_name_keys (
        key TEXT NOT NULL,
        user_id INTEGER NOT NULL REFERENCES users(id),
        PRIMARY KEY (key, user_id)
    ) WITHOUT ROWID;
    """,
    # The run behind each side of a vote (RunSpec.run_id), so leaderboards match systems to runs exactly; votes
    # stored before get theirs when an arena serving those systems starts (ArenaStore.fill_run_ids).
    """
    ALTER TABLE votes ADD COLUMN left_run TEXT;
    ALTER TABLE votes ADD COLUMN right_run TEXT;
    """,
    # Rate limits: each upload a submitter starts (accepted or refused), counted per day; each vote's client
    # address (as the sign-in limit groups addresses), kept a day, counted per rolling hour and day.
    """
    CREATE TABLE submission_attempts (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        day TEXT NOT NULL
    );
    CREATE INDEX submission_attempts_by_day ON submission_attempts (user_id, day);
    CREATE TABLE vote_clients (
        id INTEGER PRIMARY KEY,
        client TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX vote_clients_by_client ON vote_clients (client, created_at);
    CREATE INDEX vote_clients_expiry ON vote_clients (created_at);
    """,
]


def recognize_arena(path: Path) -> None:
    """Raise FormatError unless `path` is an arena database; read without changing it."""
    try:
        conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            magic = conn.execute("SELECT value FROM meta WHERE key = 'magic'").fetchone() if version else None
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        version, magic = 0, None
    if not magic or magic[0] != ARENA_MAGIC:
        raise FormatError(f"{path}: not a biarena arena database; it was left as it is")
    if version > len(MIGRATIONS):
        raise FormatError(f"{path}: made by a newer biarena (arena format {version})")


def migrate_arena(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the arena file open on `conn` to the newest arena format."""
    migrate(conn, path, MIGRATIONS, ARENA_MAGIC, "arena")
