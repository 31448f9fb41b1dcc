"""Connection trouble: the server goes away and comes back; the opponent leaves."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from tests.conftest import port_of, running_server
from tests.e2e.conftest import ANN, BOB, NewContext, Server, deck, take_seat

ENV = {"HOLLYWOOD_GIN_TEST_HOOKS": "1", "HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0"}


@pytest.mark.parametrize(
    "wake",
    [
        "window.dispatchEvent(new Event('online'))",
        "document.dispatchEvent(new Event('visibilitychange'))",
    ],
)
def test_page_reconnects_after_a_restart_and_continues(
    tmp_path: Path, new_context: NewContext, wake: str
) -> None:
    data = tmp_path / "tables.sqlite3"
    with running_server(data, env=ENV) as (base, _proc):
        port = port_of(base)  # the restart's, below
        api = Server(base)
        table = api.create_table(
            name="Ann", test_decks=[deck(ANN, BOB, "4H", [])], test_first_dealer=1
        )
        api.join(table["table_id"], "Bob")
        context, _watch = new_context(base_url=base)
        page = context.new_page()
        take_seat(page, f"{base}/t/{table['table_id']}/seat/{table['token']}")
        expect(page.locator("#hand button.card")).to_have_count(10)
        page.locator("#sort-rank").click()
        expect(page.locator("#connection")).to_be_hidden()
    # The server is gone: the page says so and keeps trying.
    expect(page.locator("#connection")).to_be_visible()
    expect(page.locator("#connection")).to_have_text("Reconnecting…")
    # The board is visibly inert, nobody's presence is claimed, and a key press
    # is answered, not dropped in silence.
    expect(page.locator("#board")).to_have_attribute("inert", "")
    expect(page.locator("#offline-cover")).to_be_visible()
    expect(page.locator("#opp-dot")).to_have_class("dot unknown")
    page.keyboard.press("s")
    expect(page.locator("#live")).to_have_text("You are offline: that was not sent. Reconnecting…")
    with running_server(data, port=port, env=ENV) as (base, _proc):
        # The network is back or the phone wakes the tab: the page tries at once
        # instead of waiting out its backoff.
        page.evaluate(wake)
        expect(page.locator("#connection")).to_be_hidden()
        expect(page.locator("#hand button.card")).to_have_count(10)
        expect(page.locator("#hand button.card").first).to_have_attribute("data-card", "AC")
        assert httpx.get(f"{base}/api/tables/{table['table_id']}").status_code == 200


def test_opponent_offline_is_shown(server: Server, new_context: NewContext) -> None:
    table = server.create_table(name="Ann", test_decks=[deck(ANN, BOB, "4H", [])])
    bob_seat = server.join(table["table_id"], "Bob")
    ann_context, _ = new_context()
    ann = ann_context.new_page()
    take_seat(ann, f"/t/{table['table_id']}/seat/{table['token']}")
    bob_context, _ = new_context()
    bob = bob_context.new_page()
    take_seat(bob, f"/t/{table['table_id']}/seat/{bob_seat['token']}")
    expect(ann.locator("#opp-away")).to_be_hidden()
    expect(ann.locator("#opp-dot")).to_have_class("dot on")
    bob.close()
    # A live count, and when Ann may claim (tests/e2e/test_browser_moments.py).
    expect(ann.locator("#opp-away")).to_have_text(
        re.compile(r"^Bob left 0:\d\d ago · you can claim in \d:\d\d$")
    )
    expect(ann.locator("#opp-dot")).to_have_class("dot")
    expect(ann.locator("#live")).to_have_text("Bob is offline — the game waits")


def test_personal_seat_link_continues_on_another_device(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(
        name="Ann", test_decks=[deck(ANN, BOB, "4H", [])], test_first_dealer=1
    )
    server.join(table["table_id"], "Bob")
    phone, _ = new_context()
    first = phone.new_page()
    take_seat(first, f"/t/{table['table_id']}/seat/{table['token']}")
    link = first.locator("#seat-link").get_attribute("data-url")
    assert link is not None and link.endswith(f"/t/{table['table_id']}/seat/{table['token']}")
    laptop, _ = new_context()
    second = laptop.new_page()
    take_seat(second, link)
    assert second.url.endswith(f"/t/{table['table_id']}")
    expect(second.locator("#me-name")).to_have_text("Ann")
    expect(second.locator("#hand button.card")).to_have_count(10)
    expect(second.locator("#take")).to_be_visible()
