"""`/api/*` routes and the personal seat link (errors: `hollywood_gin.web.errors`)."""

from __future__ import annotations

from typing import TypeVar

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse
from pydantic import BaseModel, ValidationError

from hollywood_gin.config import Settings
from hollywood_gin.tables.reviews import Busy, Progress, ReviewFailed
from hollywood_gin.web.errors import ApiError, validation_message
from hollywood_gin.web.guard.addresses import address_key, forwarded_for
from hollywood_gin.web.guard.seats import bearer_token, cookie_name, set_seat_cookie
from hollywood_gin.web.http.bodies import (
    Computers,
    ComputerSeated,
    CreateTableWithHooks,
    JoinTable,
    SeatComputer,
    SeatTaken,
    TableCreated,
)
from hollywood_gin.web.http.computers import computer_entries
from hollywood_gin.web.http.deps import ApiState, ApiStateDep, RegistryDep, SettingsDep
from hollywood_gin.web.http.i18n import DEFAULT_LANGUAGE, LANGUAGES, negotiate

M = TypeVar("M", bound=BaseModel)

# The cookie that remembers the language a player reads (set by every page).
LANG_COOKIE = "gin_lang"


async def parse_body(request: Request, model: type[M]) -> M:
    """Validate the JSON body with `model`; an absent body means all defaults."""
    raw = await request.body()
    try:
        return model.model_validate_json(raw or b"{}")
    except ValidationError as exc:
        field, message = validation_message(exc.errors(include_url=False))
        raise ApiError(422, "bad_request", message, field=field) from None


def page_language(request: Request) -> str:
    """The language the player reads: the language cookie, else `Accept-Language`."""
    cookie = request.cookies.get(LANG_COOKIE)
    if cookie in LANGUAGES:
        return str(cookie)
    return negotiate(request.headers.get("accept-language")) or DEFAULT_LANGUAGE


def base_url(request: Request, settings: Settings) -> str:
    """This site's address for links it hands out: the configured public URL, else the
    address the request came to."""
    return settings.public_url or str(request.base_url).rstrip("/")


router = APIRouter()


@router.post("/api/tables", status_code=201)
async def create_table(
    request: Request, registry: RegistryDep, settings: SettingsDep, api: ApiStateDep
) -> Response:
    body = await parse_body(request, api.create_model)
    peer = request.client.host if request.client else None
    address = api.addresses.of(peer, forwarded_for(request.headers))
    # Per IPv4 address or IPv6 /64: one subscriber holds a whole /64.
    if not api.tables_limiter.allow(address_key(address)):
        raise ApiError(429, "rate_limited", "too many new tables from this address; later")
    # Everybody together: a cap on live tables and a creation rate. Only creating stops;
    # play at the tables already open goes on.
    if len(registry) >= settings.max_live_tables:
        raise ApiError(503, "busy", "the server holds as many tables as it can; try again later")
    if not api.creations.take(""):
        raise ApiError(503, "busy", "too many new tables on the server just now; try again later")
    hooks = body if isinstance(body, CreateTableWithHooks) else None
    table, token = await registry.create(
        body.to_options(),
        body.name,
        computer=body.computer,
        test_decks=hooks.test_decks if hooks else None,
        first_dealer=hooks.test_first_dealer if hooks else None,
        test_secrets=[bytes.fromhex(s) for s in (hooks.test_secrets or ())] if hooks else (),
        lang=body.lang or page_language(request),
        entropy=body.entropy,
        bot=body.bot,
        bots=body.bots,
    )
    answer = TableCreated(
        table_id=table.id,
        url=f"{base_url(request, settings)}/t/{table.id}",
        seat=0,
        token=token,
    )
    out = answer.model_dump(exclude={"next_deal"})
    if table.next_deal is not None:
        out["next_deal"] = {"commitment": table.next_deal}
    response = JSONResponse(out, status_code=201)
    set_seat_cookie(response, table.id, token, settings)
    return response


@router.post("/api/tables/{table_id}/seats", status_code=201)
async def join_table(
    table_id: str, request: Request, registry: RegistryDep, settings: SettingsDep
) -> Response:
    body = await parse_body(request, JoinTable)
    _seat, token = await registry.join(table_id, body.name, entropy=body.entropy, bot=body.bot)
    response = JSONResponse(SeatTaken(seat=1, token=token).model_dump(), status_code=201)
    set_seat_cookie(response, table_id, token, settings)
    return response


@router.post("/api/tables/{table_id}/computer", status_code=201)
async def seat_computer(table_id: str, request: Request, registry: RegistryDep) -> Response:
    body = await parse_body(request, SeatComputer)
    if await registry.find(table_id) is None:
        raise ApiError(404, "unknown_table", "no such table")
    # Only a seated player chooses the opponent: the share link alone is not enough.
    token = bearer_token(request) or request.cookies.get(cookie_name(table_id))
    if not token or registry.seat_for_token(table_id, token) is None:
        raise ApiError(403, "not_seated", "only a seated player may seat the computer")
    computer = body.computer or body.strength
    await registry.seat_computer(table_id, computer)
    answer = ComputerSeated(seat=1, computer=computer)
    return JSONResponse(answer.model_dump(), status_code=201)


@router.get("/api/computers")
async def computers(request: Request, lang: str | None = None) -> Response:
    """The ladder of computer opponents in `lang` (else the page's language)."""
    if lang is not None and lang not in LANGUAGES:
        raise ApiError(422, "bad_request", f"lang must be one of {', '.join(LANGUAGES)}")
    catalogs = request.app.state.site.catalogs
    answer = Computers(computers=computer_entries(catalogs, lang or page_language(request)))
    return JSONResponse(answer.model_dump())


@router.get("/api/tables/{table_id}")
async def table_facts(table_id: str, registry: RegistryDep) -> Response:
    table = await registry.find(table_id)
    if table is None:
        raise ApiError(404, "unknown_table", "no such table")
    return JSONResponse(registry.public(table))


@router.get("/api/tables/{table_id}/hands/{number}")
async def hand_record(table_id: str, number: int, registry: RegistryDep) -> Response:
    return JSONResponse(await registry.hand_record(table_id, number))


@router.get("/api/tables/{table_id}/hands/{number}/review")
async def hand_review(
    table_id: str, number: int, request: Request, registry: RegistryDep, api: ApiStateDep
) -> Response:
    """The coach's review of finished hand `number` for one seat
    (docs/protocol-guide.md "Hand review"): 404 while the hand is played, 202 with its
    progress while it is computed, 429 when its table or the asker's address already
    has as many reviews under way as it may."""
    seat = request.query_params.get("seat")
    if seat not in ("0", "1"):
        raise ApiError(422, "bad_request", "seat is 0 or 1", field="seat")
    record = await registry.hand_record(table_id, number)
    peer = request.client.host if request.client else None
    address = address_key(api.addresses.of(peer, forwarded_for(request.headers)))
    try:
        review = await registry.reviews.review(table_id, record, int(seat), address)
    except ReviewFailed:
        raise ApiError(500, "server_error", "the review could not be computed; try again") from None
    except Busy as exc:
        raise ApiError(429, "rate_limited", str(exc)) from None
    if isinstance(review, Progress):
        return JSONResponse(
            {"status": "computing", "done": review.done, "of": review.of}, status_code=202
        )
    return JSONResponse(review)


@router.post("/t/{table_id}/seat/{token}")
async def take_seat_here(
    table_id: str, token: str, registry: RegistryDep, settings: SettingsDep
) -> Response:
    """The seat link's confirm page posts here (same origin: the gate checks it)."""
    await registry.find(table_id)
    if registry.seat_for_token(table_id, token) is None:
        raise ApiError(404, "unknown_seat", "this seat link is not valid")
    response = RedirectResponse(f"/t/{table_id}", status_code=303)
    set_seat_cookie(response, table_id, token, settings)
    return response


def install(app: FastAPI, settings: Settings) -> None:
    """Add the routes (their errors are `hollywood_gin.web.errors`' to answer)."""
    ApiState.install(app, settings)
    app.include_router(router)
