"""The feel of a card table (docs/architecture.md "The client"): a hand that sorts itself, the
opponent's moves in view, motion, sound settings, results and their arithmetic."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from tests.e2e.conftest import ANN, BOB, NewContext, Server, axe_violations, deck, take_seat

# Ann (seat 0) holds three melds and KS: AC-2C-3C, 4D-5D-6D, 7H-8H-9H.
ANN_MELDS = [{"AC", "2C", "3C"}, {"4D", "5D", "6D"}, {"7H", "8H", "9H"}]
# Dealt in a scrambled order, so a hand shown in deal order would not be grouped.
ANN_SCRAMBLED = ["KS", "9H", "AC", "5D", "7H", "3C", "6D", "2C", "8H", "4D"]
RECORD_ANIMATIONS = """
window.__animations = 0;
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  window.__animations += 1;
  return animate.apply(this, args);
};
"""


def open_seat(
    server: Server, new_context: NewContext, table: dict[str, Any], token: str, **options: Any
) -> Page:
    context, _watch = new_context(**options)
    page = context.new_page()
    page.add_init_script(RECORD_ANIMATIONS)
    take_seat(page, f"/t/{table['table_id']}/seat/{token}")
    return page


def hand_order(page: Page) -> list[str]:
    return page.eval_on_selector_all("#hand button.card", "els => els.map(e => e.dataset.card)")


def groups(page: Page) -> list[tuple[str, list[str]]]:
    return page.eval_on_selector_all(
        "#hand > .group",
        "els => els.map(g => [g.classList.contains('meld') ? 'meld' : 'loose',"
        " [...g.querySelectorAll('.card')].map(c => c.dataset.card)])",
    )


def test_a_dealt_hand_is_shown_melds_first_in_the_servers_order(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(
        name="Ann", test_decks=[deck(ANN_SCRAMBLED, BOB, "4H", [])], test_first_dealer=1
    )
    server.join(table["table_id"], "Bob")
    context, watch = new_context()
    page = context.new_page()
    states: list[dict[str, Any]] = []

    def on_socket(ws: Any) -> None:
        def on_frame(payload: Any) -> None:
            message = json.loads(payload)
            if message.get("type") == "state" and message.get("you") == 0:
                states.append(message)

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#hand button.card")).to_have_count(10)
    expect(page.locator("#hand > .group.meld")).to_have_count(3)
    shown = groups(page)
    # Three meld groups, each one of Ann's melds, then the deadwood (KS) on its own.
    assert [kind for kind, _ in shown] == ["meld", "meld", "meld", "loose"]
    assert [set(cards) for _, cards in shown[:3]] == [
        set(m) for m in states[-1]["hand"]["my_melds"]
    ]
    assert sorted(map(frozenset, (set(c) for _, c in shown[:3])), key=sorted) == sorted(
        map(frozenset, ANN_MELDS), key=sorted
    )
    assert shown[3][1] == ["KS"]
    # The server keeps the order the page chose (a reload shows the same).
    page.reload()
    expect(page.locator("#hand button.card")).to_have_count(10)
    assert [c for _, cards in groups(page) for c in cards] == [c for _, cs in shown for c in cs]
    expect(page.locator("#sort-melds")).to_have_attribute("aria-pressed", "true")
    watch.assert_clean()


def test_the_sort_choice_survives_a_reload_and_a_new_hand(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(
        name="Ann",
        scoring="game",
        test_decks=[deck(ANN, BOB, "TH", []), deck(BOB, ANN_SCRAMBLED, "4H", [])],
        test_first_dealer=1,
    )
    bob_seat = server.join(table["table_id"], "Bob")
    ann = open_seat(server, new_context, table, table["token"])
    expect(ann.locator("#hand button.card")).to_have_count(10)
    ann.keyboard.press("r")  # sort by rank, by its shortcut
    by_rank = ["AC", "2C", "3C", "4D", "5D", "6D", "7H", "8H", "9H", "KS"]
    expect(ann.locator("#sort-rank")).to_have_attribute("aria-pressed", "true")
    assert hand_order(ann) == by_rank
    ann.reload()
    expect(ann.locator("#hand button.card")).to_have_count(10)
    expect(ann.locator("#sort-rank")).to_have_attribute("aria-pressed", "true")
    assert hand_order(ann) == by_rank
    # Ann goes gin (TH onto the hearts), both press Next hand: hand 2 arrives by rank.
    ann.locator("#take").click()
    expect(ann.locator("#hand button.card")).to_have_count(11)
    ann.locator("#gin").click()
    ann.locator("#confirm-yes").click()
    expect(ann.locator("#result-math")).to_have_text("Gin: 5 + 25 = 30")
    ann.locator("#next-hand").click()
    with connect(ws_url(ann, table["table_id"]), origin=origin(ann)) as bob:
        hello(bob, bob_seat["token"])
        state = next_state(bob, lambda s: "next_hand" in kinds(s))
        act(bob, state, {"kind": "next_hand"})
        next_state(bob, lambda s: s["hand"]["number"] == 2)
    expect(ann.locator("#status")).to_contain_text("Hand 2 is dealt. You deal.")
    expect(ann.locator("#hand button.card")).to_have_count(10)
    rank = "A23456789TJQK"
    order = hand_order(ann)
    assert order == sorted(order, key=lambda c: (rank.index(c[0]), "CDHS".index(c[1])))
    expect(ann.locator("#me-note")).to_have_text("(you deal)")


def origin(page: Page) -> str:
    return page.evaluate("location.origin")


def ws_url(page: Page, table_id: str) -> str:
    return origin(page).replace("http://", "ws://") + f"/ws/tables/{table_id}"


def hello(ws: Any, token: str) -> None:
    ws.send(json.dumps({"type": "hello", "token": token}))


def kinds(state: dict[str, Any]) -> set[str]:
    return {a["kind"] for a in state.get("legal", [])}


def next_state(ws: Any, wanted: Any, timeout: float = 10) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        message = json.loads(ws.recv(timeout=max(0.1, end - time.monotonic())))
        if message.get("type") == "state" and message.get("you") is not None and wanted(message):
            return message


def act(ws: Any, state: dict[str, Any], action: dict[str, Any]) -> None:
    ws.send(json.dumps({"type": "action", "version": state["version"], "action": action}))


def test_the_opponents_pile_card_stays_in_view_and_in_the_move_log(
    server: Server, new_context: NewContext
) -> None:
    # Upcard 4H: Ann passes, Bob takes it. Ann sees it in Bob's row until Bob throws it.
    table = server.create_table(
        name="Ann", test_decks=[deck(ANN, BOB, "4H", ["5H"])], test_first_dealer=1
    )
    bob_seat = server.join(table["table_id"], "Bob")
    ann = open_seat(server, new_context, table, table["token"])
    expect(ann.locator("#opponent")).not_to_have_class("seat-area opponent turn")
    expect(ann.locator("#me")).to_have_class("seat-area me turn")  # the turn marker
    ann.keyboard.press("p")  # pass, by its shortcut
    title = ann.title()
    # Ann looks away: when her turn comes, the tab's title and icon say so.
    ann.evaluate("document.hasFocus = () => false")
    with connect(ws_url(ann, table["table_id"]), origin=origin(ann)) as bob:
        hello(bob, bob_seat["token"])
        state = next_state(bob, lambda s: "take_upcard" in kinds(s))
        act(bob, state, {"kind": "take_upcard"})
        known = ann.locator('#opp-cards .card.known[data-card="4H"]')
        expect(known).to_be_visible()
        expect(ann.locator("#opp-count")).to_contain_text("Bob holds the four of hearts")
        expect(ann.locator("#opponent")).to_have_class("seat-area opponent turn")
        log = ann.locator("#log li")
        expect(log.nth(0)).to_have_text("Hand 1 is dealt. Bob deals.")
        expect(log.nth(1)).to_have_text("You passed")
        expect(log.nth(2)).to_have_text("Bob took the upcard, the 4♥")
        # Bob throws the card he took from the pile's owner... no: a card he held.
        state = next_state(bob, lambda s: "discard" in kinds(s))
        act(bob, state, {"kind": "discard", "card": "5C"})
        expect(ann.locator("#pile-note")).to_have_text("Bob's discard")
        expect(ann.locator("#discard")).to_have_class("pile discard-pile can fresh")
        expect(log.nth(3)).to_have_text("Bob discarded the 5♣")
        expect(ann).to_have_title(f"● Your turn · {title}")
        icon = ann.locator('link[rel="icon"]').first
        assert "favicon-turn" in (icon.get_attribute("href") or "")
        ann.evaluate("window.dispatchEvent(new Event('focus'))")  # she is back
        expect(ann).to_have_title(title)
        assert "favicon-turn" not in (icon.get_attribute("href") or "")
        expect(known).to_be_visible()  # still held
        # Ann draws and throws; then Bob throws the 4H: it leaves his row.
        ann.keyboard.press("s")
        expect(ann.locator('#hand button.card[data-card="5H"]')).to_be_focused()
        ann.keyboard.press("Enter")  # the card in focus: the one just drawn
        state = next_state(bob, lambda s: "draw_stock" in kinds(s))
        act(bob, state, {"kind": "draw_stock"})
        state = next_state(bob, lambda s: "discard" in kinds(s))
        act(bob, state, {"kind": "discard", "card": "4H"})
        expect(ann.locator("#discard .card")).to_have_attribute("data-card", "4H")
        expect(known).to_have_count(0)
        expect(ann.locator("#opp-cards .card.known")).to_have_count(0)
        expect(ann.locator("#stock")).to_be_focused()  # focus waits on the stock


def test_with_reduced_motion_nothing_animates_without_it_a_discard_does(
    server: Server, new_context: NewContext
) -> None:
    for reduced in (True, False):
        table = server.create_table(
            name="Ann", test_decks=[deck(ANN, BOB, "4H", ["5H"])], test_first_dealer=1
        )
        server.join(table["table_id"], "Bob")
        page = open_seat(
            server,
            new_context,
            table,
            table["token"],
            reduced_motion="reduce" if reduced else "no-preference",
        )
        expect(page.locator("#hand button.card")).to_have_count(10)
        page.locator("#take").click()
        expect(page.locator("#hand button.card")).to_have_count(11)
        page.wait_for_function("document.getAnimations().length === 0")
        before = page.evaluate("window.__animations")
        page.locator('#hand button.card[data-card="KS"]').click()
        expect(page.locator("#discard .card")).to_have_attribute("data-card", "KS")
        if reduced:
            assert page.evaluate("window.__animations") == 0
            assert page.evaluate("document.getAnimations().length") == 0
        else:
            # The thrown card flew to the pile (and the hand closed up behind it).
            assert page.evaluate("window.__animations") > before


def test_mute_and_the_sort_are_remembered_across_a_reload(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(name="Ann", test_decks=[deck(ANN, BOB, "4H", [])])
    server.join(table["table_id"], "Bob")
    page = open_seat(server, new_context, table, table["token"])
    mute = page.locator("#mute")
    expect(mute).to_have_attribute("aria-pressed", "false")
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    page.locator("#sort-suit").click()
    page.reload()
    expect(page.locator("#mute")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#sort-suit")).to_have_attribute("aria-pressed", "true")


def test_a_drawn_hand_says_so_and_keyboard_help_and_axe(
    server: Server, new_context: NewContext
) -> None:
    # `game` scoring: when a discard leaves two stock cards the hand is a draw.
    table = server.create_table(
        name="Ann", scoring="game", test_decks=[deck(ANN, BOB, "4H", [])], test_first_dealer=1
    )
    bob_seat = server.join(table["table_id"], "Bob")
    context, watch = new_context(bypass_csp=True)
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#hand button.card")).to_have_count(10)
    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_visible()
    assert axe_violations(page) == []
    page.keyboard.press("Escape")
    expect(page.locator("#help")).to_be_hidden()
    with (
        connect(ws_url(page, table["table_id"]), origin=origin(page)) as ann,
        connect(ws_url(page, table["table_id"]), origin=origin(page)) as bob,
    ):
        hello(ann, table["token"])
        hello(bob, bob_seat["token"])
        sockets = {0: ann, 1: bob}
        # Both pass, then each draws from the stock and throws the card drawn.
        state = next_state(ann, lambda s: "pass" in kinds(s))
        act(ann, state, {"kind": "pass"})
        state = next_state(bob, lambda s: "pass" in kinds(s))
        act(bob, state, {"kind": "pass"})
        seat = 0
        while True:
            ws = sockets[seat]
            state = next_state(
                ws, lambda s: "draw_stock" in kinds(s) or s["hand"]["phase"] == "over"
            )
            if state["hand"]["phase"] == "over":
                break
            act(ws, state, {"kind": "draw_stock"})
            state = next_state(ws, lambda s: "discard" in kinds(s))
            act(ws, state, {"kind": "discard", "card": state["hand"]["my_cards"][-1]})
            time.sleep(0.12)  # within the socket's message rate
            seat = 1 - seat
    expect(page.locator("#result-math")).to_have_text("Draw: no points, same dealer")
    expect(page.locator("#result-points")).to_have_text("")
    expect(page.locator("#stock-count")).to_have_text("2")
    assert axe_violations(page) == []
    watch.assert_clean()


def test_two_devices_with_different_sort_choices_do_not_undo_each_other(
    server: Server, new_context: NewContext
) -> None:
    # Ann holds three kings, three queens, J-10-9 of spades and 5C: by suit and
    # melds first are different orders.
    table = server.create_table(
        name="Ann", test_decks=[deck(BOB, ANN, "4H", [])], test_first_dealer=1
    )
    server.join(table["table_id"], "Bob")
    phone = open_seat(server, new_context, table, table["token"])
    phone.locator("#sort-suit").click()
    frames: list[int] = []
    laptop_context, _watch = new_context()
    laptop = laptop_context.new_page()

    def count(payload: str | bytes) -> None:
        # Every frame but a pong (the heartbeat's, every 25 s, may fall in the windows).
        if '"pong"' not in str(payload):
            frames.append(1)

    phone.on("websocket", lambda ws: ws.on("framereceived", count))
    phone.reload()
    expect(phone.locator("#hand button.card")).to_have_count(10)
    take_seat(laptop, f"/t/{table['table_id']}/seat/{table['token']}")  # sorts by melds
    expect(laptop.locator("#hand > .group.meld")).to_have_count(3)
    # The laptop's order reaches the phone in its own time (a loaded machine): waited
    # for, so that the quiet windows below start after it.
    for _ in range(100):
        if hand_order(phone) == hand_order(laptop):
            break
        phone.wait_for_timeout(100)
    phone.wait_for_timeout(1500)
    settled = len(frames)
    phone.wait_for_timeout(1500)
    # The laptop's order reached the phone and stays: no tab answers with its own.
    assert len(frames) == settled
    assert hand_order(phone) == hand_order(laptop)
    assert hand_order(phone)[-1] == "5C"  # the laptop's melds-first order, kept


def test_the_match_end_screen_and_the_knock_dialog_pass_axe(
    server: Server, new_context: NewContext
) -> None:
    # `hand` scoring: Ann's gin (5 + 25 = 30) ends the match; its screen opens.
    table = server.create_table(
        name="Ann", scoring="hand", test_decks=[deck(ANN, BOB, "TH", [])], test_first_dealer=1
    )
    server.join(table["table_id"], "Bob")
    context, watch = new_context(bypass_csp=True, viewport={"width": 360, "height": 740})
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    page.locator("#take").click()
    page.locator("#gin").click()
    expect(page.locator("#confirm")).to_be_visible()
    assert axe_violations(page) == []
    page.locator("#confirm-yes").click()
    # A single hand: "You win the hand", no "Games: 1 – 0" and no match wording.
    expect(page.locator("#moment-title")).to_have_text("You win the hand")
    expect(page.locator("#moment-score")).to_be_hidden()
    expect(page.locator("#moment")).not_to_contain_text(re.compile(r"\bmatch\b"))
    expect(page.locator("#moment")).not_to_contain_text("Games")
    expect(page.locator("#moment-totals")).to_have_text("Total: Ann 30 · Bob 0")
    assert axe_violations(page) == []
    page.locator("#moment-rematch").click()
    expect(page.locator("#moment")).to_be_hidden()
    expect(page.locator("#ready-status")).to_contain_text("Waiting for Bob to accept the rematch")
    watch.assert_clean()
