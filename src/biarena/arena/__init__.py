"""The arena: blind pairwise votes on systems' answers, submissions, and a Bradley-Terry leaderboard.

The web app needs the `arena` extra (FastAPI, uvicorn); the store and the outcomes reader need nothing more.
"""

from biarena.arena.config import ArenaConfig
from biarena.arena.outcomes import load_outcomes
from biarena.arena.store import ArenaStore

__all__ = ["ArenaConfig", "ArenaStore", "load_outcomes"]
