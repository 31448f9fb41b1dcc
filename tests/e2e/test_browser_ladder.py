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
