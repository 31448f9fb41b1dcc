"""Shared helpers for the in-process web tests: an app on a test client, its registry,
the app under uvicorn in the test's own process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi.testclient import TestClient

from hollywood_gin.main import create_app
from hollywood_gin.tables.registry import Registry
from hollywood_gin.web.guard import connections
from tests.tables.helpers import make_settings

# One client address for every request: the per-address limits see one peer.
PEER = ("127.0.0.1", 50000)


def app_client(tmp_path: Path, client: tuple[str, int] = PEER, **overrides: Any) -> TestClient:
    """The app on `make_settings(tmp_path, **overrides)`, its requests from `client`."""
    return TestClient(create_app(make_settings(tmp_path, **overrides)), client=client)


def registry_of(client: TestClient) -> Registry:
    registry: Registry = client.app.state.registry  # type: ignore[attr-defined]
    return registry


@asynccontextmanager
async def table_server(
    tmp_path: Path, *, clock: Callable[[], float] | None = None, **overrides: Any
) -> AsyncIterator[tuple[int, dict[str, Any]]]:
    """The app on `make_settings(tmp_path, **overrides)` under uvicorn with the server's
    own protocols (`connections.protocols`) on a loopback port, and a table made on it:
    yields (port, the table's creation answer). `clock`: the sockets' rate clock."""
    settings = make_settings(tmp_path, **overrides)
    http, ws = connections.protocols(settings)
    app = create_app(settings)
    if clock is not None:
        app.state.ws_clock = clock
    # No log config and no level: uvicorn would apply them to this whole process (its
    # loggers' handlers and levels), for every later test of the worker. The root
    # logger's level (warning) keeps uvicorn's start-up lines out as before.
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        http=http,
        ws=ws,
        log_config=None,
        log_level=None,
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            made = (await client.post("/api/tables", json={"name": "Ann"})).json()
        yield port, made
    finally:
        server.should_exit = True
        await serving
