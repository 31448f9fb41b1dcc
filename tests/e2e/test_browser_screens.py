"""Every screen and every player (docs/architecture.md "The client"): the phone, the
invitation, the spectator, the keyboard, a click out of turn."""

from __future__ import annotations

from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from tests.e2e.conftest import ANN, BOB, NewContext, Server, deck, seat_page
from tests.e2e.test_browser_feel import act, hello, kinds, next_state, origin, ws_url

PHONE = {"width": 360, "height": 740}


def in_view(page: Page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    viewport = page.viewport_size
    assert box is not None and viewport is not None
    return box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"]


def test_on_a_phone_the_piles_come_back_into_view_after_next_hand(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(
        name="Ann",
        scoring="game",
        test_decks=[deck(ANN, BOB, "TH", []), deck(BOB, ANN, "4H", [])],
        test_first_dealer=1,
    )
    bob_seat = server.join(table["table_id"], "Bob")
    ann = seat_page(new_context, table, viewport=PHONE)
    ann.locator("#take").click()
    ann.locator("#gin").click()
    ann.locator("#confirm-yes").click()
    ann.locator("#next-hand").click()
    expect(ann.locator("#next-hand")).to_be_hidden()  # the server took it: no re-render left
    ann.evaluate("scrollTo(0, document.body.scrollHeight)")  # down at the result
    assert not in_view(ann, ".middle")
    with connect(ws_url(ann, table["table_id"]), origin=origin(ann)) as bob:
        hello(bob, bob_seat["token"])
        state = next_state(bob, lambda s: "next_hand" in kinds(s))
        act(bob, state, {"kind": "next_hand"})
        state = next_state(bob, lambda s: "pass" in kinds(s))
        act(bob, state, {"kind": "pass"})  # hand 2: Bob passes, Ann's turn
        expect(ann.locator("#status")).to_contain_text("Your turn")
    # The scroll is smooth: wait until it has brought the opponent's name and the
    # piles in, then check again.
    ann.wait_for_function(
        "() => ['#opp-name', '.middle', '#stock', '#discard'].every(s => {"
        " const r = document.querySelector(s).getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight; })"
    )
    assert in_view(ann, "#stock") and in_view(ann, "#discard") and in_view(ann, "#opp-name")


def test_a_landscape_phone_shows_the_piles_and_the_hand_together(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(name="Ann", test_decks=[deck(ANN, BOB, "4H", [])])
    server.join(table["table_id"], "Bob")
    page = seat_page(new_context, table, viewport={"width": 740, "height": 360})
    page.locator(".middle").scroll_into_view_if_needed()
    stock = page.locator("#stock").bounding_box()
    cards = page.locator("#hand button.card")
    first, last = cards.first.bounding_box(), cards.last.bounding_box()
    assert stock and first and last
    top = min(stock["y"], first["y"])
    bottom = max(stock["y"] + stock["height"], last["y"] + last["height"])
    assert bottom - top <= 360, (top, bottom)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 740


def test_the_invitation_names_who_invites_to_what_and_watching_is_a_button(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(name="Ann", scoring="hollywood", target=250)
    context, watch = new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"/t/{table['table_id']}")
    expect(page.locator("#join-title")).to_have_text(
        "Ann invites you to Gin Rummy — Standard, Hollywood to 250"
    )
    page.get_by_role("button", name="Watch").click()
    expect(page.locator("#join")).to_be_hidden()
    expect(page.locator("#watching")).to_have_text("You are watching")
    # Changing one's mind: the seat is still free.
    page.locator("#join-instead").click()
    expect(page.locator("#join")).to_be_visible()
    expect(page.locator("#join-name")).to_be_focused()
    watch.assert_clean()


def test_a_spectator_has_no_controls_of_a_player_and_nothing_spills(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(name="Ann", test_decks=[deck(ANN, BOB, "4H", [])])
    server.join(table["table_id"], "Bob")
    context, watch = new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"/t/{table['table_id']}")
    expect(page.locator("#board")).to_be_visible()
    expect(page.locator("#watching")).to_be_visible()
    expect(page.locator("#join")).to_be_hidden()
    expect(page.get_by_role("button", name="Rank")).to_have_count(0)
    expect(page.locator("#sort-melds")).to_be_hidden()
    expect(page.locator("#keys-hint")).to_be_hidden()
    expect(page.locator("#hand .card-back")).to_have_count(10)
    for selector in ("#board", "#hand", "#opp-cards"):
        overflow = page.eval_on_selector(selector, "e => e.scrollWidth - e.clientWidth")
        assert overflow <= 0, selector
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    watch.assert_clean()


def test_keyboard_the_hand_is_a_toolbar_the_dialog_traps_focus_a_click_out_of_turn_answers(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(
        name="Ann", test_decks=[deck(ANN, BOB, "2S", [])], test_first_dealer=1
    )
    server.join(table["table_id"], "Bob")
    page = seat_page(new_context, table)
    expect(page.locator("#hand")).to_have_attribute("role", "toolbar")
    # The upcard offer is Ann's, the stock is not open: the click is explained.
    # (aria-disabled, not disabled: a player can still click it; `force` does so.)
    page.locator("#stock").click(force=True)
    expect(page.locator("#status")).to_have_text("Your turn: take the upcard or pass")
    page.keyboard.press("t")  # take the upcard: the focus goes to the card taken
    expect(page.locator('#hand button.card[data-card="2S"]')).to_be_focused()
    page.keyboard.press("k")
    dialog = page.locator("#confirm")
    expect(dialog).to_be_visible()
    expect(page.locator("#confirm-title")).to_have_text("Knock?")
    for _ in range(6):
        page.keyboard.press("Tab")
        assert page.evaluate("document.getElementById('confirm').contains(document.activeElement)")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    # Out of turn: after the knock it is nobody's turn; before, Bob's turn explained.
    page.locator('#hand button.card[data-card="KS"]').click()  # a plain discard
    expect(page.locator("#status")).to_contain_text("Bob's turn")
    page.locator("#stock").click(force=True)
    expect(page.locator("#status")).to_have_text("Wait: it is Bob's turn")
    expect(page.locator("#live")).to_have_text("Wait: it is Bob's turn")
