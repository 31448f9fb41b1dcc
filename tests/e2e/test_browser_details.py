"""Details a player sees at a hand's end, in Chromium: the board's caption says how the
hand ended (never "Hand 1 is dealt"), the replay and the table on a phone end above their
folded result (room for exactly its head, and the table's "Next hand" bar), and the
shutout's game-bonus cell reads on two short lines in Hungarian."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from tests.bots.coach_hands import GIN_PASSED
from tests.e2e.conftest import ANN, NewContext, Server, deck
from tests.e2e.scripted import play_script
from tests.e2e.test_browser_feel import act, hello, kinds, next_state, origin, ws_url

PHONE = {"width": 360, "height": 740}
# Bob, the dealer, holds nothing that melds: Ann takes the upcard and goes gin with 97
# points against Bob's 0, and game 1 of a Hollywood match ends in a shutout
# (docs/rules.md "Scoring the match").
BOB_HIGH = ["KC", "QD", "JH", "TS", "9C", "8D", "KH", "QS", "JD", "TC"]
SHUTOUT = [(0, {"kind": "take_upcard"}), (0, {"kind": "knock", "discard": "KS"})]


def knocked_hand(server: Server, **options: Any) -> tuple[str, list[str]]:
    """A table where Bob knocked and won hand 1 (Ann deals), 29 points."""
    script = [(a["seat"], a["action"]) for a in GIN_PASSED["actions"]]
    return play_script(server.base, GIN_PASSED["deck"], script, **options)


def open_as(
    new_context: NewContext, server: Server, table_id: str, token: str, **options: Any
) -> Page:
    context, _watch = new_context(**options)
    context.add_cookies(
        [{"name": f"gin_seat_{table_id}", "value": token, "url": f"{server.base}/t/{table_id}"}]
    )
    return context.new_page()


def test_the_board_caption_at_a_hands_end_says_how_it_ended(
    server: Server, new_context: NewContext
) -> None:
    table_id, tokens = knocked_hand(server, scoring="game")
    # Opened (or reloaded) at the hand's end: the caption under the table is the outcome,
    # in the page's language, as the result panel words it.
    outcomes = [("hu-HU", "Bob kopogott és nyert"), ("de-DE", "Bob hat geklopft und gewonnen")]
    for locale, outcome in outcomes:
        page = open_as(new_context, server, table_id, tokens[0], locale=locale)
        page.goto(f"/t/{table_id}")
        expect(page.locator("#result-title")).to_have_text(outcome)
        expect(page.locator("#status")).to_have_text(outcome)
    ann = page  # in German
    # Bob presses "Next hand": the caption says Ann is the one awaited, and so does the
    # live region (Bob's move, said to Ann).
    with connect(ws_url(ann, table_id), origin=origin(ann)) as bob:
        hello(bob, tokens[1])
        state = next_state(bob, lambda s: "next_hand" in kinds(s))
        act(bob, state, {"kind": "next_hand"})
        waiting = f"{outcome}. Bob wartet auf Sie"
        expect(ann.locator("#status")).to_have_text(waiting)
        expect(ann.locator("#live")).to_have_text(waiting)
        # Ann presses too: hand 2 is dealt, and the caption says so again.
        ann.locator("#next-hand").click()
        expect(ann.locator("#status")).to_contain_text("Hand 2 ist gegeben")


TWO_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
# Where the folded result's top is, and the footer's bottom, scrolled to the page's end.
ENDS = """() => {
  scrollTo(0, document.documentElement.scrollHeight);
  const result = document.getElementById("result").getBoundingClientRect();
  const foot = document.querySelector(".site-footer p").getBoundingClientRect();
  return { result: result.top, height: result.height, foot: foot.bottom, view: innerHeight };
}"""


def footer_just_above_the_folded_result(page: Page, case: tuple[Any, ...]) -> None:
    """Fold the result: the footer's line is then above it, not under it, and the page
    keeps no more room than the footer's own margin and padding (1.9rem), a few pixels
    more at most. `case`: what the assertions name on failure."""
    page.locator("#result-fold").click()
    expect(page.locator("#result-body")).to_be_hidden()
    # Two frames: the page lays out the folded result (a ResizeObserver runs in between).
    page.evaluate(TWO_FRAMES)
    ends = page.evaluate(ENDS)
    assert ends["foot"] <= ends["result"], (*case, ends)
    assert ends["result"] - ends["foot"] <= 40, (*case, ends)


def test_the_replay_on_a_phone_ends_just_above_its_folded_result(
    server: Server, new_context: NewContext
) -> None:
    table_id, tokens = knocked_hand(server)
    # English: a two-line title; German: three lines; landscape: one.
    landscape = {"width": 740, "height": 360}
    for locale, viewport in [("en-GB", PHONE), ("de-DE", PHONE), ("de-DE", landscape)]:
        page = open_as(new_context, server, table_id, tokens[0], locale=locale, viewport=viewport)
        page.route("**/review?seat=*", lambda route: route.fulfill(status=503, body="{}"))
        page.goto(f"/t/{table_id}/hands/1")
        page.locator("#step-last").click()
        expect(page.locator("#result")).to_be_visible()
        # No room kept for a "Next hand" bar: the replay has none.
        footer_just_above_the_folded_result(page, (locale, viewport))


def test_the_table_on_a_phone_ends_just_above_its_folded_result(
    server: Server, new_context: NewContext
) -> None:
    table_id, tokens = knocked_hand(server, scoring="game")
    # Folded, the table's result is its head and the "Next hand" bar: the page keeps room
    # for both (measured), in English and German (a longer title and bar), upright and
    # landscape.
    landscape = {"width": 740, "height": 360}
    for locale in ["en-GB", "de-DE"]:
        for viewport in [PHONE, landscape]:
            page = open_as(
                new_context, server, table_id, tokens[0], locale=locale, viewport=viewport
            )
            page.goto(f"/t/{table_id}")
            expect(page.locator("#next-hand")).to_be_visible()
            footer_just_above_the_folded_result(page, (locale, viewport))


# Each row of the bonus table: its label, height, and how far its cells' text reaches
# outside their cells.
ROWS = """() => [...document.querySelectorAll("#result .bonus-table tbody tr:not(.bonus-game)")]
.map(tr => ({
  label: tr.querySelector("th").textContent,
  height: tr.getBoundingClientRect().height,
  cells: [...tr.querySelectorAll("td")].map(td => {
    const box = td.getBoundingClientRect();
    const parts = [...td.querySelectorAll("small")].map(s => s.getBoundingClientRect());
    const out = parts.map(p => Math.max(box.left - p.left, p.right - box.right));
    return { text: td.textContent, out: Math.max(0, ...out) };
  }),
}))"""


def test_the_shutout_game_bonus_cell_reads_on_two_lines_in_hungarian(
    server: Server, new_context: NewContext
) -> None:
    table_id, tokens = play_script(
        server.base,
        deck(ANN, BOB_HIGH, "TH", []),
        SHUTOUT,
        scoring="hollywood",
        test_first_dealer=1,
    )
    for viewport in [{"width": 1280, "height": 900}, PHONE]:
        page = open_as(new_context, server, table_id, tokens[0], locale="hu-HU", viewport=viewport)
        page.goto(f"/t/{table_id}")
        expect(page.locator("#result .bonus-table")).to_be_visible()
        game, line = page.evaluate(ROWS)
        assert (game["label"], line["label"]) == ("Játszma\u00adbónusz", "Sorbónusz")
        for cell in game["cells"] + line["cells"]:
            assert cell["out"] <= 0.5, (viewport, cell)
        if viewport["width"] == 1280:
            # Two lines, as tall as the line bonus's row (it was three lines).
            assert abs(game["height"] - line["height"]) <= 1, (game, line)
        # The bonus over its reason, as the line bonus sits over its sum.
        assert game["cells"][0]["text"] == "200vesztes: 0\u00a0pont"
        assert line["cells"][0]["text"] == "25 = 1 × 25"
