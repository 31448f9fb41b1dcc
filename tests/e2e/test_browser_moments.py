"""Moments a pair of players must not lose, in Chromium: both pressing "Next hand" in
the same frame, a press refused as stale sent again, the ended-match screen shown
once, a live away count with the claim opening at zero, a reload that keeps the status
line and the drawn card's mark, review links to finished hands only, and a replay
that calls only the viewer's own seat "You" (docs/protocol-guide.md "Actions",
"The state", "Around the match")."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, WebSocketRoute, expect
from websockets.sync.client import ClientConnection, connect

from tests.conftest import running_server
from tests.e2e.conftest import ANN, BOB, NewContext, Server, deck, take_seat

# (viewport width, page language): a phone in German, a desktop in English.
LOOKS = [(360, "de"), (1366, "en")]
WORDS = {
    "en": {
        "summary": "Game summary",
        "you_drew": "You drew from the stock",
        "wants": "Ann wants a rematch",
    },
    "de": {
        "summary": "Zusammenfassung des Spiels",
        "you_drew": "Sie haben vom Talon gezogen",
        "wants": "Ann möchte eine Revanche",
    },
}


class Socket:
    """One more connection of a seat (a second tab), to move without the page."""

    def __init__(self, base: str, table_id: str, token: str) -> None:
        url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
        headers = {"Cookie": f"gin_seat_{table_id}={token}"}
        self.ws: ClientConnection = connect(  # closed by the test
            url, additional_headers=headers, proxy=None
        ).__enter__()
        self.state = self.until(0)

    def until(self, version: int) -> dict[str, Any]:
        while True:
            msg = json.loads(self.ws.recv(timeout=20))
            if msg["type"] == "state" and msg["version"] >= version:
                self.state = msg
                return msg
            assert msg["type"] != "error", msg

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        v = self.state["version"]
        self.ws.send(json.dumps({"type": "action", "version": v, "action": action}))
        return self.until(v + 1)


def table_with_pages(
    server: Server,
    new_context: NewContext,
    width: int = 1280,
    lang: str = "en",
    hands: int = 3,
    **body: Any,
) -> tuple[str, list[str], list[Page]]:
    """Ann (seat 0) deals the first hand; the non-dealer holds three melds and the
    five of clubs, so taking the 4H upcard and discarding the 5C knocks at once."""
    table = server.create_table(
        name="Ann", test_decks=[deck(BOB, ANN, "4H", [])] * hands, test_first_dealer=0, **body
    )
    table_id = table["table_id"]
    tokens = [table["token"], server.join(table_id, "Bob")["token"]]
    pages = []
    for token in tokens:
        context, _ = new_context(
            viewport={"width": width, "height": 800}, extra_http_headers={"Accept-Language": lang}
        )
        page = context.new_page()
        take_seat(page, f"/t/{table_id}/seat/{token}")
        expect(page.locator("#hand button.card")).to_have_count(10)
        pages.append(page)
    return table_id, tokens, pages


def knock_at_once(mover: Socket) -> None:
    """The seat to move takes the upcard and knocks with the 5C (see table_with_pages)."""
    state = mover.state
    assert {"kind": "take_upcard"} in state["legal"], state["legal"]
    mover.act({"kind": "take_upcard"})
    mover.act({"kind": "knock", "discard": "5C"})


def stale_frames(page: Page) -> list[str]:
    """Every `stale_version` error the page's sockets receive, from now on."""
    seen: list[str] = []

    def on_socket(ws: Any) -> None:
        def on_frame(payload: str | bytes) -> None:
            text = payload if isinstance(payload, str) else payload.decode()
            if '"stale_version"' in text:
                seen.append(text)

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    return seen


@pytest.mark.parametrize(
    ("button", "scoring"),
    [("next-hand", "hollywood"), ("moment-rematch", "hand")],  # "Next hand", "Rematch"
)
def test_both_press_in_the_same_frame_and_the_next_hand_deals(
    server: Server, new_context: NewContext, button: str, scoring: str
) -> None:
    hands = 12
    table = server.create_table(
        name="Ann",
        scoring=scoring,
        target=250,
        test_decks=[deck(BOB, ANN, "4H", [])] * hands,
        test_first_dealer=0,
    )
    table_id = table["table_id"]
    tokens = [table["token"], server.join(table_id, "Bob")["token"]]
    pages = []
    for token in tokens:
        context, _ = new_context()
        page = context.new_page()
        seen = stale_frames(page)  # before the page opens: every frame of it is seen
        pages.append((page, seen))
        take_seat(page, f"/t/{table_id}/seat/{token}")
        expect(page.locator("#hand button.card")).to_have_count(10)
    bob = Socket(server.base, table_id, tokens[1])
    try:
        for n in range(1, 11):
            knock_at_once(bob)  # Ann undercuts and deals the next hand: Bob moves first
            for page, _ in pages:
                expect(page.locator(f"#{button}")).to_be_visible()
            # Both press in the same frame: each page clicks at the same instant of the
            # machine's clock, before either can hear of the other's press.
            at = time.time() * 1000 + 300
            for page, _ in pages:
                page.evaluate(
                    "([id, at]) => setTimeout(() => document.getElementById(id).click(),"
                    " at - Date.now())",
                    [button, at],
                )
            for page, _ in pages:
                expect(page.locator("#log li").first).to_contain_text(f"Hand {n + 1} ")
                expect(page.locator("#hand button.card")).to_have_count(10)
                if button == "moment-rematch":  # the match screen never covers the deal
                    expect(page.locator("#moment")).to_be_hidden()
            bob.until(bob.state["version"] + 2)
        for _page, seen in pages:
            assert seen == []  # the second press was never refused
    finally:
        bob.ws.close()


def test_an_action_refused_as_stale_is_sent_again_while_it_is_legal(
    server: Server, new_context: NewContext
) -> None:
    _, _, (ann, bob) = table_with_pages(server, new_context)
    stale = stale_frames(bob)
    sockets: list[WebSocketRoute] = []

    def route(ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()

        def outgoing(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "action" and not sockets:
                sockets.append(ws)
                msg["version"] -= 1  # chosen on a state the table has moved past
            upstream.send(json.dumps(msg))

        ws.on_message(outgoing)

    bob.route_web_socket(re.compile(r"/ws$"), route)
    bob.reload()
    expect(bob.locator("#pass")).to_be_visible()
    bob.locator("#pass").click()
    # Refused as stale, sent again on the state that follows: Bob passed.
    expect(ann.locator("#take")).to_be_visible()
    expect(bob.locator("#pass")).to_be_hidden()
    assert len(stale) == 1 and sockets


@pytest.mark.parametrize(("width", "lang"), LOOKS)
def test_the_ended_match_screen_shows_once_and_the_summary_stays_in_reach(
    server: Server, new_context: NewContext, width: int, lang: str
) -> None:
    _, tokens, (ann, bob) = table_with_pages(
        server, new_context, width=width, lang=lang, scoring="game"
    )
    ann.locator("#resign").click()
    ann.locator("#end-confirm-yes").click()
    for page in (ann, bob):
        expect(page.locator("#moment")).to_be_visible()
        page.locator("#moment-close").click()
        expect(page.locator("#moment")).to_be_hidden()
    # Whatever changes now, the screen stays closed: a reaction, Ann's page back
    # again, Ann's rematch (a new version).
    table_id = ann.url.rsplit("/", 1)[1]
    tab = Socket(server.base, table_id, tokens[0])  # a second tab of Ann's
    tab.ws.send('{"type": "react", "reaction": "gg"}')
    expect(bob.locator("#opp-bubble")).to_be_visible()
    tab.ws.close()
    ann.reload()
    expect(ann.locator("#rematch")).to_be_visible()
    ann.locator("#rematch").click()
    # The result panel is a slim bar: who won, who waits, Rematch and the summary.
    expect(bob.locator("#ready-status")).to_have_text(WORDS[lang]["wants"])
    expect(bob.locator("#result-fold")).to_be_hidden()
    expect(bob.locator("#result-body")).to_be_hidden()
    bob.wait_for_timeout(300)  # a (wrongly) reopened screen has had its time
    expect(bob.locator("#moment")).to_be_hidden()
    expect(ann.locator("#moment")).to_be_hidden()
    # The summary one click away, in the page's language; the screen comes back.
    summary = bob.locator("#summary-open")
    expect(summary).to_have_text(WORDS[lang]["summary"])
    summary.click()
    expect(bob.locator("#moment")).to_be_visible()
    bob.locator("#moment-close").click()
    # Ann looks at the summary again while Bob's rematch deals: her screen closes, and
    # the next match's first deal is not covered.
    ann.locator("#summary-open").click()
    expect(ann.locator("#moment")).to_be_visible()
    bob.locator("#rematch").click()
    for page in (ann, bob):
        expect(page.locator("#result")).to_be_hidden()
        expect(page.locator("#moment")).to_be_hidden()
        expect(page.locator("#summary-open")).to_be_hidden()
    expect(bob.locator("#take")).to_be_visible()


def test_review_links_lead_only_to_finished_hands(server: Server, new_context: NewContext) -> None:
    table_id, tokens, (ann, bob) = table_with_pages(server, new_context, scoring="hollywood")
    sockets = [Socket(server.base, table_id, token) for token in tokens]
    try:
        knock_at_once(sockets[1])  # hand 1 is played out
        sockets[0].until(sockets[1].state["version"])
        for s in sockets:
            s.act({"kind": "next_hand"})
    finally:
        for s in sockets:
            s.ws.close()
    expect(ann.locator("#log li").first).to_contain_text("Hand 2 ")
    ann.locator("#resign").click()  # in the middle of hand 2, which never finishes
    ann.locator("#end-confirm-yes").click()
    expect(bob.locator("#moment")).to_be_visible()
    bob.locator("#moment-close").click()
    links = bob.locator("#sheet-reviews a")
    expect(links).to_have_count(1)
    expect(links).to_have_text("Review hand 1")
    for href in links.evaluate_all("links => links.map((a) => a.href)"):
        assert httpx.get(href, timeout=10).status_code == 200, href


@pytest.mark.parametrize(("width", "lang"), LOOKS)
def test_a_reload_keeps_the_status_line_and_the_drawn_card(
    server: Server, new_context: NewContext, width: int, lang: str
) -> None:
    _, _, (ann, bob) = table_with_pages(server, new_context, width=width, lang=lang)
    bob.locator("#pass").click()
    ann.locator("#pass").click()
    bob.locator("#stock").click()  # Bob, the non-dealer, draws first after two passes
    drawn = bob.locator("#hand button.card.drawn")
    expect(drawn).to_have_count(1)
    card = drawn.get_attribute("data-card")
    expect(bob.locator("#status")).to_contain_text(WORDS[lang]["you_drew"])
    line = bob.locator("#status").inner_text()
    for _ in range(2):  # a reload, then the same again
        bob.reload()
        expect(bob.locator("#hand button.card")).to_have_count(11)
        expect(bob.locator("#status")).to_have_text(line)
        expect(drawn).to_have_count(1)
        assert drawn.get_attribute("data-card") == card
    # The other seat's page names no card of Bob's draw, and marks none.
    expect(ann.locator("#hand button.card.drawn")).to_have_count(0)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_guest_replay_names_both_players_and_you_is_only_your_own_seat(
    server: Server, new_context: NewContext, lang: str
) -> None:
    table_id, tokens, (ann, _bob) = table_with_pages(server, new_context, lang=lang)
    bob = Socket(server.base, table_id, tokens[1])
    try:
        knock_at_once(bob)
    finally:
        bob.ws.close()
    you = {"en": re.compile(r"\bYou\b"), "de": re.compile(r"\bSie\b")}[lang]
    context, _ = new_context(extra_http_headers={"Accept-Language": lang})
    guest = context.new_page()
    guest.goto(f"/t/{table_id}/hands/1")
    timeline = guest.locator("#timeline")
    expect(timeline).to_contain_text("Bob")
    guest.locator("#step-next").click()
    expect(guest.locator("#step-caption")).to_contain_text("Bob")
    for text in [timeline.inner_text(), guest.locator("#step-caption").inner_text()]:
        assert not you.search(text), text
    guest.locator("#view-both").check()
    assert not you.search(timeline.inner_text())
    # Ann, viewing Bob's seat, reads Bob's moves as his and her deal as hers.
    ann.goto(f"/t/{table_id}/hands/1?seat=1")
    lines = ann.locator("#timeline li")
    expect(lines.nth(1)).to_contain_text("Bob")
    assert not you.search(lines.nth(1).inner_text())
    assert you.search(lines.nth(0).inner_text())  # "Hand 1 is dealt. You deal."


# ---------- the away count, on a server whose claim opens after a few seconds ----------


@pytest.fixture(scope="module")
def quick_claims(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = {"HOLLYWOOD_GIN_TEST_HOOKS": "1", "HOLLYWOOD_GIN_CLAIM_AFTER_SECONDS": "4"}
    data = tmp_path_factory.mktemp("claims") / "t.sqlite3"
    with running_server(data, env=env) as (base, _proc):
        yield Server(base)


@pytest.fixture
def quick_context(browser: Any, quick_claims: Server) -> Iterator[NewContext]:
    made: list[Any] = []

    def make(**options: Any) -> tuple[Any, None]:
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(base_url=quick_claims.base, **options)
        context.set_default_timeout(10_000)
        made.append(context)
        return context, None

    yield make
    for context in made:
        context.close()


AWAY = {
    "en": (r"Bob left 0:0\d ago · you can claim in 0:0\d", "You claimed the match"),
    "de": (r"Bob ist seit 0:0\d weg · Sie können die Partie in 0:0\d beanspruchen", "beansprucht"),
}


@pytest.mark.parametrize(("width", "lang"), LOOKS)
def test_the_away_time_counts_on_and_the_claim_opens_at_zero_without_a_message(
    quick_claims: Server, quick_context: NewContext, width: int, lang: str
) -> None:
    _, _, (ann, bob) = table_with_pages(
        quick_claims, quick_context, width=width, lang=lang, scoring="game"
    )
    held: list[str | bytes] = []
    hold = [False]

    def route(ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()
        ws.on_message(upstream.send)

        def incoming(message: str | bytes) -> None:
            if hold[0]:
                held.append(message)
            else:
                ws.send(message)

        upstream.on_message(incoming)

    ann.route_web_socket(re.compile(r"/ws$"), route)
    ann.reload()
    expect(ann.locator("#hand button.card")).to_have_count(10)
    bob.context.close()  # Bob leaves
    line, claimed = AWAY[lang]
    away = ann.locator("#opp-away")
    expect(away).to_have_text(re.compile(line))
    hold[0] = True  # from now on Ann's page hears nothing from the server
    first = away.inner_text()
    expect(away).not_to_have_text(first)  # it counts on by itself
    expect(ann.locator("#claim")).to_be_visible(timeout=15_000)
    expect(ann.locator("#stand-in")).to_be_visible()
    expect(ann.locator("#endings")).to_be_visible()
    hold[0] = False
    ann.locator("#claim").click()
    ann.locator("#end-confirm-yes").click()
    expect(ann.locator("#ended-note")).to_contain_text(claimed)


def test_the_clock_times_the_seat_waited_for_between_hands(
    server: Server, new_context: NewContext
) -> None:
    """On a clocked table, once Ann has pressed "Next hand", Bob's press is timed like a
    move (docs/protocol-guide.md "Around the match"): both pages show his clock
    running, none before anyone waits."""
    table_id, tokens, (ann, bob_page) = table_with_pages(
        server, new_context, scoring="hollywood", turn_seconds=30
    )
    bob = Socket(server.base, table_id, tokens[1])
    try:
        knock_at_once(bob)
        for page in (ann, bob_page):
            expect(page.locator("#next-hand")).to_be_visible()
            # Nobody waits yet: no clock on either side.
            expect(page.locator("#me-clock")).to_be_hidden()
            expect(page.locator("#opp-clock")).to_be_hidden()
        ann.locator("#next-hand").click()
        expect(ann.locator("#opp-clock")).to_be_visible()
        expect(ann.locator("#opp-clock")).to_have_text(re.compile(r"^0:[0-3]\d$"))
        expect(ann.locator("#me-clock")).to_be_hidden()
        expect(bob_page.locator("#me-clock")).to_be_visible()
        expect(bob_page.locator("#opp-clock")).to_be_hidden()
        bob_page.locator("#next-hand").click()
        # The next hand deals: the clock is the mover's again.
        for page in (ann, bob_page):
            expect(page.locator("#log li").first).to_contain_text("Hand 2 ")
    finally:
        bob.ws.close()
