"""The application factory: `create_app(settings)` builds one independent app."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hollywood_gin import __version__
from hollywood_gin.config import Settings, build_id, read_commit, unknown_variables
from hollywood_gin.logs import AccessLog
from hollywood_gin.tables.lifecycle import open_tables
from hollywood_gin.web import errors, metrics
from hollywood_gin.web.guard import gate, security
from hollywood_gin.web.guard.gate import Gate
from hollywood_gin.web.http import api, pages, push
from hollywood_gin.web.socket import endpoint

log = logging.getLogger("hollywood_gin")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    commit = read_commit(settings)
    build = build_id(__version__, commit)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        log.info("starting Hollywood Gin %s (%s)", __version__, commit or "no commit")
        for warning in unknown_variables():
            log.warning("%s", warning)
        async with open_tables(settings) as registry, push.running(app, settings, registry):
            app.state.registry = registry
            if settings.metrics:
                metrics.of(app).watch(registry)  # type: ignore[union-attr]
                metrics.of(app).watch_replays(app.state.replay_pages)  # type: ignore[union-attr]
            yield
        log.info("stopped")

    app = App(
        title="Hollywood Gin",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        # The schema of the HTTP API unless turned off (HOLLYWOOD_GIN_OPENAPI=false).
        openapi_url="/openapi.json" if settings.openapi else None,
    )
    app.state.settings = settings
    app.state.version = __version__
    app.state.commit = commit
    # Told to every client in `pong` and on every page: a tab whose page came from
    # another build offers a reload (docs/protocol-guide.md "Staying connected").
    app.state.build = build
    api.install(app, settings)
    push.install(app)
    endpoint.install(app)
    if settings.metrics:
        metrics.install(app)
    pages.install(app, settings)
    # JSON errors on machine paths, the pages' 404 page elsewhere.
    errors.install(app, not_found_page=pages.not_found_page)

    health = {"ok": True, "version": __version__, "commit": commit}

    @app.get("/healthz")
    async def healthz() -> dict[str, object]:
        return health  # not reached: `Health` answers first (the schema keeps the route)

    # Inside the gate and the access log (hosts, rates, each request's line as before),
    # outside everything else: HAProxy asks every worker once a second.
    body = json.dumps(health, ensure_ascii=False, separators=(",", ":")).encode()  # JSONResponse's
    app.add_middleware(Health, body=body)
    # Outside `Health`, so its answer gets them too.
    security.install(app, settings)
    app.add_middleware(AnswerHead)

    # Last, so outermost: hosts, rates, origins and bodies are checked before anything else.
    app.gate = gate.install(app, settings, direct=endpoint.direct)
    # Outermost of all: every request's line, a refused one's too (in place of uvicorn's).
    app.add_middleware(AccessLog)

    return app


class App(FastAPI):
    """FastAPI, with a table's socket handed to the gate at once: the layers outside it
    (the access log, FastAPI's error, telemetry and body-limit wrappers) pass a socket
    through untouched, and each held a coroutine frame for the socket's life; the gate
    serves it past the layers inside (`gate.Gate.direct`)."""

    gate: Gate | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.gate is not None and endpoint.matched(scope) is not None:
            scope["app"] = self  # what Starlette's `__call__` sets
            await self.gate(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


class AnswerHead:
    """Every GET route answers HEAD too (uptime monitors, link checkers;
    docs/protocol-guide.md "HTTP endpoints").

    FastAPI's routes take exactly the methods they are given: a HEAD is served as
    the GET it asks about, its headers kept (Content-Length too) and its body dropped.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


class Health:
    """`GET /healthz` answered before the routing and the middleware inside the gate.

    HAProxy's health check (a new connection and `GET /healthz` every second, on every
    worker) cost a worker ~370 µs of CPU through the whole stack (the security headers'
    `BaseHTTPMiddleware`, compression, routing, the JSON encoder) and ~100 µs answered
    here (docs/performance.md). The answer is the route's (status and body; the security headers
    are added outside; no `Vary`: it has one form). What it proves is unchanged: this
    process's event loop is running (it never asks the database: docs/scale-out.md).
    HEAD is `AnswerHead`'s, outside.
    """

    def __init__(self, app: ASGIApp, body: bytes) -> None:
        self.app = app
        self.body = body
        self.headers = [
            (b"content-length", str(len(body)).encode()),
            (b"content-type", b"application/json"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/healthz" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        # Fresh messages each time: a middleware outside may change what it is sent.
        await send({"type": "http.response.start", "status": 200, "headers": list(self.headers)})
        await send({"type": "http.response.body", "body": self.body})
