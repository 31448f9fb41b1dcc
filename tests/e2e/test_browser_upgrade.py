"""A tab open across an upgrade, and a socket that silently died
(docs/protocol-guide.md "Staying connected").

The server's build (version and commit) is on every page (`<html data-build>`) and in
every `pong`. A tab opened before the server was restarted with another build offers a
reload; a restart of the same build does not. The page pings every 25 s and gives a
socket up when no `pong` comes within 10 s (a half-open socket: a sleeping laptop, a
NAT that forgot it), then reconnects.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.conftest import port_of, running_server
from tests.e2e.conftest import ANN, BOB, NewContext, Server, deck, take_seat

ENV = {"HOLLYWOOD_GIN_TEST_HOOKS": "1", "HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0"}
WAKE = "window.dispatchEvent(new Event('online'))"
# Counts the pongs the page's socket handlers have run for (`window.__pongs`), so a
# test waits for the page to have read a pong, not for a guessed time.
COUNT_PONGS = """
window.__pongs = 0;
const add = EventTarget.prototype.addEventListener;
EventTarget.prototype.addEventListener = function (type, listener, options) {
  if (type !== "message" || !(this instanceof WebSocket) || typeof listener !== "function") {
    return add.call(this, type, listener, options);
  }
  const counted = function (event) {
    try {
      return listener.call(this, event);
    } finally {
      if (typeof event.data === "string" && event.data.includes('"pong"')) window.__pongs++;
    }
  };
  return add.call(this, type, counted, options);
};
"""


def seated_page(base: str, new_context: NewContext, lang: str = "en") -> tuple[Page, Any]:
    api = Server(base)
    table = api.create_table(name="Ann", test_decks=[deck(ANN, BOB, "4H", [])])
    api.join(table["table_id"], "Bob")
    context, watch = new_context(base_url=base)
    page = context.new_page()
    take_seat(page, f"{base}/t/{table['table_id']}/seat/{table['token']}?lang={lang}")
    expect(page.locator("#hand button.card")).to_have_count(10)
    return page, watch


def test_a_tab_opened_before_an_upgrade_offers_a_reload_after_it(
    tmp_path: Path, new_context: NewContext
) -> None:
    data = tmp_path / "tables.sqlite3"
    old = {**ENV, "HOLLYWOOD_GIN_COMMIT": "0ld0ld0"}
    new = {**ENV, "HOLLYWOOD_GIN_COMMIT": "9e99e99"}
    with running_server(data, env=old) as (base, _proc):
        port = port_of(base)  # the restarts', below
        page, watch = seated_page(base, new_context, lang="de")
        assert "0ld0ld0" in (page.locator("html").get_attribute("data-build") or "")
    expect(page.locator("#connection")).to_be_visible()
    # The same build again: a reconnect, and nothing to reload.
    with running_server(data, port=port, env=old):
        page.evaluate(WAKE)
        expect(page.locator("#connection")).to_be_hidden()
        page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")  # a ping now
        page.wait_for_timeout(500)  # its pong is back long before (a negative check)
        expect(page.locator("#reload-offer")).to_have_count(0)
    expect(page.locator("#connection")).to_be_visible()
    # Another build: the open tab says so, in its language, and reloads on request.
    with running_server(data, port=port, env=new):
        page.evaluate(WAKE)
        offer = page.locator("#reload-offer")
        expect(offer).to_be_visible()
        expect(offer).to_have_attribute("role", "status")
        expect(offer).to_contain_text("Eine neue Version von Hollywood Gin ist da.")
        expect(page.locator("#hand button.card")).to_have_count(10)  # the game goes on
        offer.get_by_role("button", name="Neu laden").click()
        expect(page.locator("html")).to_have_attribute("data-build", re.compile("9e99e99"))
        expect(page.locator("#hand button.card")).to_have_count(10)
        expect(page.locator("#reload-offer")).to_have_count(0)
    # Nothing went wrong but the sockets refused while the server was down.
    assert [e for e in watch.errors if "ERR_CONNECTION_REFUSED" not in e] == []
    assert watch.foreign == []


@pytest.mark.parametrize("answer", [True, False], ids=["pongs", "silent"])
def test_the_heartbeat_gives_up_a_silent_socket_and_reconnects(
    server: Server, new_context: NewContext, answer: bool
) -> None:
    """The page's clock is Playwright's: 25 s of pinging and 10 s of waiting pass at
    once. Every socket goes through a relay that passes everything on, except that in
    the silent case the first socket's pongs are dropped (a half-open socket)."""
    table = server.create_table(name="Ann", test_decks=[deck(ANN, BOB, "4H", [])])
    server.join(table["table_id"], "Bob")
    context, _ = new_context()
    page = context.new_page()
    page.add_init_script(COUNT_PONGS)
    sockets: list[WebSocketRoute] = []
    pings: list[int] = []
    pongs: list[int] = []
    silent: set[int] = set()

    def relay(ws: WebSocketRoute) -> None:
        number = len(sockets)
        sockets.append(ws)
        upstream = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            if '"ping"' in str(message):
                pings.append(number)
            upstream.send(message)

        def to_page(message: str | bytes) -> None:
            if '"pong"' in str(message):
                if number in silent:
                    return  # lost on the way: the socket looks open and says nothing
                pongs.append(number)
            ws.send(message)

        ws.on_message(to_server)
        upstream.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws(/|$)"), relay)
    page.clock.install()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#hand button.card")).to_have_count(10)
    live = len(sockets) - 1  # the page's socket now (taking the seat may restart it)
    until(page, lambda: live in pings)  # pinged at once: its pong names the build
    # Its first pong through before the silence starts: dropped, it would make the page
    # give the socket up at 10 s, before the 25 s ping this test waits for.
    until(page, lambda: live in pongs)
    if not answer:
        silent.add(live)
    # 25 s on: the next ping. Fake time jumps from timer to timer without waiting
    # for the network, so the clock is moved on only once the ping is through.
    page.clock.run_for(25_000 + 100)
    until(page, lambda: pings.count(live) >= 2)
    if answer:
        until(page, lambda: pongs.count(live) >= 2)
        # Read by the page before its 10 s run out (every pong relayed so far).
        until(page, lambda: page.evaluate("window.__pongs") >= len(pongs))
        page.clock.run_for(10_000 + 5_000)
        page.wait_for_timeout(300)  # time for a new socket, were one opened
        assert len(sockets) == live + 1
        expect(page.locator("#connection")).to_be_hidden()
    else:
        # No pong within 10 s: given up and, after the first backoff (under 1 s), a
        # new socket, through which the game goes on.
        page.clock.run_for(10_000 + 2_000)
        until(page, lambda: len(sockets) == live + 2)
        expect(page.locator("#connection")).to_be_hidden()
        expect(page.locator("#hand button.card")).to_have_count(10)
        assert len(sockets) == live + 2


def until(page: Page, condition: Any) -> None:
    """Let the relay's messages arrive (they are handled while Playwright waits)."""
    for _ in range(100):
        if condition():
            return
        page.wait_for_timeout(100)
    raise AssertionError("not reached")
