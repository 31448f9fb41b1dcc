"""Hints in Chromium: at a table with the computer the Hint button (and the I key) shows
the coach's choice and the priced choices, the best card marked in the hand; at a table
of two people there is no Hint button and the key asks nothing."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import ANN, BOB, NewContext, Server, deck, take_seat

# Ann (seat 0) does not deal: the upcard (4H) is offered to her first.
HAND = deck(ANN, BOB, "4H", ["5H", "4S", "2S", "6C", "7C"])


def test_a_hint_against_the_computer(server: Server, new_context: NewContext) -> None:
    table = server.create_table(
        name="Ann", computer="rookie", test_decks=[HAND], test_first_dealer=1
    )
    context, watch = new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#hand button.card")).to_have_count(10)
    hint, box = page.locator("#hint"), page.locator("#hint-box")
    expect(hint).to_be_visible()
    expect(box).to_be_hidden()
    hint.click()
    # The first hint starts the worker process; a loaded machine may take a while.
    expect(box).to_contain_text("The coach's choice:", timeout=60_000)
    expect(box.locator("li")).to_have_count(2)  # take the upcard, pass: both priced
    expect(box).to_contain_text("points")
    page.locator("#pass").click()
    expect(box).to_be_hidden()  # a hint is for one state only
    # The computer passes too; Ann draws from the stock, then asks by key at her discard.
    expect(page.locator("#status")).to_contain_text("Your turn: draw a card", timeout=20_000)
    page.locator("#stock").click()
    expect(page.locator('#hand button.card[data-card="5H"]')).to_be_visible()
    page.locator("body").press("i")
    # The seed comes from the table's random id: on this hand knocking and discarding the
    # 5H price within a tenth of a point, so either may be chosen, and both name a card.
    choice = re.compile(r"The coach's choice: (discard the|knock, discarding the) ")
    expect(box).to_contain_text(choice, timeout=30_000)
    assert box.locator("li").count() >= 2
    expect(page.locator("#hand .hinted")).to_have_count(1)
    watch.assert_clean()


def test_no_hint_between_two_people(server: Server, new_context: NewContext) -> None:
    table = server.create_table(name="Ann", test_decks=[HAND], test_first_dealer=1)
    server.join(table["table_id"], "Bob")
    context, watch = new_context()
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#hand button.card")).to_have_count(10)
    expect(page.locator("#take")).to_be_visible()  # her move: still no Hint
    expect(page.locator("#hint")).to_be_hidden()
    page.locator("body").press("i")
    expect(page.locator("#hint-box")).to_be_hidden()
    watch.assert_clean()
