"""An arrange never crosses a move: the page holds an order arranged while
its own action is on its way, and an arrange that a move of the same seat elsewhere
overtook is refused quietly (told by the error's version, not by a time window)."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.conftest import NewContext, Server, deck, take_seat

# No meld in Ann's hand, so it opens sorted by rank; by suit is another order.
ANN = ["KS", "AC", "AH", "2D", "5C", "7H", "9S", "JD", "QC", "4H"]
BOB = ["KC", "KD", "KH", "QD", "QH", "JS", "TS", "8S", "6C", "5D"]
# Bob deals: Ann has the offer of the three of spades.
DEAL = deck(ANN, BOB, "3S", [])
BY_SUIT = ["AC", "5C", "QC", "2D", "JD", "AH", "4H", "7H", "3S", "9S", "KS"]


class Wire:
    """The page's socket through Playwright: every frame both ways, and a valve for each."""

    def __init__(self, page: Page) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.hold_in = False  # server -> page
        self.hold_out = False  # page -> server
        self.held_in: list[str] = []
        self.held_out: list[str] = []
        self.route: WebSocketRoute | None = None
        self.server: WebSocketRoute | None = None
        page.route_web_socket(re.compile(r"/t/[^/]+/ws$"), self.connect)

    def connect(self, route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        self.route, self.server = route, server
        route.on_message(self.out)
        server.on_message(self.into)

    def out(self, message: str | bytes) -> None:
        self.sent.append(json.loads(message))
        if self.hold_out:
            self.held_out.append(str(message))
        else:
            assert self.server is not None
            self.server.send(message)

    def into(self, message: str | bytes) -> None:
        if self.hold_in:
            self.held_in.append(str(message))
            return
        self.received.append(json.loads(message))
        assert self.route is not None
        self.route.send(message)

    def release(self) -> None:
        assert self.route is not None and self.server is not None
        self.hold_in = self.hold_out = False
        for message in self.held_out:
            self.server.send(message)
        for message in self.held_in:
            self.received.append(json.loads(message))
            self.route.send(message)
        self.held_in, self.held_out = [], []

    def arranges(self) -> list[list[str]]:
        return [m["cards"] for m in self.sent if m.get("type") == "arrange"]

    def errors(self) -> list[str]:
        return [m["code"] for m in self.received if m.get("type") == "error"]


def until(page: Page, done: Any) -> None:
    """Let the page and the wire run until `done()` (the wire's callbacks run meanwhile)."""
    for _ in range(200):
        if done():
            return
        page.wait_for_timeout(25)
    raise AssertionError("never happened")


def order(page: Page) -> list[str]:
    cards = page.locator("#hand button.card")
    return [str(cards.nth(i).get_attribute("data-card")) for i in range(cards.count())]


def test_a_sort_while_a_move_is_on_its_way_waits_for_the_move(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(name="Ann", test_decks=[DEAL], test_first_dealer=1)
    server.join(table["table_id"], "Bob")
    context, watch = new_context(bypass_csp=True)
    page = context.new_page()
    wire = Wire(page)
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#take")).to_be_visible()
    before = len(wire.arranges())

    # Ann takes the upcard; its state is kept back while she sorts by suit.
    wire.hold_in = True
    page.locator("#take").click()
    until(page, lambda: any(m.get("type") == "action" for m in wire.sent))
    page.keyboard.press("u")
    # Sorted on the page at once, but not sent: those ten cards are not hers any more.
    expect(page.locator("#sort-suit")).to_have_attribute("aria-pressed", "true")
    assert len(wire.arranges()) == before
    wire.release()

    # The move's state came: the eleven cards sorted by suit, and that order sent and kept.
    expect(page.locator("#hand button.card")).to_have_count(11)
    until(page, lambda: wire.arranges()[before:] == [BY_SUIT])
    assert order(page) == BY_SUIT
    page.reload()
    expect(page.locator("#hand button.card")).to_have_count(11)
    assert order(page) == BY_SUIT
    assert "bad_message" not in wire.errors()
    watch.assert_clean()


def test_an_arrange_overtaken_by_another_tab_is_refused_quietly(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(name="Ann", test_decks=[DEAL], test_first_dealer=1)
    server.join(table["table_id"], "Bob")
    context, watch = new_context(bypass_csp=True)
    first = context.new_page()
    wire = Wire(first)
    take_seat(first, f"/t/{table['table_id']}/seat/{table['token']}")
    second = context.new_page()
    second.goto(f"/t/{table['table_id']}")
    expect(first.locator("#take")).to_be_visible()
    expect(second.locator("#take")).to_be_visible()

    # The first tab sorts by suit; on its way, the second tab takes the upcard.
    wire.hold_out = True
    first.keyboard.press("u")
    expect(first.locator("#sort-suit")).to_have_attribute("aria-pressed", "true")
    second.locator("#take").click()
    expect(second.locator("#hand button.card")).to_have_count(11)
    wire.release()

    # The server refuses the ten-card order (at a version later than it was made on);
    # the first tab says nothing of it and shows the eleven cards sorted by suit.
    until(first, lambda: "bad_message" in wire.errors())
    expect(first.locator("#hand button.card")).to_have_count(11)
    assert order(first) == BY_SUIT
    until(first, lambda: wire.arranges()[-1] == BY_SUIT)
    expect(first.locator("#live")).not_to_contain_text("did not understand")
    watch.assert_clean()
