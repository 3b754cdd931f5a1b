"""ArenaConfig: what an arena serves and the limits it keeps."""

from dataclasses import dataclass, field
from pathlib import Path

from biarena.arena.rate_limits import VoteFlood
from biarena.arena.sign_in_limit import SignInLimit
from biarena.votes.settings import LeaderboardSettings


@dataclass(frozen=True)
class ArenaConfig:
    """Settings of one arena."""

    db: Path
    """The arena's SQLite file (users, sessions, votes, submitted systems); created when absent."""
    runs: list[Path] = field(default_factory=list)
    """Run files whose systems are compared."""
    daily_cap: int = 200
    """Votes one annotator may cast per day (UTC)."""
    min_votes: int = LeaderboardSettings.min_votes
    """Votes a system needs before its combined score (automatic and human) is shown (CORGI 4.3)."""
    auto_metric: str = LeaderboardSettings.auto_metric
    """The automatic score the combined score uses."""
    max_upload_bytes: int = 64 * 1024 * 1024
    """Largest run file a submitter may upload; a larger upload is refused as it arrives, before it is all read."""
    daily_submissions: int = 20
    """Run files one submitter may upload per day (UTC), refused ones included (checking one costs as much)."""
    address_votes_per_hour: int = 2000
    """Votes one client address (an IPv6 client's /64) may send per rolling hour, whoever casts them."""
    address_votes_per_day: int = 10_000
    """Votes one client address may send per rolling 24 hours (50 annotators voting the default daily cap)."""
    bootstrap: int = LeaderboardSettings.bootstrap
    """Bootstrap resamples behind the leaderboard's 95% intervals."""
    submissions: Path | None = None
    """Where submitted runs are kept (default: a folder beside the database)."""
    judges: tuple[str, ...] = ()
    """Judges that also score each submitted run (`biarena score --judge`), with `judge_model`."""
    judge_model: str | None = None
    """The judges' model string (default: biarena's default model)."""
    seed: int | None = None
    """Seed for pair and side draws (None: drawn from the system's randomness)."""
    sign_in_failures: int = 10
    """Failed sign-ins one client address, or one token's first characters, may make within `sign_in_window`."""
    sign_in_window: float = 600.0
    """Seconds failed sign-ins are counted over; a client or token held back waits until its window ends."""
    trusted_proxies: tuple[str, ...] = ()
    """Reverse proxies (addresses or networks) whose X-Forwarded-For names the client; none by default."""
    login_form_seconds: float = 3600.0
    """How long a sign-in form's one-use security token stays valid."""

    @property
    def sign_in_limit(self) -> SignInLimit:
        """The sign-in limit these settings describe."""
        return SignInLimit(failures=self.sign_in_failures, window=self.sign_in_window)

    @property
    def vote_flood(self) -> VoteFlood:
        """The per-address vote limits these settings describe."""
        return VoteFlood(per_hour=self.address_votes_per_hour, per_day=self.address_votes_per_day)

    @property
    def leaderboard(self) -> LeaderboardSettings:
        """How the leaderboard fits the votes (kept in the database, so `report --arena` fits them the same way)."""
        return LeaderboardSettings(min_votes=self.min_votes, auto_metric=self.auto_metric, bootstrap=self.bootstrap)

    @property
    def submissions_dir(self) -> Path:
        """The folder submitted runs are kept in."""
        return self.submissions or self.db.with_name(f"{self.db.stem}-submissions")
