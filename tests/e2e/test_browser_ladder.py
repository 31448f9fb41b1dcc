"""The computer ladder on the home page, in Chromium: a compact picker next to "Play the
computer", both ways to start above the fold on a laptop and a phone, and the rung
chosen is the opponent seated."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import NewContext


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (390, 844)])
def test_the_ladder_picker_sits_above_the_fold(
    new_context: NewContext, width: int, height: int
) -> None:
    context, watch = new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto("/en/")
    picker = page.locator("#strength")
    assert picker.locator("option").count() == 8
    for target in (
        picker,
        page.locator("button[value=computer]"),
        page.locator("button[value=friend]"),
    ):
        box = target.bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, (width, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    watch.assert_clean()


def test_the_rung_picked_is_the_opponent(new_context: NewContext) -> None:
    context, watch = new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto("/de/")
    page.select_option("#strength", "magpie")
    page.locator("button[value=computer]").click()
    page.wait_for_url("**/t/**")
    expect(page.get_by_text("Elster").first).to_be_visible()
    watch.assert_clean()


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (360, 800)])
def test_the_record_and_the_next_rung(new_context: NewContext, width: int, height: int) -> None:
    """The record kept on this device shows in the ladder; after a win the next rung is
    chosen and said; the ladder says how it is honest, with the deal's check linked."""
    context, watch = new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto("/en/")
    expect(page.locator("#ladder-next")).to_be_hidden()
    assert page.locator("#strength").input_value() == "normal"
    page.evaluate(
        """localStorage.setItem("gin.ladder", JSON.stringify({
            magpie: {won: 3, played: 4}, rookie: {won: 0, played: 1},
            last: {id: "magpie", won: true}, seen: []}))"""
    )
    page.reload()
    levels = page.locator("#strength-levels li")
    magpie = page.locator('#strength-levels li[data-id="magpie"]')
    after = levels.nth(int(magpie.get_attribute("value") or 0))  # the next level's item
    assert page.locator("#strength").input_value() == after.get_attribute("data-id")
    note = page.locator("#ladder-next")
    expect(note).to_be_visible()
    expect(note).to_contain_text("You beat Magpie. Next up: level")
    box = note.bounding_box()
    assert box is not None and box["x"] + box["width"] <= width
    page.locator(".strength-help summary").click()
    expect(magpie).to_contain_text("Magpie · won 3 of 4")
    expect(page.locator('#strength-levels li[data-id="rookie"]')).to_contain_text("won 0 of 1")
    expect(page.locator('#strength-levels li[data-id="hard"]')).not_to_contain_text("won")
    link = page.locator(".strength-help .honest a")
    expect(link).to_have_attribute("href", "/en/rules#fair-deals")
    link.click()
    page.wait_for_url("**/en/rules#fair-deals")
    expect(page.locator("#fair-deals")).to_be_visible()
    watch.assert_clean()
