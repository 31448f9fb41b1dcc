"""What a route asks for, as FastAPI dependencies: `async def f(registry: RegistryDep)`.

Everything hangs off the app `create_app()` built (no module-level state): the
settings, the registry (opened by the lifespan), and what the API keeps between
requests (the new-tables limiter, the client-address reader).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, FastAPI, Request

from hollywood_gin.config import Settings
from hollywood_gin.tables.registry import Registry
from hollywood_gin.web.guard.addresses import ClientAddress
from hollywood_gin.web.guard.limits import KeyedBuckets, WindowLimiter


@dataclass
class ApiState:
    """What the API keeps between requests, one per app."""

    addresses: ClientAddress
    tables_limiter: WindowLimiter
    # New tables from everybody together: a tenth of a minute's worth at once (at least
    # 10), then the rate.
    creations: KeyedBuckets

    @classmethod
    def install(cls, app: FastAPI, settings: Settings) -> None:
        per_minute = settings.tables_per_minute
        app.state.api = cls(
            ClientAddress(settings.trusted_proxies),
            WindowLimiter(settings.tables_per_hour_per_address, 3600.0, time.monotonic),
            KeyedBuckets(per_minute / 60.0, max(10, per_minute // 10), time.monotonic),
        )


# `async def`, though they never wait: FastAPI runs a plain `def` dependency in its
# thread pool, a hand-off to another thread (and up to 40 threads kept) per request.
async def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def registry_of(request: Request) -> Registry:
    registry: Registry = request.app.state.registry
    return registry


async def api_state_of(request: Request) -> ApiState:
    state: ApiState = request.app.state.api
    return state


SettingsDep = Annotated[Settings, Depends(settings_of)]
RegistryDep = Annotated[Registry, Depends(registry_of)]
ApiStateDep = Annotated[ApiState, Depends(api_state_of)]
