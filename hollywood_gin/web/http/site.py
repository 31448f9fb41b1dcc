"""How a page is made: one Jinja2 environment per language, assets under a content
stamp, link previews and invitations, the 404 page. `Site` hangs off
`app.state.site`; the routes (`hollywood_gin.web.http.pages`) get it as `SiteDep`.
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

import rcssmin
import rjsmin
import segno
from fastapi import Depends, Request, Response
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.datastructures import Headers
from starlette.types import Scope

from hollywood_gin.config import Settings, resource_dir
from hollywood_gin.web.guard.security import is_https
from hollywood_gin.web.http.api import LANG_COOKIE, base_url
from hollywood_gin.web.http.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGE_NAMES,
    LANGUAGES,
    N_,
    Catalogs,
    negotiate,
)

TEMPLATES_DIR = resource_dir("templates")
STATIC_DIR = resource_dir("static")
IMMUTABLE = "public, max-age=31536000, immutable"
LANG_COOKIE_MAX_AGE = 365 * 86400
# Link previews (Open Graph, Twitter cards): the image shipped in static/img
# (scripts/make_images.py draws it), and the words of a table's invitation.
PREVIEW_IMAGE = "/static/img/preview.png"
PREVIEW_IMAGE_SIZE = (1200, 630)
OG_LOCALES = {"en": "en_US", "de": "de_DE", "da": "da_DK", "hu": "hu_HU", "et": "et_EE"}
TAGLINE = N_("Two-player Gin Rummy in the browser. No sign-up. Share a link and start playing.")
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


# Scripts and stylesheets go out without their comments and spaces: the sources are
# written to be read (and stay so in the repository and for the JS tests), and a
# player's first visit should not pay for that (docs/performance.md "Page weight").
_MINIFIERS: dict[str, tuple[str, Callable[[str], str]]] = {
    ".js": ("text/javascript; charset=utf-8", rjsmin.jsmin),
    ".css": ("text/css; charset=utf-8", rcssmin.cssmin),
}


@functools.lru_cache(maxsize=256)
def minified(path: str, mtime_ns: int, size: int) -> tuple[bytes, str]:
    """A script's or stylesheet's minified bytes and their ETag, made once per file
    version (the key carries its mtime and size, so an edited file is made anew)."""
    suffix = Path(path).suffix
    body = _MINIFIERS[suffix][1](Path(path).read_text(encoding="utf-8")).encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


class CachedStaticFiles(StaticFiles):
    """StaticFiles with a Cache-Control of its own; `minify`: scripts and stylesheets
    minified (rjsmin, rcssmin)."""

    def __init__(self, *, directory: Path, cache_control: str, minify: bool = True) -> None:
        super().__init__(directory=directory)
        self.cache_control = cache_control
        self.minify = minify

    def file_response(
        self,
        full_path: PathLike[str] | str,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        suffix = Path(full_path).suffix
        if self.minify and suffix in _MINIFIERS and status_code == 200:
            body, etag = minified(str(full_path), stat_result.st_mtime_ns, stat_result.st_size)
            headers = {"Cache-Control": self.cache_control, "ETag": etag}
            if etag in Headers(scope=scope).get("if-none-match", ""):
                return Response(status_code=304, headers=headers)
            return Response(body, media_type=_MINIFIERS[suffix][0], headers=headers)
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
        return self.respond(request, lang, template, html, status_code=status_code)

    def respond(
        self,
        request: Request,
        lang: str,
        template: str,
        body: str | bytes,
        *,
        status_code: int = 200,
        gzipped: bool = False,
    ) -> HTMLResponse:
        """A page's response, `body` rendered already (by `render`, or bytes kept from an
        earlier render; `gzipped`: compressed already, as the client accepts)."""
        response = HTMLResponse(body, status_code=status_code)
        if gzipped:  # the compression middleware leaves an encoded body as it is
            response.headers["Content-Encoding"] = "gzip"
            response.headers["Vary"] = "Accept-Encoding"
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


def site_of(request: Request) -> Site:
    site: Site = request.app.state.site
    return site


# `async def`, though it never waits: FastAPI runs a plain `def` dependency in its
# thread pool, a hand-off to another thread per request.
async def _site_dependency(request: Request) -> Site:
    return site_of(request)


SiteDep = Annotated[Site, Depends(_site_dependency)]
