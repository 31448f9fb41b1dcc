"""Around the match in Chromium: a reaction shows on the other page (and not where it
is muted), and resigning asks first, then tells both pages how the match ended."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ANN, BOB, NewContext, Server, axe_violations, deck, take_seat


def two_pages(server: Server, new_context: NewContext, **body: object) -> tuple[Page, Page]:
    table = server.create_table(name="Ann", test_decks=[deck(ANN, BOB, "4H", [])] * 3, **body)
    bob_seat = server.join(table["table_id"], "Bob")
    pages = []
    for token in (table["token"], bob_seat["token"]):
        context, _ = new_context()
        page = context.new_page()
        take_seat(page, f"/t/{table['table_id']}/seat/{token}")
        expect(page.locator("#hand button.card")).to_have_count(10)
        pages.append(page)
    return pages[0], pages[1]


def test_a_reaction_shows_on_the_other_page(server: Server, new_context: NewContext) -> None:
    ann, bob = two_pages(server, new_context)
    ann.locator('#reaction-bar button[data-reaction="gg"]').click()
    # Near Ann's seat on both pages: Bob's opponent row, Ann's own row.
    expect(bob.locator("#opp-bubble")).to_have_text("Good game")
    expect(bob.locator("#reaction-live")).to_have_text("Ann: Good game")
    expect(ann.locator("#me-bubble")).to_have_text("Good game")
    expect(ann.locator("#opp-bubble")).to_be_hidden()
    # Ann hides Bob's reactions: remembered on her device, his still reach him.
    ann.locator("#mute-reactions").check()
    kept = "Object.entries(localStorage).some(([k, v]) => k.startsWith('gin.mute_') && v === '1')"
    assert ann.evaluate(kept)
    bob.locator('#reaction-bar button[data-reaction="thanks"]').click()
    expect(bob.locator("#me-bubble")).to_have_text("Thanks")
    ann.wait_for_timeout(300)  # give a (wrongly) shown bubble the time to appear
    expect(ann.locator("#opp-bubble")).to_be_hidden()
    ann.reload()
    expect(ann.locator("#mute-reactions")).to_be_checked()


def test_resign_asks_first_and_both_pages_say_how_it_ended(
    server: Server, new_context: NewContext
) -> None:
    ann, bob = two_pages(server, new_context, scoring="game")
    ann.locator("#resign").click()
    dialog = ann.locator("#end-confirm")
    expect(dialog).to_be_visible()
    expect(ann.locator("#end-confirm-title")).to_have_text("Resign the match?")
    ann.locator("#end-confirm-no").click()
    expect(dialog).to_be_hidden()
    expect(bob.locator("#ended-note")).to_be_hidden()
    ann.locator("#resign").click()
    ann.locator("#end-confirm-yes").click()
    expect(bob.locator("#moment")).to_be_visible()
    expect(bob.locator("#moment-title")).to_have_text("Bob wins the match")
    expect(bob.locator("#moment-ended")).to_have_text("Ann resigned.")
    expect(ann.locator("#moment-ended")).to_have_text("You resigned.")
    expect(bob.locator("#sheet-ended")).to_have_text("Ann resigned.")
    bob.locator("#moment-close").click()
    expect(bob.locator("#rematch")).to_be_visible()
    expect(bob.locator("#resign")).to_be_hidden()


def test_the_clock_reactions_and_the_resign_dialog_pass_axe(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(
        name="Ann", turn_seconds=60, test_decks=[deck(ANN, BOB, "4H", [])], test_first_dealer=1
    )
    bob_seat = server.join(table["table_id"], "Bob")
    pages = []
    for token in (table["token"], bob_seat["token"]):
        context, _ = new_context(bypass_csp=True)
        page = context.new_page()
        take_seat(page, f"/t/{table['table_id']}/seat/{token}")
        expect(page.locator("#hand button.card")).to_have_count(10)
        pages.append(page)
    ann, bob = pages
    # Ann (not the dealer) decides on the upcard: her clock runs, on both pages.
    expect(ann.locator("#me-clock")).to_be_visible()
    expect(ann.locator("#me-clock")).to_have_text(re.compile(r"^[01]:\d\d$"))
    expect(bob.locator("#opp-clock")).to_be_visible()
    expect(bob.locator("#me-clock")).to_be_hidden()
    bob.locator('#reaction-bar button[data-reaction="hello"]').click()
    expect(ann.locator("#opp-bubble")).to_have_text("Hello!")
    assert axe_violations(ann) == []
    ann.locator("#resign").click()
    expect(ann.locator("#end-confirm")).to_be_visible()
    assert axe_violations(ann) == []
