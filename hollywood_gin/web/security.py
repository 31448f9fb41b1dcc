"""Security headers on every HTTP answer (PRODUCT.md §4), the WebSocket Origin check,
client addresses behind trusted proxies, and the rate-limit helpers."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ipaddress
import logging
import socket
import time
from collections.abc import Awaitable, Callable

import orjson
from fastapi import FastAPI, Request, Response
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hollywood_gin.config import Settings
from hollywood_gin.tables.table import possible_table_id
from hollywood_gin.web.errors import error_body

log = logging.getLogger("hollywood_gin.security")

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


def is_https(settings: Settings) -> bool:
    """Is the site public under https (cookies Secure, HSTS)?"""
    return bool(settings.public_url and settings.public_url.startswith("https://"))


def install(app: FastAPI, settings: Settings) -> None:
    https = is_https(settings)

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


# The same headers on the gate's own refusals (they never reach the middleware above).
REFUSAL_HEADERS = [(name.lower().encode(), value.encode()) for name, value in HEADERS.items()]


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


# --- the gate: every request's first stop (issue 14) ---------------------------------------
# The paths that name a table: its id is the segment after the prefix.
TABLE_PREFIXES = ("/t/", "/api/tables/", "/ws/tables/")


def table_path_ok(scope: Scope) -> bool:
    """Does a table's path name its table plainly? A percent-encoded path (the proxy
    hashes the raw path, the app decodes it: `/api/tables/%6D…` would reach another
    worker, which claims the table) or an id that cannot be one is refused."""
    path: str = scope.get("path", "")
    for prefix in TABLE_PREFIXES:
        if path.startswith(prefix):
            raw = scope.get("raw_path")
            if raw is not None and b"%" in raw:
                return False
            return possible_table_id(path[len(prefix) :].split("/", 1)[0])
    return True


def forwarded_for(headers: Headers) -> str | None:
    """Every X-Forwarded-For header, in order, as one list (a proxy may add its own
    header beside the one it received)."""
    values = headers.getlist("x-forwarded-for")
    return ", ".join(values) if values else None


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# A refused flood waits this long for its answer, so refusing costs the server little.
REFUSAL_PAUSE_SECONDS = 0.5
# Test hooks' deck orders are long (up to 200 decks); production bodies are small.
TEST_HOOKS_BODY_BYTES = 65536


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


def host_name(host_header: str | None) -> str | None:
    """The name of a `Host` header without its port, lower case; None when malformed."""
    if not host_header:
        return None
    host = host_header.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            return None
        rest = host[end + 1 :]
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            return None
        return host[1:end]
    name, _, port = host.partition(":")
    if port and not port.isdigit():
        return None
    return name.rstrip(".") or None


def is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class AllowedHosts:
    """The `Host` names this server answers to.

    With a public URL: its host, and the `allowed_hosts` setting. Without one: this
    machine's names (`localhost`, its host name), any IP address literal (a DNS
    rebinding attack needs a name of the attacker's), and the `allowed_hosts` setting.
    """

    def __init__(self, settings: Settings) -> None:
        names = {h.strip().lower().rstrip(".") for h in settings.allowed_hosts if h.strip()}
        if settings.public_url:
            public = host_name(settings.public_url.split("://", 1)[1].split("/", 1)[0])
            if public:
                names.add(public)
            self.ip_literals = False
        else:
            names |= {"localhost", socket.gethostname().lower()}
            self.ip_literals = True
        self.names = frozenset(names)

    def allowed(self, host_header: str | None) -> bool:
        name = host_name(host_header)
        if name is None:
            return False
        if name in self.names:
            return True
        return self.ip_literals and is_ip_literal(name)


STATIC_SCALE = 5


class KeyedBuckets:
    """A token bucket per key (`rate` per second, bursts up to `burst`), memory bounded:
    full buckets are forgotten, they would allow exactly what a new one allows."""

    PRUNE_EVERY = 4096

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._calls = 0

    def take(self, key: str) -> bool:
        now = self.clock()
        self._calls += 1
        if self._calls % self.PRUNE_EVERY == 0:
            self._prune(now)
        tokens, stamp = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1.0, now)
        return True

    def _prune(self, now: float) -> None:
        full = self.burst / self.rate
        for key, (tokens, stamp) in list(self._buckets.items()):
            if tokens + (now - stamp) * self.rate >= self.burst or now - stamp > full:
                del self._buckets[key]

    def __len__(self) -> int:
        return len(self._buckets)


class TooLarge(Exception):
    """The request body grew past the limit while it was read."""


def _json_content_type(value: str | None) -> bool:
    if value is None:
        return False
    media = value.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


class Gate:
    """Pure ASGI, outermost: the checks every request and socket meets first.

    In order: the `Host` is one of ours (400 `bad_host`, never reflected); the
    client's address (IPv4, or IPv6 /64) is within its request or new-socket rate
    (429 `rate_limited`, answered after a pause); and a request that changes
    something (`POST`) comes from this site (403 `forbidden_origin`), says its body
    is JSON (415 `unsupported_media_type`) and keeps it under the limit (413
    `too_large`: refused from `Content-Length` at once, or while reading, before
    the body is held).
    """

    def __init__(
        self, app: ASGIApp, settings: Settings, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.app = app
        self.settings = settings
        self.hosts = AllowedHosts(settings)
        self.told_about_host = False
        self.addresses = ClientAddress(settings.trusted_proxies)
        self.requests = KeyedBuckets(settings.http_requests_per_second, settings.http_burst, clock)
        # Static files (stamped, cached a year, a few hundred µs each) have a bucket of
        # their own, five times as wide: a first visit's dozen assets never use up the
        # pages' burst, so that burst can stay small (it is what a page flood spends).
        self.static = KeyedBuckets(
            STATIC_SCALE * settings.http_requests_per_second,
            STATIC_SCALE * settings.http_burst,
            clock,
        )
        self.sockets = KeyedBuckets(
            settings.ws_connects_per_second, settings.ws_connects_burst, clock
        )
        self.max_body = (
            max(settings.max_body_bytes, TEST_HOOKS_BODY_BYTES)
            if settings.test_hooks
            else settings.max_body_bytes
        )
        self.pause = REFUSAL_PAUSE_SECONDS
        self.https = is_https(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        path: str = scope.get("path", "")
        # Probes (a container's health check) call by address, whatever the public name.
        if path != "/healthz" and not self.hosts.allowed(headers.get("host")):
            self.tell_about_host(headers.get("host"))
            await self.refuse(scope, receive, send, 400, "bad_host", "unknown host")
            return
        if not table_path_ok(scope):
            await self.refuse(scope, receive, send, 404, "unknown_table", "no such table")
            return
        client = scope.get("client")
        peer = client[0] if client else None
        forwarded = forwarded_for(headers)
        if path == "/metrics" and forwarded:
            # Kept inside: metrics are for the workers' own network, never through a proxy.
            await self.refuse(scope, receive, send, 404, "not_found", "not found")
            return
        address = self.addresses.of(peer, forwarded)
        key = address_key(address)
        if kind == "websocket":
            if not self.sockets.take(key):
                await asyncio.sleep(self.pause)
                await self.refuse(
                    scope, receive, send, 429, "rate_limited", "too many new sockets; later"
                )
                return
            await self.app(scope, receive, send)
            return
        bucket = self.static if path.startswith("/static/") else self.requests
        if not bucket.take(key):
            await asyncio.sleep(self.pause)
            await self.refuse(scope, receive, send, 429, "rate_limited", "too many requests; later")
            return
        if scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        await self.changing_request(scope, receive, send, headers)

    def tell_about_host(self, host: str | None) -> None:
        """The first refused `Host` is logged once, with the setting that would answer it:
        a site behind a new name otherwise only shows 400s to its visitors."""
        if self.told_about_host:
            return
        self.told_about_host = True
        setting = (
            "HOLLYWOOD_GIN_ALLOWED_HOSTS, or set HOLLYWOOD_GIN_PUBLIC_URL to the site's address"
            if not self.settings.public_url
            else "HOLLYWOOD_GIN_ALLOWED_HOSTS (HOLLYWOOD_GIN_PUBLIC_URL names another)"
        )
        log.warning(
            "refused a request for the unknown Host %r (400 bad_host; logged once): if this"
            " is the site's name, add it to %s",
            (host or "")[:100],
            setting,
        )

    async def changing_request(
        self, scope: Scope, receive: Receive, send: Send, headers: Headers
    ) -> None:
        if not self.same_site(scope, headers):
            await self.refuse(
                scope,
                receive,
                send,
                403,
                "forbidden_origin",
                "requests from other sites are refused",
            )
            return
        length = headers.get("content-length")
        declared: int | None = None
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                await self.refuse(scope, receive, send, 400, "bad_request", "bad Content-Length")
                return
        if declared is not None and declared > self.max_body:
            await self.refuse(scope, receive, send, 413, "too_large", self.too_large_text())
            return
        has_body = (declared or 0) > 0 or "transfer-encoding" in headers
        if has_body and not _json_content_type(headers.get("content-type")):
            await self.refuse(
                scope, receive, send, 415, "unsupported_media_type", "the body must be JSON"
            )
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise TooLarge
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        too_large = False
        try:
            await self.app(scope, counted_receive, watched_send)
        except* TooLarge:
            # Bare, or in the group of a middleware's task group.
            if started:
                raise
            too_large = True
        if too_large:
            await self.refuse(scope, receive, send, 413, "too_large", self.too_large_text())

    def too_large_text(self) -> str:
        return f"a request body has at most {self.max_body} bytes"

    def same_site(self, scope: Scope, headers: Headers) -> bool:
        origin = headers.get("origin")
        fetch_site = headers.get("sec-fetch-site")
        if origin is None:
            # Not a browser (browsers send Origin on every POST), or Fetch Metadata tells.
            return fetch_site in (None, "same-origin", "none")
        if origin == "null":
            # A form posted under `Referrer-Policy: no-referrer` (every page here) has an
            # opaque Origin; the browser's own Sec-Fetch-Site still names the site.
            return fetch_site == "same-origin"
        return origin_allowed(
            origin, scope.get("scheme", "http"), headers.get("host"), self.settings
        )

    async def refuse(
        self, scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str
    ) -> None:
        body = orjson.dumps(error_body(code, message))
        response_headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
            *REFUSAL_HEADERS,
        ]
        if self.https:
            response_headers.append((b"strict-transport-security", b"max-age=31536000"))
        if status == 429:
            response_headers.append((b"retry-after", b"1"))
        if status in (413, 415, 400):
            # Whatever of the body is still unread would be taken for the next request.
            response_headers.append((b"connection", b"close"))
        if scope["type"] == "websocket":
            if "websocket.http.response" in scope.get("extensions", {}):
                await send(
                    {
                        "type": "websocket.http.response.start",
                        "status": status,
                        "headers": response_headers,
                    }
                )
                await send({"type": "websocket.http.response.body", "body": body})
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        await send({"type": "http.response.start", "status": status, "headers": response_headers})
        await send({"type": "http.response.body", "body": body})


def install_gate(app: FastAPI, settings: Settings) -> None:
    """Add the gate outermost: call it after every other middleware."""
    app.add_middleware(Gate, settings=settings)
