"""The arena: blind pairwise votes on systems' answers, submissions, and a Bradley-Terry leaderboard.

The web app needs the `arena` extra (FastAPI, uvicorn); the store needs nothing more. Stored votes are read, exported
and ranked by `biarena.votes`.
"""

from biarena.arena.config import ArenaConfig
from biarena.arena.store import ArenaStore

__all__ = ["ArenaConfig", "ArenaStore"]
