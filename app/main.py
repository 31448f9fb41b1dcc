"""The application factory: `create_app(settings)` builds one independent app."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app import __version__
from app.config import Settings, read_commit
from app.tables.registry import open_tables
from app.web import api, pages, security, ws

log = logging.getLogger("hollywood_gin")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    commit = read_commit(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        log.info("starting Hollywood Gin %s (%s)", __version__, commit or "no commit")
        async with open_tables(settings) as registry:
            app.state.registry = registry
            yield
        log.info("stopped")

    app = FastAPI(
        title="Hollywood Gin",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.version = __version__
    app.state.commit = commit
    security.install(app, settings)
    api.install(app, settings)
    ws.install(app)
    pages.install(app, settings)
    # After the pages: JSON errors on machine paths, the pages' 404 page elsewhere.
    api.install_errors(app)

    @app.get("/healthz")
    async def healthz() -> dict[str, object]:
        return {"ok": True, "version": __version__, "commit": commit}

    return app
