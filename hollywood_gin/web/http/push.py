"""Web Push's routes (docs/protocol-guide.md "Notifications"): the server's public key,
a seat's subscriptions, the service worker; and the messages' words in five languages.

The sending itself is the tables layer's (`hollywood_gin.tables.push`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from hollywood_gin.config import Settings, resource_dir
from hollywood_gin.tables.push import (
    BadSubscription,
    Pushes,
    Texts,
    VapidKeys,
    add,
    check_endpoint,
    load_keys,
    remove,
    subscription,
)
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.table import Table
from hollywood_gin.web.errors import ApiError
from hollywood_gin.web.guard.seats import bearer_token, cookie_name
from hollywood_gin.web.http.api import BodyFirst, page_language
from hollywood_gin.web.http.bodies import CHANGE_STATUSES, error_answers
from hollywood_gin.web.http.deps import RegistryDep, SettingsDep
from hollywood_gin.web.http.i18n import LANGUAGES, N_, Catalogs

log = logging.getLogger("hollywood_gin.push")

# The messages' words: (title, body), `{name}` the opponent. No card, ever.
TEXTS: dict[str, tuple[str, str]] = {
    "your_move": (N_("Your move"), N_("{name} has moved. Your move.")),
    "next_hand": (N_("Next hand"), N_("{name} is ready for the next hand.")),
    "match_over": (N_("Match over"), N_("Your match with {name} is over.")),
    "deadline_soon": (N_("Your move"), N_("A quarter of your time to move is left.")),
}

Base64Url = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_=-]+$")]


class SubscriptionKeys(BaseModel):
    model_config = ConfigDict(extra="ignore")
    p256dh: Base64Url
    auth: Base64Url


class Subscribe(BaseModel):
    """`PushSubscription.toJSON()` as browsers send it, plus an optional language."""

    model_config = ConfigDict(extra="ignore")
    endpoint: str = Field(min_length=8, max_length=1000)
    expirationTime: int | float | None = None  # the browser's name
    keys: SubscriptionKeys
    lang: str | None = None


class Unsubscribe(BaseModel):
    model_config = ConfigDict(extra="ignore")
    endpoint: str = Field(min_length=8, max_length=1000)


class PushKey(BaseModel):
    """`GET /api/push/key`: the server's VAPID public key."""

    key: str = Field(description="the 65-byte uncompressed P-256 key, base64url, no padding")


class Subscribed(BaseModel):
    ok: Literal[True]


def push_words(catalogs: Catalogs) -> Texts:
    def texts(lang: str, kind: str, name: str) -> tuple[str, str]:
        lang = lang if lang in LANGUAGES else "en"
        title, body = TEXTS[kind]
        return catalogs.gettext(lang, title), catalogs.gettext(lang, body).replace("{name}", name)

    return texts


def push_off_reason(settings: Settings) -> str | None:
    """Why push is off (`check` prints it), or None: it is on."""
    if settings.push_subject is not None:
        return None
    return (
        "off: set HOLLYWOOD_GIN_VAPID_SUBJECT (mailto: or https:) or an https"
        " HOLLYWOOD_GIN_PUBLIC_URL"
    )


@asynccontextmanager
async def running(app: FastAPI, settings: Settings, registry: Registry) -> AsyncIterator[None]:
    """The key pair loaded (made on first start) and the senders running, when push is on."""
    keys = await load_keys(
        settings.push_subject, settings.vapid_private_key, registry.store, settings.data_file
    )
    app.state.push_keys = keys
    pushes = None
    if keys is not None:
        pushes = Pushes(registry, keys, texts=push_words(app.state.site.catalogs))
        pushes.start()
        registry.writer.listeners.append(pushes)
        # Before the writer tells of a table's arrival: not a new wait.
        registry.held.arrived.insert(0, pushes.arrived)
        registry.held.left.append(lambda table: pushes.forget(table.id))
        registry.presence.soon = pushes.deadline_soon

    try:
        yield
    finally:
        if pushes is not None:
            await pushes.close()


router = APIRouter(route_class=BodyFirst)


async def _keys(request: Request) -> VapidKeys:
    keys: VapidKeys | None = getattr(request.app.state, "push_keys", None)
    if keys is None:
        raise ApiError(404, "not_found", "notifications are off on this server")
    return keys


# A dependency, so push off is a 404 before the body is validated.
KeysDep = Annotated[VapidKeys, Depends(_keys)]


async def _seat(request: Request, registry: Registry, table_id: str) -> tuple[Table, int]:
    table = await registry.find(table_id)
    if table is None:
        raise ApiError(404, "unknown_table", "no such table")
    token = bearer_token(request) or request.cookies.get(cookie_name(table_id))
    seat = table.seat_for_token(token) if token else None
    if seat is None:
        raise ApiError(403, "not_seated", "only a seated player gets notifications")
    return table, seat


@router.get("/api/push/key", response_model=PushKey, responses=error_answers(404, 429))
async def push_key(keys: KeysDep) -> Response:
    return JSONResponse({"key": keys.key})


@router.post(
    "/api/tables/{table_id}/push",
    status_code=201,
    response_model=Subscribed,
    responses=error_answers(*CHANGE_STATUSES, 404),
)
async def subscribe(
    table_id: str,
    request: Request,
    registry: RegistryDep,
    settings: SettingsDep,
    _keys: KeysDep,
    body: Subscribe,
) -> Response:
    table, seat = await _seat(request, registry, table_id)
    try:
        check_endpoint(body.endpoint, settings.push_services)
    except BadSubscription as exc:
        raise ApiError(422, exc.code, str(exc), field="endpoint") from None
    lang = body.lang if body.lang in LANGUAGES else page_language(request)
    stored = subscription(body.model_dump(), str(lang), registry.clock())
    await add(registry, table, seat, stored)
    return JSONResponse({"ok": True}, status_code=201)


@router.delete(
    "/api/tables/{table_id}/push",
    status_code=204,
    response_class=Response,
    responses=error_answers(*CHANGE_STATUSES, 404),
)
async def unsubscribe(
    table_id: str, request: Request, registry: RegistryDep, _keys: KeysDep, body: Unsubscribe
) -> Response:
    table, seat = await _seat(request, registry, table_id)
    await remove(registry, table, seat, body.endpoint)
    return Response(status_code=204)


@router.get("/sw.js", include_in_schema=False)
async def service_worker() -> Response:
    # At the root, so its scope is the whole site; never cached long (a new version
    # must reach every installed page).
    return FileResponse(
        resource_dir("static") / "js" / "sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )


def install(app: FastAPI) -> None:
    app.include_router(router)
