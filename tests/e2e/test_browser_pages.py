"""Every page in every language in a real browser: status, language, no English left
over, no console error, nothing fetched from another host; axe-core; screenshots."""

from __future__ import annotations

import re
from typing import Any

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import Page, expect

from hollywood_gin.web.http.i18n import LANGUAGES, LOCALES_DIR
from hollywood_gin.web.http.pages import PAGES
from tests.e2e.conftest import (
    ANN,
    ARTIFACTS,
    BOB,
    NewContext,
    Server,
    axe_violations,
    deck,
    take_seat,
)

PLACEHOLDER = re.compile(r"\{\w+\}|%\(\w+\)s")


def english_leftovers(lang: str) -> list[str]:
    """English msgids that must not appear on a page in `lang`: those translated to
    something else, that are whole words, and that no translation itself contains
    (e.g. "Gin" inside "Straight Gin")."""
    with (LOCALES_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    strings = [m.string for m in catalog if m.id]
    found = []
    for m in catalog:
        if not m.id or m.string == m.id or PLACEHOLDER.search(m.id) or len(m.id) < 4:
            continue
        if any(m.id in s for s in strings) or m.id in "Hollywood Gin":
            continue
        found.append(m.id)
    return found


def assert_no_english(page: Page, lang: str, leftovers: list[str]) -> None:
    text = page.locator("body").inner_text()
    shown = [s for s in leftovers if re.search(rf"(?<!\w){re.escape(s)}(?!\w)", text)]
    assert shown == [], (lang, page.url, shown)


def test_every_page_in_every_language(server: Server, new_context: NewContext) -> None:
    table = server.create_table(name="Ann")
    # A phone-sized window: no page may scroll sideways in any language.
    context, watch = new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    for lang in LANGUAGES:
        leftovers = english_leftovers(lang) if lang != "en" else []
        for path in PAGES:
            answer = page.goto(f"/{lang}/{path}")
            assert answer is not None and answer.status == 200, (lang, path)
            assert page.locator("html").get_attribute("lang") == lang
            assert_no_english(page, lang, leftovers)
            assert page.evaluate("document.documentElement.scrollWidth") <= 360, page.url
        # The table page, with its script running (a spectator may join).
        answer = page.goto(f"/t/{table['table_id']}?lang={lang}")
        assert answer is not None and answer.status == 200
        expect(page.locator("#join")).to_be_visible()
        assert page.locator("html").get_attribute("lang") == lang
        assert_no_english(page, lang, leftovers)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, page.url
        answer = page.goto(f"/{lang}/no-such-page")
        assert answer is not None and answer.status == 404
        assert page.locator("html").get_attribute("lang") == lang
        assert_no_english(page, lang, leftovers)
    # The 404 page's own request is the only failed one, and it is expected.
    watch.errors = [e for e in watch.errors if "404" not in e]
    watch.assert_clean()


def test_language_switcher_keeps_the_page(server: Server, new_context: NewContext) -> None:
    context, _watch = new_context()
    page = context.new_page()
    page.goto("/en/variants/oklahoma")
    page.locator(".lang-switch").get_by_role("link", name="Magyar").click()
    page.wait_for_url("**/hu/variants/oklahoma")
    assert page.locator("html").get_attribute("lang") == "hu"
    # The table page switches in place.
    table = server.create_table(name="Ann")
    page.goto(f"/t/{table['table_id']}")
    page.locator(".lang-switch").get_by_role("link", name="Eesti").click()
    page.wait_for_url(f"**/t/{table['table_id']}?lang=et")
    expect(page.locator("#join-title")).to_have_text(
        "Ann kutsub sind mängima Gin Rummyt — Tavaline, Üks voor"
    )


def mid_hand(server: Server, new_context: NewContext, **options: Any) -> Page:
    """Ann's table page in the middle of hand 1 (she has drawn and must discard)."""
    table = server.create_table(
        name="Ann",
        scoring="hollywood",
        test_decks=[deck(ANN, BOB, "4H", ["5H"])],
        test_first_dealer=1,
    )
    server.join(table["table_id"], "Bob")
    context, _watch = new_context(**options)
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    page.locator("#take").click()
    expect(page.locator("#hand button.card")).to_have_count(11)
    return page


@pytest.mark.parametrize("lang", ["en", "hu"])
def test_axe_content_pages(server: Server, new_context: NewContext, lang: str) -> None:
    context, _watch = new_context(bypass_csp=True)
    page = context.new_page()
    for path in PAGES:
        page.goto(f"/{lang}/{path}")
        assert axe_violations(page) == [], path


def test_axe_table_page(server: Server, new_context: NewContext) -> None:
    # Waiting for the friend (share box, QR code).
    context, _watch = new_context(bypass_csp=True)
    page = context.new_page()
    table = server.create_table(name="Ann")
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#invite")).to_be_visible()
    assert axe_violations(page) == []
    # Mid-hand, then the knock confirmation, then the hand's end.
    page = mid_hand(server, new_context, bypass_csp=True)
    assert axe_violations(page) == []
    page.locator("#knock").click()
    expect(page.locator("#confirm")).to_be_visible()
    assert axe_violations(page) == []
    page.locator("#confirm-yes").click()
    expect(page.locator("#result")).to_be_visible()
    assert axe_violations(page) == []


SIZES = [(360, 740), (1280, 900)]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_table_page_layout_and_screenshots(
    server: Server, new_context: NewContext, width: int, height: int, scheme: str
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page = mid_hand(
        server,
        new_context,
        viewport={"width": width, "height": height},
        color_scheme=scheme,
        has_touch=width < 500,
    )
    page.screenshot(path=str(ARTIFACTS / f"table-{width}-{scheme}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # Touch targets: every visible control is at least 44 px both ways.
    small = page.evaluate(
        """() => [...document.querySelectorAll(
                "button, .button, input[type=text], select, .lang-switch a, .pile")]
            .filter(el => el.offsetParent !== null)
            .map(el => [el.id || el.className || el.tagName, el.getBoundingClientRect()])
            .filter(([, r]) => r.width < 44 || r.height < 44)
            .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""
    )
    assert small == []
    page.locator("#knock").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#result")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / f"result-{width}-{scheme}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_settings_large_cards_and_four_colours(server: Server, new_context: NewContext) -> None:
    page = mid_hand(server, new_context)
    width = "document.querySelector('#hand button.card').getBoundingClientRect().width"
    before = page.evaluate(width)
    page.locator("#large-cards").check()
    page.locator("#four-colour").check()
    # The hand may be drawn again meanwhile (the drawn card's sort): wait for the width.
    page.wait_for_function(f"{width} > {before} * 1.2")
    clubs = page.locator('#hand button.card[data-card="AC"]')
    hearts = page.locator('#hand button.card[data-card="7H"]')
    colour = "el => getComputedStyle(el).color"
    assert clubs.evaluate(colour) != hearts.evaluate(colour)
    assert clubs.evaluate(colour) != page.locator('#hand button.card[data-card="KS"]').evaluate(
        colour
    )
    # Kept across a reload.
    page.reload()
    expect(page.locator("#large-cards")).to_be_checked()
