"""Pages: every page in every language, redirects, the 404 page, headers, escaping."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from hollywood_gin import __version__
from hollywood_gin.config import Settings
from hollywood_gin.main import create_app
from hollywood_gin.web.http.i18n import LANGUAGES, REPLAY_ONLY
from hollywood_gin.web.http.pages import PAGES
from tests.web.helpers import app_client
from tests.web.test_review import play_meld_break

PAGE_PATHS = list(PAGES)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        data_file=tmp_path / "t.sqlite3", commit="abc1234", allowed_hosts=["testserver"]
    )
    with TestClient(create_app(settings)) as c:
        yield c


class Page(HTMLParser):
    """The facts of a page the tests look at."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.html_lang: str | None = None
        self.hreflang: dict[str, str] = {}
        self.focusable: list[dict[str, str | None]] = []
        self.inline_scripts: list[str] = []
        self.style_attrs = 0
        self.style_tags = 0
        self.handler_attrs: list[str] = []
        self._script: dict[str, str | None] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "html":
            self.html_lang = a.get("lang")
        if tag == "link" and a.get("rel") == "alternate" and a.get("hreflang"):
            self.hreflang[str(a["hreflang"])] = str(a.get("href"))
        if (tag == "a" and "href" in a) or tag in ("button", "input", "select", "textarea"):
            self.focusable.append({"tag": tag, **a})
        if "style" in a:
            self.style_attrs += 1
        if tag == "style":
            self.style_tags += 1
        self.handler_attrs += [name for name in a if name.startswith("on")]
        if tag == "script":
            self._script = a

    def handle_data(self, data: str) -> None:
        if self._script is not None and data.strip():
            kind = self._script.get("type")
            if kind != "application/json":
                self.inline_scripts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script = None


def visible_text(html: str) -> str:
    """The text a reader sees: no scripts, no tags."""
    html = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_in_every_language(client: TestClient, lang: str, path: str) -> None:
    answer = client.get(f"/{lang}/{path}")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    page = Page(answer.text)
    assert page.html_lang == lang
    # hreflang: one alternate per language, each the same page in that language
    assert set(page.hreflang) == set(LANGUAGES)
    for code, href in page.hreflang.items():
        assert href.endswith(f"/{code}/{path}")
    # the skip link is the first focusable element and points at <main id="main">
    first = page.focusable[0]
    assert first["tag"] == "a" and first["href"] == "#main"
    assert 'id="main"' in answer.text
    # the switcher keeps the page
    for code in LANGUAGES:
        assert f'href="/{code}/{path}"' in answer.text
    # footer: the line, version and short commit
    assert f"v{__version__.split('+')[0]} · abc1234" in answer.text
    assert "Beta" in answer.text or "Béta" in answer.text or "Beeta" in answer.text


def test_footer_and_badge_texts_per_language(client: TestClient) -> None:
    expected = {
        "en": ("No sign-up. Share a link and start playing.", "Skip to main content"),
        "de": ("Keine Anmeldung nötig. Link teilen und losspielen.", "Zum Inhalt springen"),
        "da": (
            "Ingen tilmelding påkrævet. Del et link, og begynd at spille.",
            "Spring til indhold",
        ),
        "hu": ("Nincs regisztráció. Ossz meg egy linket, és kezdjetek játszani.", "Ugrás a"),
        "et": ("Registreerumist pole vaja. Jaga linki ja hakka mängima.", "Liigu põhisisu"),
    }
    for lang, (footer, skip) in expected.items():
        text = client.get(f"/{lang}/").text
        assert footer in text
        assert skip in text


def test_no_commit_no_dot(tmp_path: Path) -> None:
    app = create_app(Settings(data_file=tmp_path / "t.sqlite3", allowed_hosts=["testserver"]))
    with TestClient(app) as c:
        app.state.commit = None
        app.state.site.commit = None
        text = c.get("/en/").text
    assert f"v{__version__.split('+')[0]}</span>" in text
    assert f"v{__version__.split('+')[0]} ·" not in text


def test_no_inline_script_or_style(client: TestClient) -> None:
    table = client.post("/api/tables", json={"name": "Ann"}).json()
    paths = [f"/{lang}/{p}" for lang in LANGUAGES for p in PAGE_PATHS]
    paths += [f"/t/{table['table_id']}", "/en/no-such-page"]
    for path in paths:
        answer = client.get(path)
        page = Page(answer.text)
        assert page.inline_scripts == [], path
        assert page.style_attrs == 0 and page.style_tags == 0, path
        assert page.handler_attrs == [], path
        # every script is ours, from /static (under the assets' content stamp)
        for src in re.findall(r'<script[^>]+src="([^"]+)"', answer.text):
            assert re.match(r"/static/[0-9a-f]{12}/js/", src), src


def test_security_headers_on_pages(client: TestClient) -> None:
    answer = client.get("/en/rules")
    csp = answer.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert answer.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("header", "cookie", "expected"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", None, "de"),
        ("fr-FR,fr;q=0.9,hu;q=0.5,da;q=0.7", None, "da"),
        ("fr", None, "en"),
        (None, None, "en"),
        ("de", "et", "et"),  # the cookie wins over the header
        ("en;q=0, et", None, "et"),  # q=0 means "not this one"
    ],
)
def test_language_less_paths_redirect(
    client: TestClient, header: str | None, cookie: str | None, expected: str
) -> None:
    headers = {"accept-language": header} if header else {}
    client.cookies.clear()
    if cookie:
        client.cookies.set("gin_lang", cookie)
    for path, target in [
        ("/", "/"),
        ("/rules", "/rules"),
        ("/variants/oklahoma", "/variants/oklahoma"),
    ]:
        answer = client.get(path, headers=headers, follow_redirects=False)
        assert answer.status_code == 302
        assert answer.headers["location"] == f"/{expected}{target}"
        # A cache in front keys the redirect by what chose it.
        vary = {v.strip().lower() for v in answer.headers["vary"].split(",")}
        assert {"accept-language", "cookie"} <= vary


def test_language_root_without_slash_redirects(client: TestClient) -> None:
    answer = client.get("/hu", follow_redirects=False)
    assert answer.status_code == 302
    assert answer.headers["location"] == "/hu/"


def test_a_page_remembers_the_language(client: TestClient) -> None:
    client.get("/da/rules")
    answer = client.get("/", headers={"accept-language": "de"}, follow_redirects=False)
    assert answer.headers["location"] == "/da/"


def test_unknown_path_is_a_friendly_404_in_the_language(client: TestClient) -> None:
    answer = client.get("/de/gibt-es-nicht")
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("text/html")
    assert Page(answer.text).html_lang == "de"
    assert "Seite nicht gefunden" in answer.text
    assert 'href="/de/"' in answer.text
    client.cookies.clear()
    answer = client.get("/no/such/page", headers={"accept-language": "et"})
    assert answer.status_code == 404
    assert Page(answer.text).html_lang == "et"
    assert "Lehte ei leitud" in answer.text


def test_unknown_table_is_the_404_page(client: TestClient) -> None:
    client.cookies.clear()
    answer = client.get("/t/not-a-table", headers={"accept-language": "hu"})
    assert answer.status_code == 404
    assert "Az oldal nem található" in answer.text


def test_machine_paths_keep_json_errors(client: TestClient) -> None:
    answer = client.get("/api/nothing-here")
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("application/json")
    assert client.get("/static/js/nope.js").status_code == 404


def test_table_page_language_and_switcher(client: TestClient) -> None:
    table = client.post("/api/tables", json={"name": "Ann"}).json()
    tid = table["table_id"]
    answer = client.get(f"/t/{tid}?lang=da")
    assert answer.status_code == 200
    page = Page(answer.text)
    assert page.html_lang == "da"
    assert page.hreflang["de"].endswith(f"/t/{tid}?lang=de")
    assert f'href="/t/{tid}?lang=hu"' in answer.text
    # the choice sticks: the next visit without ?lang= is Danish too
    assert Page(client.get(f"/t/{tid}").text).html_lang == "da"
    # the client's strings are the page's language
    assert '"rank.7": "syv"' in answer.text
    assert '"suit.H": "hjerter"' in answer.text


def test_table_page_shows_share_link_qr_and_personal_seat_link(client: TestClient) -> None:
    table = client.post("/api/tables", json={"name": "Ann"}).json()
    tid, token = table["table_id"], table["token"]
    text = client.get(f"/t/{tid}?lang=en").text
    assert f'value="http://testserver/t/{tid}"' in text
    assert "<svg" in text and 'class="qr"' in text
    assert f"/t/{tid}/seat/{token}" in text  # from the HttpOnly cookie
    # another browser (no cookie) never sees Ann's token
    client.cookies.clear()
    text = client.get(f"/t/{tid}?lang=en").text
    assert token not in text


def test_names_are_escaped(client: TestClient) -> None:
    evil = "<img src=x onerror=a()>"  # 23 characters: within the name limit
    table = client.post("/api/tables", json={"name": evil}).json()
    text = client.get(f"/t/{table['table_id']}?lang=en").text
    assert "<img src=x" not in text
    assert "&lt;img src=x onerror=a()&gt;" in text
    assert Page(text).handler_attrs == []


def test_static_assets_are_served_compressed(client: TestClient) -> None:
    answer = client.get("/static/js/table.js", headers={"accept-encoding": "gzip"})
    assert answer.status_code == 200
    assert answer.headers.get("content-encoding") == "gzip"
    assert "javascript" in answer.headers["content-type"]


def test_visible_text_has_no_catalog_gaps(client: TestClient) -> None:
    # A page in German shows no English sentence of the home page.
    text = visible_text(client.get("/de/").text)
    assert "Create a table" not in text
    assert "Tisch anlegen" in text


def page_assets(client: TestClient, html: str) -> dict[str, bytes]:
    """Every /static file a page loads: links, scripts and the modules they import."""
    found: dict[str, bytes] = {}
    todo = [u.split("?")[0] for u in re.findall(r'(?:src|href)="(/static/[^"]+)"', html)]
    while todo:
        url = todo.pop()
        if url in found:
            continue
        found[url] = client.get(url).content
        if url.endswith(".js"):
            base = url.rsplit("/", 1)[0]
            text = found[url].decode()
            todo += [f"{base}/{m}" for m in re.findall(r'from\s*"\./([\w.]+)"', text)]
    return found


def test_page_weight(client: TestClient) -> None:
    """Gzip bytes of each page with all its assets; the table page under 60 KB."""
    table = client.post("/api/tables", json={"name": "Ann"}).json()
    weights = {}
    for path in ["/en/", "/de/rules", "/hu/variants/hollywood", f"/t/{table['table_id']}"]:
        html = client.get(path).content
        assets = page_assets(client, html.decode())
        total = len(gzip.compress(html)) + sum(len(gzip.compress(b)) for b in assets.values())
        weights[path] = (total, sorted(assets))
        print(f"page weight {path}: {total} gzip bytes, {len(assets)} assets")
    table_total, table_assets = weights[f"/t/{table['table_id']}"]
    assert {"socket.js", "render.js"} <= {a.rsplit("/", 1)[1] for a in table_assets}
    assert table_total < 60 * 1024


def test_replay_page_weight(tmp_path: Path) -> None:
    """The replay of a finished hand with all its assets, in gzip bytes: within the
    table page's budget (60 KB)."""
    with app_client(tmp_path) as client:
        table_id = play_meld_break(client)
        html = client.get(f"/t/{table_id}/hands/1").content
        assets = page_assets(client, html.decode())
    total = len(gzip.compress(html)) + sum(len(gzip.compress(b)) for b in assets.values())
    print(f"page weight replay: {total} gzip bytes, {len(assets)} assets")
    names = {a.rsplit("/", 1)[1] for a in assets}
    assert {"replay.js", "replay_view.js", "coach.js", "render.js"} <= names
    assert total < 60 * 1024


def test_table_page_strings_are_those_its_scripts_use(client: TestClient) -> None:
    """The replay's strings stay off the table page (its weight); every key the table
    page's scripts name is on it."""
    table = client.post("/api/tables", json={"name": "Ann"}).json()
    html = client.get(f"/t/{table['table_id']}").text
    found = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', html, re.S)
    assert found
    strings = json.loads(found.group(1))
    assert strings and not [k for k in strings if k.startswith(REPLAY_ONLY)]
    scripts = [b.decode() for url, b in page_assets(client, html).items() if url.endswith(".js")]
    named = {k for text in scripts for k in re.findall(r'\btn?\("([\w.]+)"', text)}
    assert named and named <= set(strings) | {k for k in named if f"{k}.other" in strings}
