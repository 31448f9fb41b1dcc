"""The client's address behind trusted proxies, and what a per-address limit counts."""

from __future__ import annotations

import contextlib
import ipaddress

from starlette.datastructures import Headers


def _networks(entries: list[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    nets = []
    for entry in entries:
        with contextlib.suppress(ValueError):
            nets.append(ipaddress.ip_network(entry, strict=False))
    return nets


class ClientAddress:
    """The client's address; X-Forwarded-For is believed only from trusted proxies."""

    def __init__(self, trusted_proxies: list[str]) -> None:
        self._trusted = _networks(trusted_proxies)

    def trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self._trusted)

    def of(self, peer: str | None, forwarded_for: str | None) -> str:
        address = peer or "unknown"
        if forwarded_for and self.trusted(address):
            # Walk from the nearest hop back; the first untrusted one is the client.
            for hop in reversed([h.strip() for h in forwarded_for.split(",") if h.strip()]):
                address = hop
                if not self.trusted(hop):
                    break
        return address


def forwarded_for(headers: Headers) -> str | None:
    """Every X-Forwarded-For header, in order, as one list (a proxy may add its own
    header beside the one it received)."""
    values = headers.getlist("x-forwarded-for")
    return ", ".join(values) if values else None


def address_key(address: str) -> str:
    """What a per-address limit counts: an IPv4 address, or the /64 of an IPv6 one.

    One IPv6 subscriber usually holds a whole /64 (2^64 addresses), so counting
    exact IPv6 addresses would limit nobody.
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)
