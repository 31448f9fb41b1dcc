"""HTML pages: home, rules, variants, the table page shell, a hand's replay, the seat
link's confirm page, as module-level routes on `router` (`Site`, the registry and the
settings injected); `hollywood_gin.web.http.site` renders them.

Every content page exists once per language at `/{lang}/...`; a path without a
language redirects by cookie, then `Accept-Language`, then English. The table
page keeps the table's URL and takes its language from `?lang=`, the cookie or
the header. No game data is rendered here beyond a table's public facts: the
page script gets everything else over the WebSocket.
"""

from __future__ import annotations

import gzip
from typing import Any

import orjson
from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from markupsafe import Markup
from starlette.convertors import Convertor, register_url_convertor
from starlette.middleware.gzip import GZipMiddleware

from hollywood_gin.config import Settings
from hollywood_gin.tables.errors import TableError
from hollywood_gin.web.guard.seats import cookie_name, set_seat_cookie
from hollywood_gin.web.http.computers import computer_entries
from hollywood_gin.web.http.deps import RegistryDep, SettingsDep
from hollywood_gin.web.http.i18n import LANGUAGES, LATER, N_, REPLAY_ONLY
from hollywood_gin.web.http.replay_pages import ReplayPages, config_json, players_of
from hollywood_gin.web.http.site import (
    IMMUTABLE,
    STATIC_DIR,
    CachedStaticFiles,
    Site,
    SiteDep,
    qr_svg,
    site_of,
)

VARIANTS = ("hollywood", "straight", "oklahoma")
# Content pages: path after `/{lang}/` -> template.
PAGES: dict[str, str] = {
    "": "home.html",
    "rules": "rules.html",
    **{f"variants/{v}": f"variant_{v}.html" for v in VARIANTS},
}
HOME_TITLE = N_("Gin Rummy for two, in the browser")


class LanguageConvertor(Convertor[str]):
    """`{lang:language}` in a route: one of the five languages, nothing else.

    A content page's route then matches exactly its five paths, so no route below
    depends on being registered after it (`/t/rules` is never a language's page).
    """

    regex = "|".join(LANGUAGES)

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


class VariantConvertor(LanguageConvertor):
    """`{variant:variant}`: one of the variants that has a page."""

    regex = "|".join(VARIANTS)


register_url_convertor("language", LanguageConvertor())
register_url_convertor("variant", VariantConvertor())


router = APIRouter(include_in_schema=False)


def content_page(request: Request, site: Site, lang: str, page: str) -> HTMLResponse:
    """The page `/{lang}/{page}` (`page` a key of `PAGES`)."""
    preview = None
    if page == "":
        title = site.catalogs.gettext(lang, HOME_TITLE)
        url = f"{site.base_url(request)}/{lang}/"
        preview = site.preview(request, lang, f"Hollywood Gin — {title}", url)
    return site.render(
        request,
        lang,
        PAGES[page],
        page_path=lambda code: f"/{code}/{page}",
        page=page,
        preview=preview,
        computers=computer_entries(site.catalogs, lang) if page == "" else [],
    )


FAVICON = (STATIC_DIR / "favicon.ico").read_bytes()


@router.get("/favicon.ico", include_in_schema=False)
async def favicon() -> Response:
    """Browsers ask for `/favicon.ico` whatever a page links (a tab, a bookmark, a
    JSON answer): the pages' icon, cached for a day (it has no stamp)."""
    return Response(
        FAVICON,
        media_type="image/x-icon",
        headers={"Cache-Control": "public, max-age=86400"},
    )


@router.get("/{lang:language}/hint-words.json")
async def hint_words(lang: str, site: SiteDep) -> Response:
    """The words of the coach's hint (static/js/hint.js fetches them with the first
    hint): kept off the table page's first load."""
    words = {k: v for k, v in site.catalogs.client_strings(lang).items() if k.startswith(LATER)}
    return JSONResponse(words, headers={"Cache-Control": "public, max-age=3600"})


@router.get("/{lang:language}/")
async def home_page(request: Request, lang: str, site: SiteDep) -> HTMLResponse:
    return content_page(request, site, lang, "")


@router.get("/{lang:language}/rules")
async def rules_page(request: Request, lang: str, site: SiteDep) -> HTMLResponse:
    return content_page(request, site, lang, "rules")


@router.get("/{lang:language}/variants/{variant:variant}")
async def variant_page(request: Request, lang: str, variant: str, site: SiteDep) -> HTMLResponse:
    return content_page(request, site, lang, f"variants/{variant}")


def to_language(request: Request, site: Site, page: str) -> Response:
    """A content page's path without a language: to the reader's language. The answer
    depends on the header and the language cookie: a cache in front must say so, or it
    sends one reader's German to everyone."""
    response = RedirectResponse(f"/{site.request_language(request)}/{page}", status_code=302)
    response.headers["Vary"] = "Accept-Language, Cookie"
    return response


@router.get("/")
async def home_redirect(request: Request, site: SiteDep) -> Response:
    return to_language(request, site, "")


@router.get("/rules")
async def rules_redirect(request: Request, site: SiteDep) -> Response:
    return to_language(request, site, "rules")


@router.get("/variants/{variant:variant}")
async def variant_redirect(request: Request, variant: str, site: SiteDep) -> Response:
    return to_language(request, site, f"variants/{variant}")


@router.get("/{lang:language}")
async def language_root(lang: str) -> Response:
    return RedirectResponse(f"/{lang}/", status_code=302)


@router.get("/t/{table_id}")
async def table_page(
    request: Request, table_id: str, registry: RegistryDep, settings: SettingsDep, site: SiteDep
) -> Response:
    table = await registry.find(table_id)
    if table is None:
        return site.not_found(request)
    lang = site.request_language(request)
    public: dict[str, Any] = dict(registry.public(table))
    base = site.base_url(request)
    share_url = f"{base}/t/{table_id}"
    seat_url = None
    token = request.cookies.get(cookie_name(table_id))
    if token:
        seat = registry.seat_for_token(table_id, token)
        if seat is not None:
            seat_url = f"{base}/t/{table_id}/seat/{token}"
        else:
            token = None
    # The preview speaks the creator's language: the link is theirs to share,
    # and a chat app's crawler sends no cookie. The tab's title speaks the
    # reader's, and invites only someone who could take the free seat.
    creator_lang = getattr(table, "creator_language", None) or lang
    if creator_lang not in LANGUAGES:
        creator_lang = lang
    invitation = site.invitation(creator_lang, public)
    preview = site.preview(request, creator_lang, invitation or "Hollywood Gin", share_url)
    page_title = None
    if seat_url is None and public.get("open_seats"):
        page_title = site.invitation(lang, public)
    config = {
        "table_id": table_id,
        # Under the table's path: the seat cookie is sent there and nowhere else.
        "ws": f"/t/{table_id}/ws",
        "api": f"/api/tables/{table_id}",
        "share_url": share_url,
        # The away time after which a seat may claim: the page counts down to it.
        "claim_after": settings.claim_after_seconds,
        # Web Push is on (the server has a VAPID key): the page may offer "Notify me".
        "push": getattr(request.app.state, "push_keys", None) is not None,
    }
    response = site.render(
        request,
        lang,
        "table.html",
        page_path=lambda code: f"/t/{table_id}?lang={code}",
        page="table",
        table_id=table_id,
        public=public,
        players=[p for p in public.get("players", []) if isinstance(p, dict)],
        share_url=share_url,
        seat_url=seat_url,
        qr=qr_svg(share_url, site.catalogs.gettext(lang, "QR code of the table link")),
        client_strings=site.catalogs.client_strings(lang, skip=REPLAY_ONLY + LATER),
        config=config,
        preview=preview,
        page_title=page_title,
    )
    if token:
        # The cookie lives as long as the table: each visit sets it again.
        set_seat_cookie(response, table_id, token, settings)
    return response


@router.get("/t/{table_id}/hands/{number}")
async def replay_page(
    request: Request, table_id: str, number: str, registry: RegistryDep, site: SiteDep
) -> Response:
    """A finished hand, move by move, with the coach's review
    (docs/protocol-guide.md "Hand review"). Only once the hand is over: before, it is the
    404 page."""
    table = await registry.find(table_id)
    if table is None or not number.isdigit() or len(number) > 9:
        return site.not_found(request)
    n = int(number)
    lang = site.request_language(request)
    token = request.cookies.get(cookie_name(table_id))
    # The reader's seat (the seat cookie), drawn at the bottom first; None: a guest.
    you = registry.seat_for_token(table_id, token) if token else None
    players = players_of(registry.presence.players(table))
    pages = replay_pages_of(request)
    key = (table_id, n, lang, you, site.base_url(request), orjson.dumps(players))
    gzipped = "gzip" in request.headers.get("accept-encoding", "").lower()
    kept_page = pages.page(key)
    if kept_page is not None:  # the same page again: no render, no compression
        body = kept_page if gzipped else gzip.decompress(kept_page)
        return site.respond(request, lang, "replay.html", body, gzipped=gzipped)
    try:
        # Built once per finished hand, off the loop, and kept (`replay_pages`).
        kept = await pages.hand((table_id, n), lambda: registry.hand_record(table_id, n))
    except TableError:
        return site.not_found(request)
    reader = {
        "table_id": table_id,
        "hand": n,
        "you": you,
        "api": f"/api/tables/{table_id}",
        "table_url": f"/t/{table_id}",
        "players": players,
    }
    response = site.render(
        request,
        lang,
        "replay.html",
        page_path=lambda code: f"/t/{table_id}/hands/{number}?lang={code}",
        page="replay",
        table_id=table_id,
        number=n,
        client_strings=site.catalogs.client_strings(lang, skip=("hint.",)),
        # The hand's part (options ... steps) from the kept bytes.
        config_json=Markup(config_json(reader, kept)),
    )
    compressed = gzip.compress(bytes(response.body), 9)
    pages.keep_page(key, compressed)
    if gzipped:
        return site.respond(request, lang, "replay.html", compressed, gzipped=True)
    return response


@router.get("/t/{table_id}/seat/{token}")
async def seat_link(
    request: Request, table_id: str, token: str, registry: RegistryDep, site: SiteDep
) -> Response:
    """The personal seat link asks first and sets nothing: opening a link (from
    another site, or a link-preview crawler) must not put anyone in a seat."""
    table = await registry.find(table_id)
    seat = table.seat_for_token(token) if table is not None else None
    if table is None or seat is None:
        return site.not_found(request)
    lang = site.request_language(request)
    response = site.render(
        request,
        lang,
        "seat.html",
        page_path=lambda code: f"/t/{table_id}/seat/{token}?lang={code}",
        page="seat",
        table_id=table_id,
        token=token,
        name=table.seats[seat].name,
    )
    response.headers["Cache-Control"] = "no-store"
    # Under `no-referrer` a browser posts this page's form with `Origin: null`, and
    # off HTTPS and localhost (a LAN address) without Sec-Fetch-Site: `same-origin`
    # lets it name this site. Any referrer goes to this site only.
    response.headers["Referrer-Policy"] = "same-origin"
    return response


def replay_pages_of(request: Request) -> ReplayPages:
    pages: ReplayPages = request.app.state.replay_pages
    return pages


def not_found_page(request: Request) -> Response:
    """The HTML 404 page in the reader's language (`errors.install` answers with it
    every 404 outside the machine paths)."""
    return site_of(request).not_found(request)


def install(app: FastAPI, settings: Settings) -> None:
    """Mount `/static`, add the page routes (`router`)."""
    site = Site(settings, str(app.state.version), app.state.commit)
    app.state.site = site
    app.state.replay_pages = ReplayPages()
    # Stamped URLs never change content: cached for a year. The plain paths stay (old
    # pages, bookmarks), revalidated on each use.
    app.mount(
        f"/static/{site.stamp}",
        CachedStaticFiles(
            directory=STATIC_DIR, cache_control=IMMUTABLE, minify=settings.minify_assets
        ),
        name="static_stamped",
    )
    app.mount(
        "/static",
        CachedStaticFiles(
            directory=STATIC_DIR, cache_control="no-cache", minify=settings.minify_assets
        ),
        name="static",
    )
    # Pages and scripts are text: compressed they are a fraction of the bytes.
    app.add_middleware(GZipMiddleware, minimum_size=512)
    app.include_router(router)
