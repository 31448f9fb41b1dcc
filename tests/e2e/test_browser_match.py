"""A whole Hollywood match through the page, the computer opponent, arranging cards."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ANN, NewContext, Server, axe_violations, deck, take_seat

# Bob holds no meld at all: K, Q, J, 10 twice each and 9C, 8D, so his deadwood is
# 8 x 10 + 9 + 8 = 97 and Ann's gin (she takes TH onto 7H-8H-9H, throws KS) scores
# 97 + 25 = 122, over the target of 100 in one hand.
BOB_HIGH = ["KC", "QD", "JH", "TS", "9C", "8D", "KH", "QS", "JD", "TC"]
# Hand 1: Bob deals, Ann has the offer. Hands 2 and 3: Ann (the winner) deals, Bob
# has the offer and passes, then Ann as dealer takes it.
FIRST = deck(ANN, BOB_HIGH, "TH", [])
LATER = deck(BOB_HIGH, ANN, "TH", [])


def ann_goes_gin(ann: Page, points: int = 122) -> None:
    ann.locator("#take").click()
    ann.locator("#gin").click()
    ann.locator("#confirm-yes").click()
    expect(ann.locator("#result-title")).to_have_text("Ann went gin")
    expect(ann.locator("#result-points")).to_have_text(f"Ann scores {points} points")


def test_a_hollywood_match_to_its_end_and_a_rematch(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(
        name="Ann",
        scoring="hollywood",
        target=100,
        test_decks=[FIRST, LATER, LATER],
        test_first_dealer=1,
    )
    bob_seat = server.join(table["table_id"], "Bob")
    ann_context, ann_watch = new_context(bypass_csp=True)
    ann = ann_context.new_page()
    take_seat(ann, f"/t/{table['table_id']}/seat/{table['token']}")
    bob_context, bob_watch = new_context()
    bob = bob_context.new_page()
    take_seat(bob, f"/t/{table['table_id']}/seat/{bob_seat['token']}")

    # Hand 1: Ann's first win goes into game 1 and finishes it (122 >= 100).
    ann_goes_gin(ann)
    expect(ann.locator("#result-games")).to_have_text("Points entered in game 1")
    # Gin: Bob's 97 deadwood + the 25 gin bonus (docs/rules.md "Scoring a hand").
    expect(ann.locator("#result-math")).to_have_text("Gin: 97 + 25 = 122")
    # Game 1 finished: a shutout, 200, plus 25 for Ann's one won hand in it.
    expect(ann.locator("#sheet thead th.seat").nth(0)).to_contain_text("won by Ann")
    expect(ann.locator("#sheet tfoot tr.bonus td").nth(0)).to_have_text("225")
    # A finished game gets a screen of its own, for both players.
    # Said as a person would: who won it and by how much, the games so far.
    said = {
        ann: ("You win game 1, 122 to 0", "You lead, 1 game to 0"),
        bob: ("Ann wins game 1, 122 to 0", "Ann leads, 1 game to 0"),
    }
    for page in (ann, bob):
        moment = page.locator("#moment")
        expect(moment).to_be_visible()
        expect(moment.locator("#moment-title")).to_have_text(said[page][0])
        expect(moment.locator("#moment-score")).to_have_text(said[page][1])
        # The bonuses as a short table: a column per player, each bonus over its reason.
        bonus = moment.locator("#moment-lines table.bonus-table")
        expect(bonus.locator("thead th")).to_have_text(["Ann", "Bob"])
        expect(bonus.locator(".bonus-game")).to_have_text([said[page][0]])
        expect(bonus.locator("tbody tr").nth(1)).to_have_text("Game bonus200shutout–")
        expect(bonus.locator("tbody tr").nth(2)).to_have_text("Line bonus25 = 1 × 25–")
        expect(moment.locator("#moment-totals")).to_have_text("Total: Ann 347 · Bob 0")
        page.locator("#moment-close").click()
        expect(moment).to_be_hidden()
    expect(ann.locator("#result-bonuses")).to_contain_text("You win game 1, 122 to 0")
    # Before the match ends the sheet counts the games won so far beside the totals.
    expect(ann.locator("#sheet-totals")).to_have_text(
        "Total: Ann 347 · Bob 0 · You lead, 1 game to 0"
    )
    expect(bob.locator("#sheet-totals")).to_have_text(
        "Total: Ann 347 · Bob 0 · Ann leads, 1 game to 0"
    )
    for page in (ann, bob):
        page.locator("#next-hand").click()

    # Hands 2 and 3: the win goes into games 1 and 2 (1 is finished: only 2 takes
    # it), then into all three (only 3 is open).
    for games in ("Points entered in game 2", "Points entered in game 3"):
        expect(bob.locator("#status")).to_contain_text("Your turn: take the upcard or pass")
        bob.locator("#pass").click()
        ann_goes_gin(ann)
        expect(ann.locator("#result-games")).to_have_text(games)
        if games.endswith("2"):
            for page, title in ((ann, "You win game 2"), (bob, "Ann wins game 2")):
                expect(page.locator("#moment-title")).to_have_text(f"{title}, 122 to 0")
                page.locator("#moment-close").click()
                page.locator("#next-hand").click()

    # The match end: its own screen, from each seat's view, with the games score,
    # the match summary and a Rematch button.
    expect(ann.locator("#moment-title")).to_have_text("You win the match")
    expect(bob.locator("#moment-title")).to_have_text("Ann wins the match")
    for page in (ann, bob):
        expect(page.locator("#moment-score")).to_have_text("3 games to 0")
        expect(page.locator("#moment-totals")).to_have_text("Total: Ann 1041 · Bob 0")
        expect(page.locator("#moment-rematch")).to_be_visible()
        summary = page.locator("#moment-summary table.summary-table")
        expect(summary.locator("caption")).to_have_text("Match summary")
        expect(summary.locator("tbody tr")).to_have_text(
            [
                "Hands won30",
                "Gins30",
                "Undercuts00",
                "Best hand122 (gin)–",
                "Average deadwood at a knock––",
            ]
        )
        # Both pages saw the first deal and the last hand's end: the time is known.
        expect(page.locator("#moment-summary .summary-line")).to_contain_text(
            re.compile(r"^Hands played: 3 · Time played: \d+ min$")
        )
    assert axe_violations(ann) == []  # the bonus and summary tables included
    bob.locator("#moment-close").click()

    # The match is over: three games to Ann, totals 3 x 122 + 3 x 225 = 1041.
    for page, who in ((ann, "You win"), (bob, "Ann wins")):
        expect(page.locator("#ready-status")).to_contain_text(f"{who} the match, 3 games to 0")
        expect(page.locator("#sheet-totals")).to_have_text(
            f"Total: Ann 1041 · Bob 0 — {who} the match, 3 games to 0"
        )
        expect(page.locator("#sheet-summary .summary-table tbody tr").first).to_have_text(
            "Hands won30"
        )
        expect(page.locator("#sheet thead th.game.finished")).to_have_count(3)
        expect(page.locator("#next-hand")).to_be_hidden()
    expect(bob.locator("#rematch")).to_be_visible()
    ann.locator("#moment-rematch").click()
    expect(ann.locator("#moment")).to_be_hidden()
    expect(bob.locator("#ready-status")).to_contain_text("Ann wants a rematch")
    bob.locator("#rematch").click()
    for page in (ann, bob):
        expect(page.locator("#result")).to_be_hidden()
        expect(page.locator("#sheet-totals")).to_have_text("Total: Ann 0 · Bob 0")
        expect(page.locator("#hand button.card")).to_have_count(10)
        expect(page.locator("#sheet-summary table")).to_have_count(0)  # a new match
    ann_watch.assert_clean()
    bob_watch.assert_clean()


def test_play_the_computer_from_the_home_page(server: Server, new_context: NewContext) -> None:
    context, watch = new_context()
    page = context.new_page()
    page.goto("/en/")
    # The target only shows where it applies.
    page.check('input[name="scoring"][value="hand"]')
    expect(page.locator("#target-field")).to_be_hidden()
    page.check('input[name="scoring"][value="game"]')
    expect(page.locator("#target-field")).to_be_visible()
    page.select_option("#strength", "easy")
    page.get_by_role("button", name="Play the computer").click()
    page.wait_for_url(re.compile(r"/t/[\w-]+$"))
    expect(page.locator("#board")).to_be_visible()
    expect(page.locator("#opp-name")).to_have_text("Computer (easy)")
    expect(page.locator("#hand button.card")).to_have_count(10)
    expect(page.locator("#opp-dot")).to_have_class(re.compile(r"\bon\b"))
    watch.assert_clean()


def test_play_the_computer_from_a_waiting_table(server: Server, new_context: NewContext) -> None:
    table = server.create_table(name="Ann")
    context, watch = new_context()
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#invite")).to_be_visible()
    page.select_option("#strength", "hard")
    page.locator("#add-computer").click()
    expect(page.locator("#invite")).to_be_hidden()
    expect(page.locator("#opp-name")).to_have_text("Computer (hard)")
    watch.assert_clean()


def hand_order(page: Page) -> list[str]:
    cards = page.locator("#hand button.card")
    return [str(cards.nth(i).get_attribute("data-card")) for i in range(cards.count())]


def test_arrange_by_drag_keys_and_sort_is_kept(server: Server, new_context: NewContext) -> None:
    table = server.create_table(name="Ann", test_decks=[FIRST], test_first_dealer=1)
    server.join(table["table_id"], "Bob")
    context, watch = new_context()
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#hand button.card")).to_have_count(10)

    page.locator("#sort-suit").click()
    by_suit = ["AC", "2C", "3C", "4D", "5D", "6D", "7H", "8H", "9H", "KS"]
    expect(page.locator("#hand button.card").first).to_have_attribute("data-card", "AC")
    assert hand_order(page) == by_suit

    # Drag the king of spades (last) onto the first card: it goes first.
    king = page.locator('#hand button.card[data-card="KS"]').bounding_box()
    ace = page.locator('#hand button.card[data-card="AC"]').bounding_box()
    assert king is not None and ace is not None
    page.mouse.move(king["x"] + king["width"] / 2, king["y"] + king["height"] / 2)
    page.mouse.down()
    for step in range(1, 11):
        x = king["x"] + (ace["x"] + 5 - king["x"]) * step / 10
        page.mouse.move(x, ace["y"] + ace["height"] / 2)
    page.mouse.up()
    expect(page.locator("#hand button.card").first).to_have_attribute("data-card", "KS")
    # A drag is not a click: nothing was discarded (it is not Ann's turn to discard).
    expect(page.locator("#hand button.card")).to_have_count(10)

    # Alt + ArrowRight moves the focused card one place to the right.
    page.locator('#hand button.card[data-card="KS"]').focus()
    page.keyboard.press("Alt+ArrowRight")
    expect(page.locator("#hand button.card").nth(1)).to_have_attribute("data-card", "KS")
    expect(page.locator('#hand button.card[data-card="KS"]')).to_be_focused()
    expect(page.locator("#live")).to_have_text("king of spades moved to place 2")
    expected = ["AC", "KS", *by_suit[1:9]]
    assert hand_order(page) == expected

    # The server keeps the order: a reload (or another device) shows it again.
    page.reload()
    expect(page.locator("#hand button.card").nth(1)).to_have_attribute("data-card", "KS")
    assert hand_order(page) == expected

    page.locator("#sort-rank").click()
    expect(page.locator("#hand button.card").nth(1)).to_have_attribute("data-card", "2C")
    assert hand_order(page) == ["AC", "2C", "3C", "4D", "5D", "6D", "7H", "8H", "9H", "KS"]
    watch.assert_clean()


def test_share_box_copy_and_narrow_sheet(server: Server, new_context: NewContext) -> None:
    table = server.create_table(name="Ann")
    context, watch = new_context(viewport={"width": 360, "height": 740})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    page.locator("#copy-link").click()
    expect(page.locator("#copy-status")).to_have_text("Link copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.endswith(f"/t/{table['table_id']}")
    # On a phone the sheet is one click away.
    expect(page.locator("#sheet")).to_be_hidden()
    page.locator("#sheet-toggle").click()
    expect(page.locator("#sheet")).to_be_visible()
    expect(page.locator("#sheet-toggle")).to_have_attribute("aria-expanded", "true")
    watch.assert_clean()


# Dealt to the computer in hands 2 and 3: no meld, and the upcard TH fits none
# (no other ten; JH needs 9H, which Ann holds, or QH): K Q J x2 = 60, 9 + 9 + 8 + 7
# = 33, so 93 deadwood and Ann's gin scores 93 + 25 = 118.
COMPUTER_LOW = ["KC", "QD", "JH", "9S", "9C", "8D", "KH", "QS", "JD", "7C"]


def test_a_whole_hollywood_match_against_the_computer(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(
        name="Ann",
        scoring="hollywood",
        computer="easy",
        # Hand 1: the computer deals, Ann has the offer. Then Ann (the winner) deals:
        # the computer passes the upcard (it makes no meld for it), Ann takes it.
        test_decks=[FIRST, deck(COMPUTER_LOW, ANN, "TH", []), deck(COMPUTER_LOW, ANN, "TH", [])],
        test_first_dealer=1,
    )
    context, watch = new_context()
    ann = context.new_page()
    take_seat(ann, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(ann.locator("#opp-name")).to_have_text("Computer (easy)")
    ann_goes_gin(ann)
    for games in ("Points entered in game 2", "Points entered in game 3"):
        ann.locator("#moment-close").click()  # game 1, then game 2, finished
        # The computer agrees to the next hand by itself: one press deals it.
        ann.locator("#next-hand").click()
        ann_goes_gin(ann, points=118)
        expect(ann.locator("#result-games")).to_have_text(games)
    expect(ann.locator("#moment-title")).to_have_text("You win the match")
    # 122 + 118 + 118 = 358 points, plus three shutout games at 200 + 25 each = 675.
    expect(ann.locator("#sheet-totals")).to_have_text(
        "Total: Ann 1033 · Computer (easy) 0 — You win the match, 3 games to 0"
    )
    expect(ann.locator("#sheet thead th.game.finished")).to_have_count(3)
    expect(ann.locator("#rematch")).to_be_visible()
    watch.assert_clean()
