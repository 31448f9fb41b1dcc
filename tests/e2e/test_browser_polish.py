"""Around the hand (docs/architecture.md "The client"): a calm end of hand on a phone, motion that
never blows a card up, the "just drawn" mark, "my tables" on the home page, and the
smaller fixes (sorting keeps sets whole, a spectator is told about sound, the
opponent's name after Next hand, a player who joins sees their own turn)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect
from websockets.sync.client import connect

from tests.e2e.conftest import (
    ANN,
    BOB,
    NewContext,
    Server,
    axe_violations,
    deck,
    seat_page,
    take_seat,
)
from tests.e2e.test_browser_feel import act, hello, kinds, next_state, origin, ws_url

PHONE = {"width": 360, "height": 740}

# Every animation the page starts, with the largest `scale(...)` of its keyframes.
RECORD_SCALES = """
window.__scales = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (keyframes, options) {
  const frames = Array.isArray(keyframes) ? keyframes : [keyframes];
  const scales = frames
    .flatMap(f => [...String(f.transform || "").matchAll(/scale\\(([-\\d.e]+)\\)/g)])
    .map(m => Number(m[1]));
  window.__scales.push({
    where: this.closest("[id]")?.id || "",
    card: this.dataset?.card || "",
    scale: scales.length ? Math.max(...scales) : 1,
    duration: typeof options === "number" ? options : options?.duration,
  });
  return animate.call(this, keyframes, options);
};
"""

IN_VIEW = """sel => { const r = document.querySelector(sel).getBoundingClientRect();
  return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight; }"""


def test_on_a_phone_the_result_lies_over_the_table_and_next_hand_stays_in_view(
    server: Server, new_context: NewContext
) -> None:
    # Hand 1: Ann takes the ten of hearts and goes gin (game scoring: no game ends, no
    # screen of its own). Hand 2: Ann deals, Bob passes, Ann has the upcard offer.
    table = server.create_table(
        name="Ann",
        scoring="game",
        test_decks=[deck(ANN, BOB, "TH", []), deck(BOB, ANN, "4H", [])],
        test_first_dealer=1,
    )
    bob_seat = server.join(table["table_id"], "Bob")
    ann = seat_page(
        new_context,
        table,
        RECORD_SCALES,
        viewport=PHONE,
        has_touch=True,
        is_mobile=True,
        bypass_csp=True,
    )
    with connect(ws_url(ann, table["table_id"]), origin=origin(ann)) as bob:
        hello(bob, bob_seat["token"])
        ann.locator("#take").tap()
        ann.locator("#gin").tap()
        ann.locator("#confirm-yes").tap()
        state = next_state(bob, lambda s: "next_hand" in kinds(s))
        expect(ann.locator("#next-hand")).to_be_visible()
        scroll = ann.evaluate("scrollY")
        # Three seconds from the hand's end, every 0.1 s: "Next hand" on the screen, the
        # page where it was, the focus on "Next hand" without a ring (a touch player).
        # At 0.8 s Bob is ready, as the computer would be: a new state arrives. The
        # watch goes on for a second after it has arrived, however late (a loaded
        # machine), up to a bound on a hang.
        ready = "Bob is waiting for you"
        seen: list[list[Any]] = []
        arrived: int | None = None
        for tick in range(300):
            if tick == 8:
                act(bob, state, {"kind": "next_hand"})
            seen.append(
                ann.evaluate(
                    f"""() => [({IN_VIEW})("#next-hand"), scrollY,
                        document.activeElement.id, document.activeElement.matches(":focus-visible"),
                        document.getElementById("ready-status").textContent]"""
                )
            )
            if arrived is None and seen[-1][4] == ready:
                arrived = tick
            if arrived is not None and tick >= max(29, arrived + 10):
                break
            ann.wait_for_timeout(100)
        assert arrived is not None, "Bob's state never arrived"
        assert all(s[0] for s in seen), [s[0] for s in seen]
        assert {s[1] for s in seen} == {scroll}
        assert {(s[2], s[3]) for s in seen} == {("next-hand", False)}
        assert seen[-1][4] == ready  # and stays
        assert axe_violations(ann) == []
        # The overlay folds down to show the table, and back.
        ann.locator("#result-fold").tap()
        expect(ann.locator("#result-math")).to_be_hidden()
        expect(ann.locator("#next-hand")).to_be_visible()
        assert ann.evaluate(IN_VIEW, ".middle")
        ann.locator("#result-fold").tap()
        expect(ann.locator("#result-math")).to_be_visible()

        ann.locator("#next-hand").tap()
        state = next_state(bob, lambda s: "pass" in kinds(s))
        act(bob, state, {"kind": "pass"})
        expect(ann.locator("#status")).to_contain_text("Your turn: take the upcard or pass")
        # The upcard offer takes the focus, with no ring for a touch player, and the
        # table is in view from the opponent's name down to the piles.
        expect(ann.locator("#take")).to_be_focused()
        assert not ann.evaluate("document.activeElement.matches(':focus-visible')")
        ann.wait_for_function(f"() => ['#opp-name', '#stock', '#discard'].every({IN_VIEW})")
        # A key brings the rings back.
        ann.keyboard.press("Tab")
        assert ann.evaluate("document.activeElement.matches(':focus-visible')")


@pytest.mark.parametrize("viewport", [PHONE, {"width": 1280, "height": 900}])
def test_no_card_grows_more_than_twice_and_the_opponents_discard_starts_from_a_card(
    server: Server, new_context: NewContext, viewport: dict[str, int]
) -> None:
    # Ann passes the 4H, Bob takes it and throws the 5C from his hidden row; Ann
    # draws the TH and goes gin: Bob's hidden cards are laid down from his row.
    table = server.create_table(
        name="Ann", test_decks=[deck(ANN, BOB, "4H", ["TH"])], test_first_dealer=1
    )
    bob_seat = server.join(table["table_id"], "Bob")
    ann = seat_page(new_context, table, RECORD_SCALES, viewport=viewport)
    with connect(ws_url(ann, table["table_id"]), origin=origin(ann)) as bob:
        hello(bob, bob_seat["token"])
        ann.locator("#pass").click()
        state = next_state(bob, lambda s: "take_upcard" in kinds(s))
        act(bob, state, {"kind": "take_upcard"})
        state = next_state(bob, lambda s: "discard" in kinds(s))
        act(bob, state, {"kind": "discard", "card": "5C"})
        expect(ann.locator("#discard .card")).to_have_attribute("data-card", "5C")
        pile = ann.evaluate("window.__scales.filter(a => a.where === 'discard')")
        assert pile, "the opponent's discard flies to the pile"
        ann.locator("#stock").click()
        ann.locator("#gin").click()
        ann.locator("#confirm-yes").click()
        expect(ann.locator("#result-title")).to_have_text("Ann went gin")
        ann.wait_for_function("() => document.getAnimations().length === 0")
    scales = ann.evaluate("window.__scales")
    laid_down = [a for a in scales if a["where"] == "result-hands"]
    assert len(laid_down) >= 10  # Bob's cards came from somewhere: his row
    assert max(a["scale"] for a in scales) <= 2, sorted(scales, key=lambda a: -a["scale"])[:3]


def test_the_motion_setting_off_and_fast_and_the_drawn_mark(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(
        name="Ann", test_decks=[deck(ANN, BOB, "4H", ["5H", "6H"])], test_first_dealer=1
    )
    bob_seat = server.join(table["table_id"], "Bob")
    ann = seat_page(new_context, table, RECORD_SCALES)
    expect(ann.locator("#motion-speed")).to_have_value("normal")
    ann.locator("#motion-speed").select_option("off")
    ann.reload()
    expect(ann.locator("#motion-speed")).to_have_value("off")  # remembered
    expect(ann.locator("#hand button.card")).to_have_count(10)
    before = ann.evaluate("window.__scales.length")
    ann.locator("#pass").click()
    with connect(ws_url(ann, table["table_id"]), origin=origin(ann)) as bob:
        hello(bob, bob_seat["token"])
        state = next_state(bob, lambda s: "pass" in kinds(s))
        act(bob, state, {"kind": "pass"})
        ann.locator("#stock").click()
        drawn = ann.locator("#hand button.card.drawn")
        expect(drawn).to_have_attribute("data-card", "5H")
        assert ann.evaluate("window.__scales.length") == before  # off: nothing moved
        # The "just drawn" mark is a dashed amber frame and a tab above the card; the
        # keyboard's focus is a solid blue line: told apart by shape, not colour alone.
        mark = ann.evaluate(
            """() => { const el = document.querySelector("#hand button.card.drawn");
              const s = getComputedStyle(el), b = getComputedStyle(el, "::before");
              return [s.outlineStyle, s.outlineColor, b.content, b.borderTopStyle]; }"""
        )
        assert mark[0] == "dashed" and mark[2] == '""' and mark[3] == "solid"
        ann.keyboard.press("Tab")  # the first key: the rings come back
        ann.keyboard.press("Shift+Tab")
        focused = ann.evaluate(
            "() => [document.activeElement.matches(':focus-visible'),"
            " getComputedStyle(document.activeElement).outlineStyle,"
            " getComputedStyle(document.activeElement).outlineColor]"
        )
        assert focused[0] and focused[1] == "solid" and focused[2] != mark[1]
        # Fast: a card flies in half the usual 240 ms.
        ann.locator("#motion-speed").select_option("fast")
        ann.locator('#hand button.card[data-card="KS"]').click()
        expect(ann.locator("#discard .card")).to_have_attribute("data-card", "KS")
        thrown = ann.evaluate("n => window.__scales.slice(n)", before)
        to_pile = [a for a in thrown if a["where"] == "discard"]
        assert to_pile and {a["duration"] for a in to_pile} == {120}


def test_my_tables_on_the_home_page_survive_a_reload_and_drop_when_done(
    server: Server, new_context: NewContext
) -> None:
    # A single hand: Ann passes the 4H, Bob passes, Ann draws the TH and goes gin.
    table = server.create_table(
        name="Ann", scoring="hand", test_decks=[deck(ANN, BOB, "4H", ["TH"])], test_first_dealer=1
    )
    bob_seat = server.join(table["table_id"], "Bob")
    context, watch = new_context(bypass_csp=True)
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#status")).to_contain_text("Your turn")
    # A table this device once sat at, which no longer exists (expired).
    page.evaluate(
        """() => { const all = JSON.parse(localStorage.getItem("gin.tables") || "{}");
          all["expired0000000000000"] = {id: "expired0000000000000", seat: 0, opponent: "Cy",
            score: [10, 20], status: "playing", turn: 0, version: 3, updated: 1};
          localStorage.setItem("gin.tables", JSON.stringify(all)); }"""
    )
    page.goto("/en/")
    items = page.locator("#my-tables-list li")
    expect(page.locator("#my-tables")).to_be_visible()
    expect(items).to_have_count(1)  # the expired one dropped off
    expect(items.first).to_contain_text("Gin Rummy with Bob")
    expect(items.first).to_contain_text("Score 0 – 0")
    expect(items.first).to_contain_text("Your turn")
    expect(items.first.locator("a")).to_have_attribute("href", f"/t/{table['table_id']}")
    page.reload()
    expect(items).to_have_count(1)
    expect(items.first).to_contain_text("Gin Rummy with Bob")
    assert axe_violations(page) == []

    page.locator("#my-tables-list a").click()
    page.locator("#pass").click()
    expect(page.locator("#status")).to_contain_text("Bob's turn")
    page.goto("/en/")
    expect(items.first).to_contain_text("Waiting for Bob to play")
    # Bob plays while Ann is away: the list learns whose turn it is from the server.
    with connect(ws_url(page, table["table_id"]), origin=origin(page)) as bob:
        hello(bob, bob_seat["token"])
        state = next_state(bob, lambda s: "pass" in kinds(s))
        act(bob, state, {"kind": "pass"})
        next_state(bob, lambda s: s["hand"]["turn"] == 0)
    page.reload()
    expect(items.first).to_contain_text("Your turn")

    # The match ends (a single hand): the table drops off the list.
    page.locator("#my-tables-list a").click()
    page.locator("#stock").click()
    page.locator("#gin").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#moment-title")).to_have_text("You win the hand")
    page.goto("/en/")
    expect(page.locator("#create-table")).to_be_visible()
    expect(page.locator("#my-tables")).to_be_hidden()
    assert json.loads(page.evaluate("localStorage.getItem('gin.tables')")) == {}
    # The browser reports the expired table's 404 in its console: that is all.
    assert all("404" in error for error in watch.errors), watch.errors
    assert watch.foreign == []


def test_sorting_by_suit_or_rank_never_frames_a_single_card_as_a_meld(
    server: Server, new_context: NewContext
) -> None:
    # A set of sevens and two runs: by suit the sevens lie apart.
    ann = ["7C", "7D", "7H", "AS", "2S", "3S", "9D", "TD", "JD", "KC"]
    bob = ["KD", "KH", "KS", "QC", "QD", "QH", "JS", "TS", "9S", "5C"]
    table = server.create_table(
        name="Ann", test_decks=[deck(ann, bob, "4H", [])], test_first_dealer=1
    )
    server.join(table["table_id"], "Bob")
    page = seat_page(new_context, table, RECORD_SCALES)
    frames = page.locator("#hand .group.meld")
    for mode, framed in (("suit", 2), ("rank", 3), ("melds", 3)):
        page.locator(f"#sort-{mode}").click()
        expect(frames).to_have_count(framed)
        sizes = frames.evaluate_all("gs => gs.map(g => g.querySelectorAll('.card').length)")
        assert all(size >= 3 for size in sizes), (mode, sizes)
        # The sevens are marked as a meld's cards wherever they lie.
        for card in ("7C", "7D", "7H"):
            expect(page.locator(f'#hand .card[data-card="{card}"]')).to_have_class(
                re.compile(r"\bin-meld\b")
            )


def test_a_spectator_is_told_that_sound_needs_a_click(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(name="Ann", test_decks=[deck(ANN, BOB, "4H", [])])
    server.join(table["table_id"], "Bob")
    context, watch = new_context()
    page = context.new_page()
    page.goto(f"/t/{table['table_id']}")
    expect(page.locator("#watching")).to_be_visible()
    hint = page.locator("#sound-on")
    expect(hint).to_have_text("Sound needs a tap or a key: turn it on")
    hint.click()
    expect(hint).to_be_hidden()
    assert page.evaluate("document.activeElement !== null")
    # A player is not told: their seat's first click opens the sound.
    player = seat_page(new_context, table, RECORD_SCALES)
    expect(player.locator("#sound-on")).to_be_hidden()
    watch.assert_clean()


def test_a_player_who_joins_sees_their_own_turn_at_once(
    server: Server, new_context: NewContext
) -> None:
    # Ann deals (seat 0 is the dealer): the one who joins has the upcard offer.
    table = server.create_table(
        name="Ann", test_decks=[deck(BOB, ANN, "4H", [])], test_first_dealer=0
    )
    context, watch = new_context()
    page = context.new_page()
    page.goto(f"/t/{table['table_id']}")
    page.locator("#join-name").fill("Bob")
    page.get_by_role("button", name="Join the game").click()
    expect(page.locator("#hand button.card")).to_have_count(10)
    expect(page.locator("#status")).to_contain_text("Your turn: take the upcard or pass")
    expect(page.locator("#status")).not_to_contain_text("Bob's turn")
    expect(page.locator("#take")).to_be_visible()
    watch.assert_clean()
