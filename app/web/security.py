"""Security headers on every HTTP answer (PRODUCT.md §4), the WebSocket Origin check,
client addresses behind trusted proxies, and the rate-limit helpers."""

from __future__ import annotations

import collections
import contextlib
import ipaddress
from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request, Response

from app.config import Settings

# No inline script or style anywhere: everything comes from /static on this host.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

HEADERS = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


def install(app: FastAPI, settings: Settings) -> None:
    https = bool(settings.public_url and settings.public_url.startswith("https://"))

    @app.middleware("http")
    async def security_headers(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        if https:
            response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
        return response


# --- WebSocket Origin check (CORS does not cover WebSockets: ARCHITECTURE.md) -------------
def origin_allowed(origin: str | None, scheme: str, host: str | None, settings: Settings) -> bool:
    """Is a socket from this Origin allowed? No Origin: a non-browser client, allowed."""
    if origin is None:
        return True
    origin = origin.rstrip("/")
    http_scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    if host and origin == f"{http_scheme}://{host}":
        return True
    if settings.public_url and origin == settings.public_url:
        return True
    return origin in {o.rstrip("/") for o in settings.allowed_origins}


# --- client addresses ----------------------------------------------------------------------
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


# --- rate limits ---------------------------------------------------------------------------
class TokenBucket:
    """`rate` messages per second with bursts up to `burst`; the clock is injected."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()
        # Messages refused in a row: a client that keeps flooding gets closed.
        self.refused_in_a_row = 0

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            self.refused_in_a_row = 0
            return True
        self.refused_in_a_row += 1
        return False


class WindowLimiter:
    """At most `limit` events per key within `window` seconds (tables per address per hour)."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float]) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._events: dict[str, collections.deque[float]] = {}

    def allow(self, key: str) -> bool:
        now = self.clock()
        self._forget(now)
        events = self._events.setdefault(key, collections.deque())
        if len(events) >= self.limit:
            return False
        events.append(now)
        return True

    def _forget(self, now: float) -> None:
        # Drop old events everywhere, so memory is bounded by the last hour's clients.
        for key in list(self._events):
            events = self._events[key]
            while events and events[0] <= now - self.window:
                events.popleft()
            if not events:
                del self._events[key]
