"""`/api/*` routes and the personal seat link (errors: `hollywood_gin.web.errors`)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, FastAPI, Query, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.routing import APIRoute

from hollywood_gin.config import Settings
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.reviews import Busy, Progress, ReviewFailed
from hollywood_gin.web.errors import ApiError
from hollywood_gin.web.guard.addresses import address_key, forwarded_for
from hollywood_gin.web.guard.seats import bearer_token, cookie_name, set_seat_cookie
from hollywood_gin.web.http.bodies import (
    CHANGE_STATUSES,
    ERROR_STATUSES,
    Computers,
    ComputerSeated,
    CreateTable,
    CreateTableWithHooks,
    HandRecord,
    HandReview,
    JoinTable,
    ReviewComputing,
    SeatComputer,
    SeatTaken,
    TableCreated,
    TablePublic,
    error_answers,
)
from hollywood_gin.web.http.computers import computer_entries
from hollywood_gin.web.http.deps import ApiState, ApiStateDep, RegistryDep, SettingsDep
from hollywood_gin.web.http.i18n import DEFAULT_LANGUAGE, LANGUAGES, negotiate
from hollywood_gin.web.socket.messages import Language

# The cookie that remembers the language a player reads (set by every page).
LANG_COOKIE = "gin_lang"


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


# The routes answer with the models' own bytes (`JSONResponse`, cookies set on it), so
# `response_model` and `responses` describe them for `/openapi.json` and change
# nothing on the wire (docs/bots.md "The HTTP API's schema").
class BodyFirst(APIRoute):
    """A route that reads its request's body before FastAPI parses it.

    The gate cuts a body that grows past the limit while it is read (`TooLarge`,
    answered 413 `too_large`); read inside FastAPI's parsing, that exception became
    FastAPI's own `400 There was an error parsing the body`. Read here first, it
    reaches the gate, and FastAPI parses the body kept on the request.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def read_first(request: Request) -> Response:
            await request.body()
            return await handler(request)

        return read_first


router = APIRouter(route_class=BodyFirst)
# `POST /api/tables` is on one of these two, whichever the settings choose: with
# test hooks on, its body takes deck orders and secrets (`CreateTableWithHooks`).
creating = APIRouter(route_class=BodyFirst)
creating_with_hooks = APIRouter(route_class=BodyFirst)
CREATED_ERRORS = error_answers(*CHANGE_STATUSES, 503)


@creating.post(
    "/api/tables", status_code=201, response_model=TableCreated, responses=CREATED_ERRORS
)
async def create_table(
    request: Request,
    registry: RegistryDep,
    settings: SettingsDep,
    api: ApiStateDep,
    body: Annotated[CreateTable, Body(default_factory=CreateTable)],
) -> Response:
    return await create(request, registry, settings, api, body)


@creating_with_hooks.post(
    "/api/tables", status_code=201, response_model=TableCreated, responses=CREATED_ERRORS
)
async def create_table_with_hooks(
    request: Request,
    registry: RegistryDep,
    settings: SettingsDep,
    api: ApiStateDep,
    body: Annotated[CreateTableWithHooks, Body(default_factory=CreateTableWithHooks)],
) -> Response:
    return await create(request, registry, settings, api, body)


async def create(
    request: Request, registry: Registry, settings: Settings, api: ApiState, body: CreateTable
) -> Response:
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


@router.post(
    "/api/tables/{table_id}/seats",
    status_code=201,
    response_model=SeatTaken,
    responses=error_answers(*CHANGE_STATUSES, 404, 409, 503),
)
async def join_table(
    table_id: str,
    registry: RegistryDep,
    settings: SettingsDep,
    body: Annotated[JoinTable, Body(default_factory=JoinTable)],
) -> Response:
    _seat, token = await registry.join(table_id, body.name, entropy=body.entropy, bot=body.bot)
    response = JSONResponse(SeatTaken(seat=1, token=token).model_dump(), status_code=201)
    set_seat_cookie(response, table_id, token, settings)
    return response


@router.post(
    "/api/tables/{table_id}/computer",
    status_code=201,
    response_model=ComputerSeated,
    responses=error_answers(*CHANGE_STATUSES, 404, 409, 503),
)
async def seat_computer(
    table_id: str,
    request: Request,
    registry: RegistryDep,
    body: Annotated[SeatComputer, Body(default_factory=SeatComputer)],
) -> Response:
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


@router.get("/api/computers", response_model=Computers, responses=error_answers(422, 429))
async def computers(request: Request, lang: Language | None = None) -> Response:
    """The ladder of computer opponents in `lang` (else the page's language)."""
    catalogs = request.app.state.site.catalogs
    answer = Computers(computers=computer_entries(catalogs, lang or page_language(request)))
    return JSONResponse(answer.model_dump())


@router.get("/api/tables/{table_id}", response_model=TablePublic, responses=error_answers(404, 429))
async def table_facts(table_id: str, registry: RegistryDep) -> Response:
    table = await registry.find(table_id)
    if table is None:
        raise ApiError(404, "unknown_table", "no such table")
    return JSONResponse(registry.public(table))


@router.get(
    "/api/tables/{table_id}/hands/{number}",
    response_model=HandRecord,
    responses=error_answers(404, 422, 429),
)
async def hand_record(table_id: str, number: int, registry: RegistryDep) -> Response:
    return JSONResponse(await registry.hand_record(table_id, number))


@router.get(
    "/api/tables/{table_id}/hands/{number}/review",
    response_model=HandReview,
    responses={
        202: {"model": ReviewComputing, "description": "computing: ask again a second later"},
        **error_answers(404, 422, 429, 500),
    },
)
async def hand_review(
    table_id: str,
    number: int,
    request: Request,
    registry: RegistryDep,
    api: ApiStateDep,
    seat: Annotated[Literal["0", "1"], Query(description="the seat reviewed: 0 or 1")],
) -> Response:
    """The coach's review of finished hand `number` for one seat
    (docs/protocol-guide.md "Hand review"): 404 while the hand is played, 202 with its
    progress while it is computed, 429 when its table or the asker's address already
    has as many reviews under way as it may."""
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


@router.post(
    "/t/{table_id}/seat/{token}",
    status_code=303,
    response_class=RedirectResponse,
    responses=error_answers(403, 404, 429),
)
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
    app.include_router(creating_with_hooks if settings.test_hooks else creating)
    app.include_router(router)
    schema_with_envelope(app)


def schema_with_envelope(app: FastAPI) -> None:
    """`/openapi.json` names the real 422: FastAPI adds its own `HTTPValidationError`
    to every route with parameters, a shape this site never sends (a validation
    error is answered in the one envelope, `web/errors.py`)."""
    default = app.openapi
    theirs = "#/components/schemas/HTTPValidationError"
    ours = {"$ref": "#/components/schemas/ErrorBody"}

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = default()
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                answer = operation.get("responses", {}).get("422")
                json_answer = (answer or {}).get("content", {}).get("application/json", {})
                if json_answer.get("schema", {}).get("$ref") == theirs:
                    answer["description"] = ERROR_STATUSES[422]
                    json_answer["schema"] = ours
        components = schema.get("components", {}).get("schemas", {})
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
