"""Security headers on every HTTP answer (docs/architecture.md "The web layer"), and whom the server
answers:
the `Host` names it serves (DNS rebinding) and the Origins a WebSocket may come from."""

from __future__ import annotations

import ipaddress
import socket

from fastapi import FastAPI
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hollywood_gin.config import Settings

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
    app.add_middleware(SecurityHeaders, https=is_https(settings))


class SecurityHeaders:
    """The headers above on every HTTP answer, unless the answer set its own.

    Plain ASGI, not `@app.middleware("http")`: Starlette's `BaseHTTPMiddleware` runs
    each request in a task group with memory streams, ~270 µs of CPU a request
    (docs/research/performance-log.md "HAProxy, the health check and batches that keep their size");
    this adds them to the answer's start message as it passes.
    """

    def __init__(self, app: ASGIApp, https: bool) -> None:
        self.app = app
        self.headers = list(HEADERS.items())
        if https:
            self.headers.append(("Strict-Transport-Security", "max-age=31536000"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in self.headers:
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, with_headers)


# --- WebSocket Origin check (CORS does not: docs/architecture.md "Measured traps") ---
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


# --- Host names (DNS rebinding) ------------------------------------------------------------
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
