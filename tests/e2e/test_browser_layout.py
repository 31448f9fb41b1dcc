"""Layout a player meets first: a one-line header on every page, and the home page's
"Create a table" button in view without scrolling, on a phone and on a desktop."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from hollywood_gin.web.http.i18n import LANGUAGES
from hollywood_gin.web.http.pages import PAGES
from tests.e2e.conftest import NewContext, Server

# One line of the header: its tallest item is a 44 px touch target, plus padding.
ONE_LINE = 64


def header_lines(page: Page) -> tuple[float, list[float]]:
    """The header's height and the vertical centre of each visible item in it."""
    height: float = page.evaluate(
        "document.querySelector('.site-header').getBoundingClientRect().height"
    )
    centres: list[float] = page.evaluate(
        """[...document.querySelector('.site-header').children]
            .filter(el => el.offsetParent !== null && !el.classList.contains('skip-link'))
            .map(el => { const r = el.getBoundingClientRect(); return r.top + r.height / 2; })"""
    )
    return height, centres


@pytest.mark.parametrize("width", [360, 1280])
def test_the_header_is_one_line_on_every_page(
    server: Server, new_context: NewContext, width: int
) -> None:
    table = server.create_table(name="Ann")
    context, _watch = new_context(viewport={"width": width, "height": 740})
    page = context.new_page()
    for lang in LANGUAGES:
        paths = [f"/{lang}/{path}" for path in PAGES]
        paths += [f"/t/{table['table_id']}?lang={lang}", f"/{lang}/no-such-page"]
        for path in paths:
            page.goto(path)
            height, centres = header_lines(page)
            assert height <= ONE_LINE, (path, height)
            assert max(centres) - min(centres) < 4, (path, centres)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, path


def test_the_folded_menu_opens_and_switches_language(
    server: Server, new_context: NewContext
) -> None:
    context, _watch = new_context(viewport={"width": 360, "height": 740}, has_touch=True)
    page = context.new_page()
    page.goto("/en/rules")
    expect(page.get_by_role("link", name="Magyar")).to_be_hidden()
    page.get_by_text("Menu", exact=True).click()
    # Inside the open menu: the site's links and every language, each a touch target.
    menu = page.locator(".menu-panel")
    expect(menu.get_by_role("link", name="Hollywood scoring")).to_be_visible()
    for link in menu.get_by_role("link").all():
        box = link.bounding_box()
        assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= 360
    menu.get_by_role("link", name="Magyar").click()
    page.wait_for_url("**/hu/rules")
    expect(page.locator("summary")).to_have_text("Menü")


def test_the_folded_menu_closes_on_escape_and_on_a_click_outside(
    server: Server, new_context: NewContext
) -> None:
    context, _watch = new_context(viewport={"width": 360, "height": 740}, locale="de-DE")
    page = context.new_page()
    page.goto("/de/rules")
    summary = page.locator(".header-menu summary")
    summary.click()
    panel = page.locator(".menu-panel")
    expect(panel).to_be_visible()
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(summary).to_be_focused()  # the keyboard user is back where they were
    summary.click()
    expect(panel).to_be_visible()
    page.mouse.click(180, 700)  # on the page below the open panel
    expect(panel).to_be_hidden()


@pytest.mark.parametrize(("width", "height"), [(360, 740), (1280, 800)])
def test_create_a_table_is_above_the_fold(
    server: Server, new_context: NewContext, width: int, height: int
) -> None:
    context, _watch = new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    for lang in LANGUAGES:
        page.goto(f"/{lang}/")
        button = page.locator('#create-table button[value="friend"]')
        box = button.bounding_box()
        assert box is not None
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (lang, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (lang, box)


def test_the_turn_clock_is_behind_more_options_and_still_sent(
    server: Server, new_context: NewContext
) -> None:
    """The rarely changed options sit in a closed native disclosure that the keyboard
    opens; what is chosen there still goes with the new table."""
    context, watch = new_context(locale="hu-HU", viewport={"width": 360, "height": 740})
    page = context.new_page()
    page.goto("/hu/")
    clock = page.locator("#turn-seconds")
    expect(clock).to_be_hidden()
    summary = page.locator("#create-table details.more-options > summary").first
    expect(summary).to_contain_text("További beállítások")
    summary.focus()
    page.keyboard.press("Enter")
    expect(clock).to_be_visible()
    expect(page.locator("#no-bots")).to_be_visible()
    clock.select_option("60")
    with page.expect_request(
        lambda r: r.url.endswith("/api/tables") and r.method == "POST"
    ) as sent:
        page.locator('#create-table button[value="friend"]').click()
    assert sent.value.post_data_json["turn_seconds"] == 60
    assert "bots" not in sent.value.post_data_json  # bots welcome unless ticked
    page.wait_for_url("**/t/*")
    watch.assert_clean()
