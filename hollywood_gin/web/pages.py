"""HTML pages: home, rules, variants, the table page shell, the 404 page.

Every content page exists once per language at `/{lang}/...`; a path without a
language redirects by cookie, then `Accept-Language`, then English. The table
page keeps the table's URL and takes its language from `?lang=`, the cookie or
the header. No game data is rendered here beyond a table's public facts: the
page script gets everything else over the WebSocket.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Callable
from os import PathLike
from pathlib import Path
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.convertors import Convertor, register_url_convertor
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import Scope

from hollywood_gin.config import Settings, resource_dir
from hollywood_gin.tables.table import TableError
from hollywood_gin.web.api import LANG_COOKIE, base_url, cookie_name, set_seat_cookie
from hollywood_gin.web.deps import RegistryDep, SettingsDep
from hollywood_gin.web.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGE_NAMES,
    LANGUAGES,
    N_,
    REPLAY_ONLY,
    Catalogs,
    negotiate,
)
from hollywood_gin.web.replay import hand_steps
from hollywood_gin.web.security import is_https

TEMPLATES_DIR = resource_dir("templates")
STATIC_DIR = resource_dir("static")
IMMUTABLE = "public, max-age=31536000, immutable"
LANG_COOKIE_MAX_AGE = 365 * 86400
VARIANTS = ("hollywood", "straight", "oklahoma")
# Content pages: path after `/{lang}/` -> template.
PAGES: dict[str, str] = {
    "": "home.html",
    "rules": "rules.html",
    **{f"variants/{v}": f"variant_{v}.html" for v in VARIANTS},
}
# Link previews (Open Graph, Twitter cards): the image shipped in static/img
# (scripts/make_images.py draws it), and the words of a table's invitation.
PREVIEW_IMAGE = "/static/img/preview.png"
PREVIEW_IMAGE_SIZE = (1200, 630)
OG_LOCALES = {"en": "en_US", "de": "de_DE", "da": "da_DK", "hu": "hu_HU", "et": "et_EE"}
TAGLINE = N_("Two-player Gin Rummy in the browser. No sign-up. Share a link and start playing.")
HOME_TITLE = N_("Gin Rummy for two, in the browser")
INVITATION = N_("%(name)s invites you to Gin Rummy — %(rules)s, %(scoring)s")
RULE_NAMES = {
    "standard": N_("Standard"),
    "straight": N_("Straight Gin"),
    "oklahoma": N_("Oklahoma"),
}
SCORING_NAMES = {"hand": N_("Single hand"), "game": N_("One game"), "hollywood": N_("Hollywood")}
TO_TARGET = N_("to %(n)s")
BOT_NAME = N_("%(name)s (bot)")


def static_stamp(directory: Path = STATIC_DIR) -> str:
    """A digest of every file under static/: it changes whenever any asset does."""
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        digest.update(path.relative_to(directory).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


# `/static/...` in a template (an attribute value or a CSS url) and an old `?v=` query.
_STATIC_REF = re.compile(r"""(["'(])/static/""")
_VERSION_QUERY = re.compile(r"\?v=\{\{ ?version ?\}\}")


class StampedLoader(FileSystemLoader):
    """Templates name assets by their plain path, `/static/js/table.js`; the pages
    get them under the content stamp, `/static/<stamp>/js/table.js`.

    A module's relative imports (`./cards.js`) then carry the stamp by themselves,
    and each asset can be cached for a year: a new release is a new stamp. Done as
    the template is loaded (once), so no author can forget it and no page pays for it.
    """

    def __init__(self, searchpath: Path, stamp: str) -> None:
        super().__init__(searchpath)
        self.prefix = f"/static/{stamp}/"

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        source = _VERSION_QUERY.sub("", source)
        source = _STATIC_REF.sub(lambda m: m.group(1) + self.prefix, source)
        return source, filename, uptodate


class CachedStaticFiles(StaticFiles):
    """StaticFiles with a Cache-Control of its own."""

    def __init__(self, *, directory: Path, cache_control: str) -> None:
        super().__init__(directory=directory)
        self.cache_control = cache_control

    def file_response(
        self,
        full_path: PathLike[str] | str,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = self.cache_control
        return response


def make_environment(catalogs: Catalogs, lang: str, stamp: str) -> Environment:
    """One Jinja2 environment per language, its gettext installed once."""
    env = Environment(
        loader=StampedLoader(TEMPLATES_DIR, stamp),
        autoescape=select_autoescape(["html"]),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(catalogs.translations(lang), newstyle=True)  # type: ignore[attr-defined]
    return env


class Site:
    """Renders pages; hangs off `app.state.site`."""

    def __init__(self, settings: Settings, version: str, commit: str | None) -> None:
        self.settings = settings
        self.version = version
        self.commit = commit
        self.catalogs = Catalogs()
        self.stamp = static_stamp()
        self.environments = {
            lang: make_environment(self.catalogs, lang, self.stamp) for lang in LANGUAGES
        }

    def base_url(self, request: Request) -> str:
        return base_url(request, self.settings)

    def request_language(self, request: Request) -> str:
        """`?lang=`, else the cookie, else `Accept-Language`, else English."""
        asked = request.query_params.get("lang")
        if asked in LANGUAGES:
            return str(asked)
        cookie = request.cookies.get(LANG_COOKIE)
        if cookie in LANGUAGES:
            return str(cookie)
        return negotiate(request.headers.get("accept-language")) or DEFAULT_LANGUAGE

    def render(
        self,
        request: Request,
        lang: str,
        template: str,
        *,
        page_path: Callable[[str], str],
        status_code: int = 200,
        **context: Any,
    ) -> HTMLResponse:
        base = self.base_url(request)
        env = self.environments[lang]
        html = env.get_template(template).render(
            lang=lang,
            languages=[(code, LANGUAGE_NAMES[code]) for code in LANGUAGES],
            page_path=page_path,
            base_url=base,
            version=self.version,
            commit=self.commit,
            build=request.app.state.build,
            **context,
        )
        response = HTMLResponse(html, status_code=status_code)
        response.headers["Content-Language"] = lang
        response.headers["Cache-Control"] = "no-store" if template == "table.html" else "no-cache"
        # Remember the language the player reads, for paths without one.
        response.set_cookie(
            LANG_COOKIE,
            lang,
            max_age=LANG_COOKIE_MAX_AGE,
            path="/",
            samesite="lax",
            secure=is_https(self.settings),
        )
        return response

    def preview(self, request: Request, lang: str, title: str, url: str) -> dict[str, Any]:
        """The link-preview tags of a page, in `lang`."""
        base = self.base_url(request)
        return {
            "title": title,
            "description": self.catalogs.gettext(lang, TAGLINE),
            "url": url,
            "image": base + PREVIEW_IMAGE,
            "image_width": PREVIEW_IMAGE_SIZE[0],
            "image_height": PREVIEW_IMAGE_SIZE[1],
            "locale": OG_LOCALES[lang],
        }

    def invitation(self, lang: str, public: dict[str, Any]) -> str | None:
        """ "Ann invites you to Gin Rummy — Standard, Hollywood to 100", in `lang`."""
        players = public.get("players") or []
        rules, scoring = public.get("rules"), public.get("scoring")
        if not players or rules not in RULE_NAMES or scoring not in SCORING_NAMES:
            return None
        gettext = self.catalogs.gettext
        scoring_words = gettext(lang, SCORING_NAMES[scoring])
        if scoring != "hand":
            target = gettext(lang, TO_TARGET) % {"n": public.get("target")}
            scoring_words = f"{scoring_words} {target}"
        name = players[0].get("name", "")
        if players[0].get("bot"):
            name = gettext(lang, BOT_NAME) % {"name": name}
        return gettext(lang, INVITATION) % {
            "name": name,
            "rules": gettext(lang, RULE_NAMES[rules]),
            "scoring": scoring_words,
        }

    def not_found(self, request: Request) -> HTMLResponse:
        first = request.url.path.strip("/").split("/")[0]
        lang = first if first in LANGUAGES else self.request_language(request)
        return self.render(
            request,
            lang,
            "404.html",
            page_path=lambda code: f"/{code}/",
            status_code=404,
        )


# A table's link does not change: its QR code (7 ms to draw, a third of the table
# page) is drawn once per link, so a client reloading the page costs less.
@functools.lru_cache(maxsize=1024)
def qr_svg(text: str, title: str) -> Markup:
    """The link as an SVG QR code, drawn here so no image comes from elsewhere."""
    svg = segno.make(text, error="m").svg_inline(
        scale=4, border=2, dark="#000", light="#fff", title=title, svgclass="qr"
    )
    return Markup(svg)


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


def site_of(request: Request) -> Site:
    site: Site = request.app.state.site
    return site


SiteDep = Annotated[Site, Depends(site_of)]

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
    )


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
    """A content page's path without a language: to the reader's language."""
    return RedirectResponse(f"/{site.request_language(request)}/{page}", status_code=302)


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
    public: dict[str, Any] = dict(table.public())
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
        client_strings=site.catalogs.client_strings(lang, skip=REPLAY_ONLY),
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
    """A finished hand, move by move, with the coach's review (PROTOCOL.md "Hand
    review"). Only once the hand is over: before, it is the 404 page."""
    table = await registry.find(table_id)
    if table is None or not number.isdigit() or len(number) > 9:
        return site.not_found(request)
    try:
        record = await registry.hand_record(table_id, int(number))
    except TableError:
        return site.not_found(request)
    lang = site.request_language(request)
    public: dict[str, Any] = dict(table.public())
    token = request.cookies.get(cookie_name(table_id))
    config = {
        "table_id": table_id,
        "hand": int(number),
        # The reader's seat (the seat cookie), drawn at the bottom first; None: a guest.
        "you": registry.seat_for_token(table_id, token) if token else None,
        "api": f"/api/tables/{table_id}",
        "table_url": f"/t/{table_id}",
        "players": public.get("players", []),
        "options": record.get("options", {}),
        "dealer": record.get("dealer"),
        "result": record.get("result"),
        "steps": hand_steps(record),
    }
    return site.render(
        request,
        lang,
        "replay.html",
        page_path=lambda code: f"/t/{table_id}/hands/{number}?lang={code}",
        page="replay",
        table_id=table_id,
        number=int(number),
        client_strings=site.catalogs.client_strings(lang),
        config=config,
    )


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


def not_found_page(request: Request) -> Response:
    """The HTML 404 page in the reader's language (`errors.install` answers with it
    every 404 outside the machine paths)."""
    return site_of(request).not_found(request)


def install(app: FastAPI, settings: Settings) -> None:
    """Mount `/static`, add the page routes (`router`)."""
    site = Site(settings, str(app.state.version), app.state.commit)
    app.state.site = site
    # Stamped URLs never change content: cached for a year. The plain paths stay (old
    # pages, bookmarks), revalidated on each use.
    app.mount(
        f"/static/{site.stamp}",
        CachedStaticFiles(directory=STATIC_DIR, cache_control=IMMUTABLE),
        name="static_stamped",
    )
    app.mount(
        "/static", CachedStaticFiles(directory=STATIC_DIR, cache_control="no-cache"), name="static"
    )
    # Pages and scripts are text: compressed they are a fraction of the bytes.
    app.add_middleware(GZipMiddleware, minimum_size=512)
    app.include_router(router)
