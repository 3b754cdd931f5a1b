"""SignInLimit: how many failed sign-ins a client address, or one token's first characters, may make in a window."""

import hashlib
import ipaddress
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

CLIENT = "client"
TOKEN = "token"


@dataclass(frozen=True)
class SignInLimit:
    """After `failures` failed sign-ins within `window` seconds a client, or a token prefix, waits out the window.

    Only failures count, so any number of people signing in with good tokens from one address (an office, a
    load test) are never held back; a good token from a client or prefix that is held back is refused too,
    or the limit would not slow guessing.
    """

    failures: int = 10
    window: float = 600.0
    prefix_chars: int = 6

    def keys(self, client: str, token: str) -> list[tuple[str, str]]:
        """(kind, key) pairs a sign-in counts against: the client's address and the token's first characters.

        An IPv6 client counts by its /64 network, which one subscriber usually holds whole. The prefix is
        kept only as a hash, so the store holds no part of any token.
        """
        keys = [(CLIENT, f"{CLIENT}:{network_of(client)}")]
        prefix = token[: self.prefix_chars]
        if prefix:
            keys.append((TOKEN, f"{TOKEN}:{hashlib.sha256(prefix.encode('utf-8')).hexdigest()[:32]}"))
        return keys

    @property
    def span(self) -> timedelta:
        """The window as a duration."""
        return timedelta(seconds=self.window)


def wait_message(kind: str, retry_after: int, now: datetime) -> str:
    """What a person reads when sign-in is held back: why, and when to try again."""
    why = "from your address" if kind == CLIENT else "with this invite token"
    at = (now + timedelta(seconds=retry_after)).strftime("%H:%M UTC")
    return f"too many failed sign-ins {why}; try again in {duration_text(retry_after)} (after {at})"


def retry_seconds(until: datetime, now: datetime) -> int:
    """Whole seconds from `now` until `until`, at least 1 (a Retry-After of 0 invites an immediate retry)."""
    return max(1, math.ceil((until - now).total_seconds()))


def duration_text(seconds: int) -> str:
    """A wait as a person reads it: `45 seconds`, `12 minutes`."""
    if seconds < 90:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minutes"


def network_of(client: str) -> str:
    """The address a limit counts a client by: an IPv4 address, an IPv6 client's /64, or the text as given."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)
