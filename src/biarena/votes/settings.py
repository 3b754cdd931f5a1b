"""LeaderboardSettings: how a leaderboard fits and combines votes, kept in an arena's database as JSON."""

import json
from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class LeaderboardSettings:
    """How a leaderboard fits and combines votes."""

    min_votes: int = 20
    """Votes a system needs before its combined score (automatic and human) is shown (CORGI 4.3)."""
    auto_metric: str = "execution_accuracy"
    """The automatic score the combined score uses."""
    bootstrap: int = 500
    """Bootstrap resamples behind the 95% intervals."""
    seed: int = 0
    """Seed of the bootstrap resamples."""

    def to_json(self) -> str:
        """The settings as the arena's database keeps them."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> "LeaderboardSettings":
        """Settings as an arena stored them, or the defaults when it stored none or they are unreadable."""
        if not text:
            return cls()
        try:
            data = json.loads(text)
            return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})
        except (ValueError, TypeError, KeyError):
            return cls()
