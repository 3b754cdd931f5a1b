"""What the arena refuses a user, with the HTTP status and (for a limit) when to try again."""

from datetime import datetime

from biarena.arena.sign_in_limit import retry_seconds, wait_message
from biarena.errors import BiarenaError


class ArenaRefusal(BiarenaError):
    """A request the arena refuses for a reason the user can act on; `status` is its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class SignInThrottled(ArenaRefusal):
    """Sign-in held back: too many failures from one client or with one token prefix; retry after `retry_after` s."""

    def __init__(self, kind: str, failures: int, until: datetime, now: datetime) -> None:
        self.retry_after = retry_seconds(until, now)
        super().__init__(wait_message(kind, self.retry_after, now), 429)
        self.kind = kind
        self.failures = failures


class RateLimited(ArenaRefusal):
    """A request over one of the arena's rate limits (votes, uploads): HTTP 429, retry after `retry_after` s."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message, 429)
        self.retry_after = retry_after


def daily_cap_message(cap: int) -> str:
    """What an annotator reads on reaching the daily cap."""
    return f"you reached today's limit of {cap} votes; thank you, come back tomorrow"
