"""Votes: the arena's stored votes read as records, their exports, and the one Bradley-Terry leaderboard that the
arena page and the report both show."""
