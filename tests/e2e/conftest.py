"""Browser tests: a real `python -m hollywood_gin` on loopback, real Chromium (Playwright)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    expect,
    sync_playwright,
)

from tests.conftest import running_server

HERE = Path(__file__).resolve().parent
ARTIFACTS = HERE / "artifacts"
AXE = HERE / "vendor" / "axe.min.js"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ALL_CARDS = [r + s for s in "CDHS" for r in "A23456789TJQK"]


def deck(non_dealer: list[str], dealer: list[str], upcard: str, stock_top: list[str]) -> list[str]:
    """A deck order (docs/rules.md "The deal"): non-dealer on even positions, dealer on odd
    ones, then the upcard, then the stock from its top; the rest in a fixed order."""
    assert len(non_dealer) == len(dealer) == 10
    order: list[str] = []
    for a, b in zip(non_dealer, dealer, strict=True):
        order += [a, b]
    order += [upcard, *stock_top]
    order += [c for c in ALL_CARDS if c not in order]
    assert sorted(order) == sorted(ALL_CARDS)
    return order


# The hands the scripted tests deal. The non-dealer (seat 0, "Ann") holds three melds
# and the king of spades; the dealer (seat 1, "Bob") three melds and the five of clubs.
ANN = ["AC", "2C", "3C", "4D", "5D", "6D", "7H", "8H", "9H", "KS"]
BOB = ["KC", "KD", "KH", "QC", "QD", "QH", "JS", "TS", "9S", "5C"]


@dataclass
class Server:
    base: str

    def create_table(self, **body: Any) -> dict[str, Any]:
        answer = httpx.post(f"{self.base}/api/tables", json=body, timeout=10)
        assert answer.status_code == 201, answer.text
        result: dict[str, Any] = answer.json()
        return result

    def join(self, table_id: str, name: str) -> dict[str, Any]:
        answer = httpx.post(
            f"{self.base}/api/tables/{table_id}/seats", json={"name": name}, timeout=10
        )
        assert answer.status_code == 201, answer.text
        result: dict[str, Any] = answer.json()
        return result


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("e2e") / "tables.sqlite3"
    env = {
        "HOLLYWOOD_GIN_TEST_HOOKS": "1",
        "HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0",
        # The coach's reviews (test_browser_replay): a small budget, the same method.
        "HOLLYWOOD_GIN_REVIEW_SAMPLES": "100",
        # test_browser_lan opens the server as http://gin.test:PORT.
        "HOLLYWOOD_GIN_ALLOWED_HOSTS": "gin.test",
    }
    with running_server(data, env=env) as (base, _proc):
        yield Server(base)


# Module scope: Playwright's sync API keeps an event loop running in this thread
# while it is open, which would break `asyncio.run` in other tests of the session.
@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=os.environ.get("HOLLYWOOD_GIN_CHROMIUM", "/usr/bin/chromium"),
            args=CHROMIUM_ARGS,
        )
        yield chromium
        chromium.close()


@dataclass
class Watch:
    """What a page did that a test must not allow: console errors, foreign hosts."""

    host: str
    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def attach(self, page: Page) -> Page:
        def on_console(message: ConsoleMessage) -> None:
            if message.type == "error":
                self.errors.append(message.text)

        page.on("console", on_console)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))

        def on_request(request: Any) -> None:
            url = urlsplit(request.url)
            if url.scheme in ("http", "https", "ws", "wss") and url.netloc != self.host:
                self.foreign.append(request.url)

        page.on("request", on_request)
        return page

    def assert_clean(self) -> None:
        assert self.errors == []
        assert self.foreign == []


NewContext = Callable[..., tuple[BrowserContext, Watch]]


@pytest.fixture
def new_context(browser: Browser, server: Server) -> Iterator[NewContext]:
    made: list[BrowserContext] = []

    def make(**options: Any) -> tuple[BrowserContext, Watch]:
        options.setdefault("viewport", {"width": 1280, "height": 900})
        options.setdefault("base_url", server.base)
        context = browser.new_context(**options)
        context.set_default_timeout(10_000)
        watch = Watch(urlsplit(options["base_url"]).netloc)
        context.on("page", watch.attach)
        made.append(context)
        return context, watch

    yield make
    for context in made:
        context.close()


def context_for(browser: Browser, base: str, **options: Any) -> BrowserContext:
    """A context on a server of the test module's own (1280 x 900 unless `viewport`
    says), 10 s for each step; the test closes it."""
    options.setdefault("viewport", {"width": 1280, "height": 900})
    context = browser.new_context(base_url=base, **options)
    context.set_default_timeout(10_000)
    return context


def screenshot_context(
    browser: Browser, base: str, width: int, scheme: str, lang: str
) -> BrowserContext:
    """`context_for` as the screenshots want it: `width` x 800 in the colour `scheme`,
    the language `lang` by the browser's locale and by the site's cookie."""
    context = context_for(
        browser,
        base,
        viewport={"width": width, "height": 800},
        color_scheme=scheme,
        locale=lang,
    )
    context.add_cookies([{"name": "gin_lang", "value": lang, "url": base}])
    return context


def take_seat(page: Page, link: str) -> None:
    """Open a personal seat link and confirm on its page, as a person would: the link
    alone sets no cookie (docs/protocol-guide.md "HTTP endpoints")."""
    page.goto(link)
    page.locator("#seat-continue").click()
    page.wait_for_url(re.compile(r"/t/[^/?]+(\?.*)?$"))


def seat_page(
    new_context: NewContext, table: dict[str, Any], init_script: str = "", **options: Any
) -> Page:
    """A new page (of a context with `options`) that took the creator's seat of `table`
    and shows the ten cards dealt; `init_script` runs in it before any page's own."""
    context, _watch = new_context(**options)
    page = context.new_page()
    if init_script:
        page.add_init_script(init_script)
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#hand button.card")).to_have_count(10)
    return page


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """Serious and critical axe-core violations (the page needs `bypass_csp`)."""
    page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
            .filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => ({id: v.id, impact: v.impact, help: v.help,
                        nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 5)}))"""
    )
    return found
