"""VoteFlood, rate-limit messages: how many votes one client address may send, and what a held-back person reads."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from biarena.arena.sign_in_limit import duration_text


@dataclass(frozen=True)
class VoteFlood:
    """Votes one client address may send per rolling hour and per rolling day, whoever signed in to cast them.

    Each annotator's own daily cap holds too; this one stops one machine voting through many invite tokens. An
    address counts as `sign_in_limit.network_of` groups it (an IPv6 client by its /64).
    """

    per_hour: int = 2000
    per_day: int = 10_000

    def windows(self) -> list[tuple[str, timedelta, int]]:
        """(name, span, votes allowed) of each window, the shorter first."""
        return [
            ("in the last hour", timedelta(hours=1), self.per_hour),
            ("in the last 24 hours", timedelta(days=1), self.per_day),
        ]


def address_votes_message(window: str, allowed: int, retry_after: int, now: datetime) -> str:
    """What a person reads when their address has sent its votes for a window."""
    at = (now + timedelta(seconds=retry_after)).strftime("%H:%M UTC")
    return (
        f"too many votes from your address {window} (at most {allowed}); "
        f"try again in {duration_text(retry_after)} (after {at})"
    )


def daily_submissions_message(allowed: int) -> str:
    """What a submitter reads on reaching the day's uploads."""
    return (
        f"you reached today's limit of {allowed} uploads (refused ones count too); "
        "try again tomorrow (after 00:00 UTC)"
    )


def seconds_to_midnight(now: datetime) -> int:
    """Whole seconds from `now` (UTC) to the next midnight UTC, at least 1."""
    midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), tzinfo=now.tzinfo)
    return max(1, int((midnight - now).total_seconds()) + 1)
