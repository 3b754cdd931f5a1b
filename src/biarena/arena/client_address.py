"""client_address: who sent a request, believing X-Forwarded-For only from proxies the operator trusts."""

import ipaddress
from collections.abc import Iterable

from biarena.errors import UsageError

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(specs: Iterable[str]) -> tuple[Network, ...]:
    """Parse trusted proxy addresses or networks (`10.0.0.5`, `10.0.0.0/8`, `::1`); UsageError names a bad one."""
    networks = []
    for spec in specs:
        try:
            networks.append(ipaddress.ip_network(spec.strip(), strict=False))
        except ValueError:
            raise UsageError(
                f"trusted proxy '{spec}' is not an IP address or network (e.g. 10.0.0.5 or 10.0.0.0/8)"
            ) from None
    return tuple(networks)


def client_address(peer: str | None, forwarded_for: Iterable[str], trusted: tuple[Network, ...]) -> str:
    """The client's address: the peer's, unless the peer is a trusted proxy.

    Behind trusted proxies, the X-Forwarded-For hops are read from the nearest (rightmost) back and the first
    hop that is not itself a trusted proxy is the client; anything further left was written by the client and
    proves nothing. With no trusted proxy (the default) the header is ignored.
    """
    address = peer or "unknown"
    if not trusted or not _within(address, trusted):
        return address
    hops = [hop.strip() for header in forwarded_for for hop in header.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _within(hop, trusted):
            return hop if _parse(hop) is not None else address
        address = hop
    return address


def _parse(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _within(text: str, networks: tuple[Network, ...]) -> bool:
    address = _parse(text)
    return address is not None and any(address in network for network in networks)
