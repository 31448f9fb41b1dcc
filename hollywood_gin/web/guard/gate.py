"""The gate: every request's and socket's first stop, pure ASGI, outermost
(docs/architecture.md "The web layer"). It applies the `Host` check, the per-address
rates, and the checks on a request that changes something (same site, JSON, body
size), and answers its own refusals."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

import orjson
from fastapi import FastAPI
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hollywood_gin.config import Settings
from hollywood_gin.tables.table import possible_table_id
from hollywood_gin.web.errors import error_body
from hollywood_gin.web.guard.addresses import ClientAddress, address_key, forwarded_for
from hollywood_gin.web.guard.limits import KeyedBuckets
from hollywood_gin.web.guard.security import HEADERS, AllowedHosts, is_https, origin_allowed

log = logging.getLogger("hollywood_gin.security")

# The security headers on the gate's own refusals (they never reach the app's middleware).
REFUSAL_HEADERS = [(name.lower().encode(), value.encode()) for name, value in HEADERS.items()]

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


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# A refused flood waits this long for its answer, so refusing costs the server little.
REFUSAL_PAUSE_SECONDS = 0.5
# Test hooks' deck orders are long (up to 200 decks); production bodies are small.
TEST_HOOKS_BODY_BYTES = 65536

STATIC_SCALE = 5

# Serves a socket itself when its path is one it takes (True), past the middleware
# and routing inside the gate; False: not its path, untouched (`Gate.direct`).
Direct = Callable[[Scope, Receive, Send], Awaitable[bool]]


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
        self,
        app: ASGIApp,
        settings: Settings,
        clock: Callable[[], float] = time.monotonic,
        direct: Direct | None = None,
    ) -> None:
        self.app = app
        # The table sockets' endpoint, reached straight from here: every layer between
        # the gate and a route (none acts on a socket) is a coroutine frame held for
        # the socket's life, ~6 KB a socket in all (docs/performance.md "Memory").
        self.direct = direct
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
            # This frame lives as long as the socket: not its view of the headers, which
            # the endpoint lets go once read (`endpoint.forget_headers`).
            del headers, forwarded
            if self.direct is None or not await self.direct(scope, receive, send):
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


def install(app: FastAPI, settings: Settings, direct: Direct | None = None) -> Gate:
    """Add the gate outermost: call it after every other middleware. The gate is made
    here, not when the middleware is put together: the app may call it itself (a table's
    socket, `main.App`), before that and past the layers outside it."""

    async def unset(scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("the gate's middleware is not put together yet")

    gate = Gate(unset, settings, direct=direct)

    def around(inner: ASGIApp) -> ASGIApp:
        gate.app = inner
        return gate

    app.add_middleware(around)
    return gate
