"""Link previews and installing: Open Graph and Twitter tags on the home and table
pages, the table's invitation in its creator's language, the image, the manifest."""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import get_args

import pytest
from fastapi.testclient import TestClient

from hollywood_gin.config import Settings
from hollywood_gin.main import create_app
from hollywood_gin.web.http.i18n import LANGUAGES
from hollywood_gin.web.socket.messages import Language

REPO = Path(__file__).resolve().parents[2]
# Pages name assets under a content stamp (/static/<stamp>/...).
MANIFEST = re.compile(r"/static/(\w+/)?manifest\.webmanifest")


class Head(HTMLParser):
    """The `<title>`, the `<meta>` tags and the `<link>`s of a page."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.links: dict[str, str] = {}
        self.title = ""
        self.lang = ""
        self._in_title = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "html":
            self.lang = a.get("lang", "")
        if tag == "meta" and ("property" in a or "name" in a):
            self.meta[a.get("property") or a["name"]] = a.get("content", "")
        if tag == "link" and "rel" in a and a["rel"] != "alternate":
            self.links[a["rel"]] = a.get("href", "")
        # The document's title only, not an SVG's <title> further down.
        self._in_title = tag == "title" and not self.title

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    return tmp_path / "t.sqlite3"


@pytest.fixture
def client(data_file: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_file=data_file, allowed_hosts=["testserver"]))) as c:
        yield c


def create(client: TestClient, **body: object) -> str:
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == 201, answer.text
    client.cookies.clear()  # the creator's seat cookie: the tests read as a stranger
    return str(answer.json()["table_id"])


def preview_of(client: TestClient, table_id: str, **headers: str) -> Head:
    answer = client.get(f"/t/{table_id}", headers=headers)
    assert answer.status_code == 200
    return Head(answer.text)


def test_the_language_list_of_the_wire_contract_is_the_sites() -> None:
    assert set(get_args(Language)) == set(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_home_page_has_preview_tags(client: TestClient, lang: str) -> None:
    head = Head(client.get(f"/{lang}/").text)
    for tag in ("og:title", "og:description", "og:url", "og:image", "twitter:title"):
        assert head.meta.get(tag), tag
    assert head.meta["og:title"].startswith("Hollywood Gin")
    assert head.meta["og:url"] == f"http://testserver/{lang}/"
    assert head.meta["og:image"] == "http://testserver/static/img/preview.png"
    assert head.meta["twitter:card"] == "summary_large_image"
    assert head.meta["og:locale"].startswith(lang)
    assert MANIFEST.fullmatch(head.links["manifest"])


# The invitation, written out per language: who invites, to what, by which rules.
INVITATIONS = {
    "en": "Ann invites you to Gin Rummy — Standard, Hollywood to 100",
    "de": "Ann lädt Sie zu Gin-Rommé ein — Standard, Hollywood auf 100",
    "da": "Ann inviterer dig til Gin Rummy — Standard, Hollywood-point til 100",
    "hu": "Ann meghív egy gin rummy játszmára — Hagyományos, Hollywood 100 pontig",
    "et": "Ann kutsub sind mängima Gin Rummyt — Tavaline, Hollywood 100 punktini",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_table_preview_speaks_the_creators_language(client: TestClient, lang: str) -> None:
    table_id = create(client, name="Ann", scoring="hollywood", target=100, lang=lang)
    # A chat app's crawler: no cookie, English or no Accept-Language at all.
    for headers in ({}, {"accept-language": "en"}):
        head = preview_of(client, table_id, **headers)
        assert head.meta["og:title"] == INVITATIONS[lang]
        assert head.meta["twitter:title"] == INVITATIONS[lang]
        assert head.meta["og:url"] == f"http://testserver/t/{table_id}"
        assert head.meta["og:image"] == "http://testserver/static/img/preview.png"
        assert head.meta["og:locale"].startswith(lang)
        # The page itself, and its title, are in the reader's language.
        assert head.lang == "en"
        assert head.title == INVITATIONS["en"] + " · Hollywood Gin"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"rules": "straight", "scoring": "game", "target": 250}, "Straight Gin, One game to 250"),
        ({"rules": "oklahoma", "scoring": "hand"}, "Oklahoma, Single hand"),
    ],
)
def test_the_invitation_names_the_rules(
    client: TestClient, body: dict[str, object], expected: str
) -> None:
    table_id = create(client, name="Bea", lang="en", **body)
    assert preview_of(client, table_id).meta["og:title"] == (
        f"Bea invites you to Gin Rummy — {expected}"
    )


@pytest.mark.parametrize(
    ("cookies", "headers", "lang"),
    [
        ({"gin_lang": "hu"}, {"accept-language": "de"}, "hu"),  # the cookie first
        ({}, {"accept-language": "et, en;q=0.5"}, "et"),
        ({}, {"accept-language": "fr"}, "en"),
    ],
)
def test_without_a_language_in_the_body_the_creators_page_language_counts(
    client: TestClient, cookies: dict[str, str], headers: dict[str, str], lang: str
) -> None:
    client.cookies.update(cookies)
    answer = client.post(
        "/api/tables", json={"name": "Ann", "scoring": "hollywood"}, headers=headers
    )
    assert answer.status_code == 201
    client.cookies.clear()
    head = preview_of(client, answer.json()["table_id"])
    assert head.meta["og:title"] == INVITATIONS[lang]


def test_an_unknown_language_is_refused_and_creates_nothing(client: TestClient) -> None:
    answer = client.post("/api/tables", json={"name": "Ann", "lang": "fr"})
    assert answer.status_code == 422
    assert answer.json()["error"] == "bad_request"
    assert answer.json()["field"] == "lang"


def test_the_creators_language_survives_a_restart(data_file: Path) -> None:
    with TestClient(
        create_app(Settings(data_file=data_file, allowed_hosts=["testserver"]))
    ) as first:
        table_id = create(first, name="Ann", scoring="hollywood", lang="da")
    with TestClient(
        create_app(Settings(data_file=data_file, allowed_hosts=["testserver"]))
    ) as second:
        assert preview_of(second, table_id).meta["og:title"] == INVITATIONS["da"]


def test_a_seated_player_is_not_invited_to_their_own_table(client: TestClient) -> None:
    answer = client.post("/api/tables", json={"name": "Ann", "scoring": "hollywood"})
    table_id = answer.json()["table_id"]
    head = preview_of(client, table_id)  # the seat cookie is still set
    assert "invites" not in head.title
    assert head.meta["og:title"] == INVITATIONS["en"]  # the preview is the link's


def test_the_preview_image_is_shipped_and_small(client: TestClient) -> None:
    answer = client.get("/static/img/preview.png")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "image/png"
    assert png_size(answer.content) == (1200, 630)
    assert len(answer.content) < 100_000


def test_the_manifest_makes_the_site_installable(client: TestClient) -> None:
    answer = client.get("/static/manifest.webmanifest")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = json.loads(answer.content)
    assert manifest["name"] == "Hollywood Gin"
    assert manifest["start_url"] == "/"
    assert manifest["display"] in ("standalone", "fullscreen", "minimal-ui")
    sizes = set()
    for icon in manifest["icons"]:
        image = client.get(icon["src"])
        assert image.status_code == 200, icon["src"]
        if icon["type"] == "image/png":
            width, height = png_size(image.content)
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add(width)
    # Browsers ask for 192 and 512 px icons before they offer to install.
    assert {192, 512} <= sizes
    assert any(icon.get("purpose") == "maskable" for icon in manifest["icons"])
    # Every page links it, with the touch icon.
    head = Head(client.get("/en/rules").text)
    assert MANIFEST.fullmatch(head.links["manifest"])
    assert client.get(head.links["manifest"]).json() == manifest
    assert client.get(head.links["apple-touch-icon"]).status_code == 200
