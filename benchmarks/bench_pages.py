"""Page weight: the bytes every page costs a first visit, with all its assets.

Run: `pip install -e '.[bench]' && python -m benchmarks.bench_pages`

Starts the real server (`python -m hollywood_gin`), creates one table, and fetches every
content page in every language, the table page in every language and the 404
page, as a browser with an empty cache would (`Accept-Encoding: gzip`). Assets
are found the way the browser finds them: `<link href>` (stylesheets and
icons, not links to other pages), `<script src>`, `<img src>`, module imports
in JavaScript and `url()` in CSS, followed recursively. For each page it
prints the body bytes as they came over the wire (headers not counted) (compressed when the server
compressed them) and uncompressed, whether each response had
`Content-Encoding: gzip`, and the gzip -9 size for comparison. Goal: the table
page at most 60 KB compressed. (Sizes are the same every run: no repetitions.)
"""

from __future__ import annotations

import argparse
import gzip
import re
from collections.abc import Iterable
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import httpx

from benchmarks.serve import app_server

TABLE_PAGE_GOAL = 60 * 1024

JS_IMPORT = re.compile(
    r"""(?:\bimport|\bexport)\s*(?:[\w*{}\s,$]*?\bfrom\s*)?["']([^"']+)["']"""
    r"""|\bimport\s*\(\s*["']([^"']+)["']\s*\)""",
    re.DOTALL,
)
CSS_URL = re.compile(r"""url\(\s*["']?([^"')]+)["']?\s*\)|@import\s+["']([^"']+)["']""")
ASSET_RELS = {"stylesheet", "icon", "modulepreload", "preload", "manifest", "apple-touch-icon"}


class AssetParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "link" and set(a.get("rel", "").split()) & ASSET_RELS and a.get("href"):
            self.urls.append(a["href"])
        elif tag in ("script", "img", "source") and a.get("src"):
            self.urls.append(a["src"])


def assets_in(url: str, content_type: str, text: str) -> list[str]:
    if "html" in content_type:
        parser = AssetParser()
        parser.feed(text)
        found: Iterable[str] = parser.urls
    elif "javascript" in content_type:
        found = [a or b for a, b in JS_IMPORT.findall(text)]
    elif "css" in content_type:
        found = [a or b for a, b in CSS_URL.findall(text)]
    else:
        found = []
    return [urljoin(url, f) for f in found if not f.startswith(("data:", "#"))]


def lazy_in(url: str, content_type: str, text: str) -> set[str]:
    """The modules a script imports only when it runs that code (`import("./x.js")`):
    counted in the page's weight, and apart as not part of its first load."""
    if "javascript" not in content_type:
        return set()
    return {urljoin(url, b) for a, b in JS_IMPORT.findall(text) if b}


@dataclass
class Fetched:
    url: str
    wire: int  # bytes as sent (compressed when Content-Encoding says so)
    raw: int  # bytes uncompressed
    best: int  # gzip -9 of the uncompressed bytes
    gzip: bool
    links: list[str]
    lazy: set[str]


def fetch(client: httpx.Client, url: str) -> Fetched:
    with client.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as response:
        if response.status_code != 404:  # the 404 page is one of the pages weighed
            response.raise_for_status()
        wire = b"".join(response.iter_raw())
        encoding = response.headers.get("content-encoding", "")
        body = gzip.decompress(wire) if encoding == "gzip" else wire
        content_type = response.headers.get("content-type", "")
    text = (
        body.decode("utf-8", "replace")
        if "text" in content_type or "script" in content_type
        else ""
    )
    return Fetched(
        url,
        len(wire),
        len(body),
        len(gzip.compress(body, 9)),
        encoding == "gzip",
        assets_in(url, content_type, text),
        lazy_in(url, content_type, text),
    )


def weigh(client: httpx.Client, page: str, cache: dict[str, Fetched]) -> list[Fetched]:
    """The page and every asset it pulls in, each once."""
    seen: list[Fetched] = []
    todo = [page]
    origin = urlsplit(page).netloc
    while todo:
        url = todo.pop(0).split("#")[0]
        if url in (f.url for f in seen) or urlsplit(url).netloc != origin:
            continue
        if url not in cache:
            cache[url] = fetch(client, url)
        seen.append(cache[url])
        todo.extend(cache[url].links)
    return seen


def first_load(page: str, parts: list[Fetched]) -> list[Fetched]:
    """Of a page's parts, those its first load fetches: not reached only through a
    lazy `import()` (a hand's end, a match's end, a browser without crypto.subtle)."""
    by_url = {p.url: p for p in parts}
    seen: list[Fetched] = []
    todo = [parts[0].url]
    while todo:
        url = todo.pop(0)
        if url not in by_url or by_url[url] in seen:
            continue
        seen.append(by_url[url])
        todo.extend(u for u in by_url[url].links if u not in by_url[url].lazy)
    return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--languages", help="comma-separated (default: all)")
    args = parser.parse_args()
    from hollywood_gin.web.http.i18n import LANGUAGES
    from hollywood_gin.web.http.pages import PAGES

    languages = args.languages.split(",") if args.languages else list(LANGUAGES)
    rows = []
    table_page_worst = 0
    with app_server() as (base, _proc), httpx.Client(base_url=base, timeout=30) as client:
        table_id = client.post("/api/tables", json={"name": "Ann"}).json()["table_id"]
        client.cookies.clear()
        pages = [(f"/{lang}/{path}", f"{lang} /{path}") for lang in languages for path in PAGES]
        pages += [(f"/t/{table_id}?lang={lang}", f"{lang} table") for lang in languages]
        pages.append(("/en/no-such-page", "en 404"))
        cache: dict[str, Fetched] = {}
        for path, label in pages:
            parts = weigh(client, base + path, cache)
            wire = sum(p.wire for p in parts)
            raw = sum(p.raw for p in parts)
            best = sum(p.best for p in parts)
            plain = [urlsplit(p.url).path for p in parts if not p.gzip and p.raw >= 512]
            if label.endswith("table"):
                table_page_worst = max(table_page_worst, wire)
            first = first_load(path, parts)
            rows.append((label, len(parts) - 1, parts[0].wire, wire, raw, best, plain, first))
    print("\nPage weight, first visit (empty cache), bytes\n")
    print(
        "| page | assets | HTML sent | total sent | uncompressed | gzip -9 |"
        " first load: assets, sent | sent uncompressed |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for label, n, html, wire, raw, best, plain, first in rows:
        print(
            f"| {label} | {n} | {html} | {wire} | {raw} | {best} | "
            f"{len(first) - 1}, {sum(p.wire for p in first)} | "
            f"{', '.join(plain) or 'nothing over 512 B'} |"
        )
    print(
        f"\nTable page: at most {table_page_worst} B ({table_page_worst / 1024:.1f} KB) sent "
        f"over the languages; goal at most {TABLE_PAGE_GOAL // 1024} KB: "
        f"{'met' if table_page_worst <= TABLE_PAGE_GOAL else 'NOT met'}."
    )
    print("\nAssets (each fetched once):\n")
    print("| asset | sent | uncompressed | gzip |")
    print("|---|---:|---:|---|")
    for url, f in sorted(cache.items()):
        if "/static/" in url:
            print(f"| {urlsplit(url).path} | {f.wire} | {f.raw} | {'yes' if f.gzip else 'no'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
