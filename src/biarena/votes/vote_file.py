"""load_votes: an arena database's votes and leaderboard settings, read without changing the file."""

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from biarena.errors import FormatError, NotFoundError
from biarena.votes.settings import LeaderboardSettings
from biarena.votes.vote import Vote, read_votes

ARENA_MAGIC = "biarena-arena"
"""What an arena database's `meta` table names itself."""


@dataclass(frozen=True)
class VoteFile:
    """What an arena database holds for a leaderboard: its votes and the settings its page fits them with."""

    votes: list[Vote]
    settings: LeaderboardSettings


def load_votes(path: str | Path) -> VoteFile:
    """The votes and leaderboard settings of the arena database at `path` (FormatError when it is not one)."""
    path = Path(path)
    if not path.is_file():
        raise NotFoundError(f"{path}: no such arena database")
    try:
        conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise FormatError(f"{path}: cannot be read as an arena database ({error})") from None
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("magic") != ARENA_MAGIC:
            raise FormatError(f"{path}: not a biarena arena database")
        votes = read_votes(conn)
    except sqlite3.DatabaseError:
        raise FormatError(f"{path}: not a biarena arena database") from None
    finally:
        conn.close()
    return VoteFile(votes, LeaderboardSettings.from_json(meta.get("leaderboard")))

