"""Two browsers play through the table page only: clicks and keys, a scripted deck."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, Route, expect

from tests.e2e.conftest import ANN, BOB, NewContext, Server, deck, take_seat

# Hand 1 (Bob deals, so Ann, seat 0, has the upcard offer). Upcard 4H: both pass.
# Ann draws 5H and throws it; Bob draws 4S and throws it; Ann draws 2S and knocks
# throwing KS. Ann's deadwood: 2S = 2. Bob's: 5C = 5 (5C fits none of Ann's melds
# AC-2C-3C, 4D-5D-6D, 7H-8H-9H). Knock, 2 < 5: Ann wins 5 - 2 = 3 points, her first
# win, so it goes into game 1 only.
HAND_1 = deck(ANN, BOB, "4H", ["5H", "4S", "2S"])


def add_test_deck(decks: list[list[str]], first_dealer: int) -> Any:
    """Let the home page's own request through, with the test hook's deck added."""

    def handle(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        body.update(test_decks=decks, test_first_dealer=first_dealer)
        route.continue_(post_data=json.dumps(body))

    return handle


def card(page: Page, code: str) -> Any:
    return page.locator(f'#hand button.card[data-card="{code}"]')


def test_two_players_play_a_hand_to_its_end(server: Server, new_context: NewContext) -> None:
    ann_context, ann_watch = new_context()
    ann = ann_context.new_page()
    ann.route("**/api/tables", add_test_deck([HAND_1], first_dealer=1))
    ann.goto("/en/")
    ann.check('input[name="scoring"][value="hollywood"]')
    ann.fill("#name", "Ann")
    ann.get_by_role("button", name="Create a table").click()
    ann.wait_for_url(re.compile(r"/t/[\w-]+$"))
    expect(ann.locator("#invite")).to_be_visible()
    expect(ann.locator("#invite")).to_contain_text("Waiting for your friend to open the link")
    expect(ann.locator("#seat-link-box")).to_be_visible()
    share = ann.locator("#share-url").input_value()
    table_id = share.rsplit("/", 1)[1]

    bob_context, bob_watch = new_context()
    bob = bob_context.new_page()
    bob.goto(share)
    expect(bob.locator("#join")).to_be_visible()
    bob.fill("#join-name", "Bob")
    bob.get_by_role("button", name="Join the game").click()
    expect(bob.locator("#board")).to_be_visible()
    expect(bob.locator("#seat-link-box")).to_be_visible()
    expect(ann.locator("#invite")).to_be_hidden()

    # The upcard offer: Ann passes with a click, Bob reloads first, then passes by key.
    expect(ann.locator("#status")).to_contain_text("Your turn: take the upcard or pass")
    expect(ann.locator("#fingerprint")).to_contain_text("Deck fingerprint")
    ann.locator("#pass").click()
    expect(bob.locator("#status")).to_contain_text("Your turn: take the upcard or pass")
    bob.reload()
    expect(bob.locator("#hand button.card")).to_have_count(10)
    expect(bob.locator("#me-name")).to_have_text("Bob")
    bob.locator("#pass").focus()
    bob.keyboard.press("Enter")

    # Ann draws from the stock and throws the card she drew.
    expect(ann.locator("#status")).to_contain_text("Your turn: draw a card")
    ann.locator("#stock").click()
    expect(card(ann, "5H")).to_be_visible()
    card(ann, "5H").click()
    expect(bob.locator("#status")).to_contain_text("Ann discarded the five of hearts")

    # Bob plays by keyboard only: Space on the stock, arrows to the new card, Enter.
    bob.locator("#stock").focus()
    bob.keyboard.press("Space")
    expect(card(bob, "4S")).to_be_visible()
    cards = bob.locator("#hand button.card")
    index = [cards.nth(i).get_attribute("data-card") for i in range(11)].index("4S")
    cards.nth(0).focus()
    for _ in range(index):
        bob.keyboard.press("ArrowRight")
    expect(card(bob, "4S")).to_be_focused()
    bob.keyboard.press("Enter")

    # Ann draws 2S and knocks: one confirmation, the lowest deadwood offered first.
    expect(ann.locator("#status")).to_contain_text("Bob discarded the four of spades")
    ann.locator("#stock").click()
    expect(ann.locator("#knock")).to_have_text("Knock: deadwood 2")
    expect(ann.locator("#gin")).to_be_hidden()
    ann.locator("#knock").click()
    expect(ann.locator("#confirm-text")).to_have_text(
        "Knock by discarding the king of spades, with 2 deadwood?"
    )
    ann.locator("#confirm-yes").click()

    for page in (ann, bob):
        expect(page.locator("#result-title")).to_have_text("Ann knocked and won")
        expect(page.locator("#result-points")).to_have_text("Ann scores 3 points")
        expect(page.locator("#result-games")).to_have_text("Points entered in game 1")
        # The arithmetic from the rules' own numbers: D - K (docs/rules.md "Scoring a hand").
        expect(page.locator("#result-math")).to_have_text("Knock: 5 − 2 = 3")
        expect(page.locator("#result-layoffs")).to_have_text("Bob had nothing to lay off")
        expect(page.locator("#verify")).to_contain_text("Deck verified")
        expect(page.locator("#sheet tfoot tr.points td").first).to_have_text("3")
        expect(page.locator("#sheet-totals")).to_have_text("Total: Ann 3 · Bob 0")
    assert ann.locator("#result-hands").inner_text() == bob.locator("#result-hands").inner_text()
    assert ann.locator("#sheet-games").inner_text() == bob.locator("#sheet-games").inner_text()

    # The finished hand's record can be downloaded.
    link = ann.locator("#download")
    assert link.get_attribute("href") == f"/api/tables/{table_id}/hands/1"
    record = ann_context.request.get(f"/api/tables/{table_id}/hands/1").json()
    assert record["deck"] == HAND_1

    # Next hand: who waits for whom, then the next deal (Ann won, so Ann deals).
    ann.locator("#next-hand").click()
    expect(ann.locator("#ready-status")).to_have_text("Waiting for Bob to press Next hand")
    expect(bob.locator("#ready-status")).to_have_text("Ann is waiting for you")
    bob.locator("#next-hand").click()
    for page in (ann, bob):
        expect(page.locator("#result")).to_be_hidden()
    # Each reads the deal in their own words: the dealer is told they deal.
    expect(ann.locator("#status")).to_contain_text("Hand 2 is dealt. You deal.")
    expect(bob.locator("#status")).to_contain_text("Hand 2 is dealt. Ann deals.")
    expect(bob.locator("#status")).to_contain_text("Your turn: take the upcard or pass")

    # A spectator sees the piles, the counts and the sheet, never a hand.
    viewer_context, viewer_watch = new_context()
    viewer = viewer_context.new_page()
    viewer.goto(share)
    expect(viewer.locator("#board")).to_be_visible()
    expect(viewer.locator("#join")).to_be_hidden()
    expect(viewer.locator("#hand button.card")).to_have_count(0)
    expect(viewer.locator("#discard .card")).to_have_count(1)
    expect(viewer.locator("#sheet-totals")).to_have_text("Total: Ann 3 · Bob 0")
    assert viewer.locator("#seat-link-box").is_hidden()

    for watch in (ann_watch, bob_watch, viewer_watch):
        watch.assert_clean()


def seated_page(server: Server, new_context: NewContext, decks: list[list[str]]) -> Page:
    """Ann at a fresh table with Bob seated through the API; Ann opens her seat link."""
    table = server.create_table(name="Ann", test_decks=decks, test_first_dealer=1)
    server.join(table["table_id"], "Bob")
    context, _watch = new_context()
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#hand button.card")).to_have_count(10)
    return page


def test_take_the_upcard_and_go_gin(server: Server, new_context: NewContext) -> None:
    # Upcard TH extends 7H-8H-9H; Ann takes it and throws KS: all ten cards melded.
    # Gin: Bob's deadwood 5 (5C) + 25 = 30 points.
    page = seated_page(server, new_context, [deck(ANN, BOB, "TH", [])])
    expect(page.locator("#take")).to_be_visible()
    page.locator("#discard").click()  # the upcard itself: taking it
    expect(card(page, "TH")).to_be_visible()
    expect(page.locator("#gin")).to_be_visible()
    expect(page.locator("#deadwood")).to_have_text("Deadwood: 0")
    page.locator("#gin").click()
    expect(page.locator("#confirm-text")).to_have_text("Go gin by discarding the king of spades?")
    expect(page.locator("#confirm-yes")).to_be_focused()
    page.keyboard.press("Escape")  # cancelled: nothing was sent, the focus goes back
    expect(page.locator("#confirm")).to_be_hidden()
    expect(page.locator("#gin")).to_be_focused()
    page.locator("#gin").click()
    page.locator("#confirm-no").click()
    expect(page.locator("#result")).to_be_hidden()
    page.locator("#gin").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#result-title")).to_have_text("Ann went gin")
    expect(page.locator("#result-points")).to_have_text("Ann scores 30 points")
    expect(page.locator("#result-math")).to_have_text("Gin: 5 + 25 = 30")


def test_take_the_upcard_and_knock(server: Server, new_context: NewContext) -> None:
    # Upcard 2S; Ann takes it with the Take button and knocks throwing KS: deadwood 2,
    # Bob 5, so Ann wins 5 - 2 = 3.
    page = seated_page(server, new_context, [deck(ANN, BOB, "2S", [])])
    page.locator("#take").click()
    expect(page.locator("#knock")).to_have_text("Knock: deadwood 2")
    page.locator("#knock").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#result-title")).to_have_text("Ann knocked and won")
    expect(page.locator("#result-points")).to_have_text("Ann scores 3 points")
    # Bob's five of clubs is shown as his deadwood, Ann's melds as melds.
    expect(page.locator("#result-hands")).to_contain_text("Bob: deadwood 5")
    expect(page.locator("#result-hands")).to_contain_text("Ann: deadwood 2 · knocker")


def test_undercut_with_a_lay_off(server: Server, new_context: NewContext) -> None:
    # Bob holds 4C instead of 5C: it extends Ann's AC-2C-3C. Ann takes 2S and knocks
    # with 2; Bob lays off 4C and has 0, which undercuts: Bob wins 2 - 0 + 25 = 27.
    bob = [c if c != "5C" else "4C" for c in BOB]
    page = seated_page(server, new_context, [deck(ANN, bob, "2S", [])])
    page.locator("#take").click()
    page.locator("#knock").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#result-title")).to_have_text("Bob undercut Ann and wins the hand")
    expect(page.locator("#result-points")).to_have_text("Bob scores 27 points")
    # K - D + 25 with D after the lay-off; before it Bob had the 4 of clubs: 4.
    expect(page.locator("#result-math")).to_have_text("Undercut: 2 − 0 + 25 = 27")
    # The arithmetic names the undercut; the title does not say "Undercut:" again.
    assert page.locator("#result").inner_text().count("Undercut:") == 1
    expect(page.locator("#result-layoffs")).to_have_text(
        "Bob's deadwood: 4 → 0 after laying off the four of clubs"
    )
    laid_off = page.locator("#result-hands .card.layoff")
    expect(laid_off).to_have_count(1)
    expect(laid_off).to_have_attribute("data-card", "4C")
    expect(laid_off).to_contain_text("four of clubs (laid off)")
    expect(page.locator("#result-hands")).to_contain_text("Discarded face down: king of spades")


def test_single_hand_scoring_ends_the_match_with_the_hand(
    server: Server, new_context: NewContext
) -> None:
    # `hand` scoring: the gin (5 + 25 = 30) is the whole game; a rematch follows.
    table = server.create_table(
        name="Ann", scoring="hand", test_decks=[deck(ANN, BOB, "TH", [])], test_first_dealer=1
    )
    server.join(table["table_id"], "Bob")
    context, watch = new_context()
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    page.locator("#take").click()
    page.locator("#gin").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#result-title")).to_have_text("Ann went gin")
    expect(page.locator("#result-games")).to_have_text("")  # one hand: no games to name
    # A single hand is no match: Ann, reading, wins the hand; no games score.
    expect(page.locator("#ready-status")).to_have_text("You win the hand")
    expect(page.locator("#sheet-totals")).to_have_text("Total: Ann 30 · Bob 0 — You win the hand")
    expect(page.locator("#sheet thead th.game")).to_have_count(1)
    expect(page.locator("#rematch")).to_be_visible()
    expect(page.locator("#next-hand")).to_be_hidden()
    watch.assert_clean()
