"""The table's small truths in Chromium, where a player reads them: a move the computer
made for a seat says so (the move log, the live region, the replay)."""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from websockets.sync.client import ClientConnection, connect

from tests.e2e.conftest import ANN, BOB, NewContext, Server, deck, take_seat

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1366, "height": 768}


def seated_page(
    new_context: NewContext, table_id: str, token: str, locale: str, viewport: dict[str, int]
) -> Page:
    context, _ = new_context(locale=locale, viewport=viewport)
    page = context.new_page()
    take_seat(page, f"/t/{table_id}/seat/{token}")
    expect(page.locator("#hand button.card")).to_have_count(10)
    return page


def _state(ws: ClientConnection) -> dict[str, Any]:
    while True:
        msg = json.loads(ws.recv(timeout=20))
        if msg.get("type") == "state":
            return dict(msg)


def play_out(server: Server, table_id: str, tokens: list[str]) -> None:
    """Finish the hand over two more sockets of the seats (as second tabs would): knock
    when it can, else pass, draw from the stock, discard the first card offered."""
    url = server.base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    with contextlib.ExitStack() as stack:
        sockets = [
            stack.enter_context(
                connect(url, additional_headers={"Cookie": f"gin_seat_{table_id}={t}"}, proxy=None)
            )
            for t in tokens
        ]
        states = [_state(ws) for ws in sockets]
        for _ in range(80):
            state = max(states, key=lambda s: s["version"])
            if state["hand"]["phase"] == "over":
                return
            seat = state["hand"]["turn"]
            ws = sockets[seat]
            mine = _state_at(ws, state["version"])
            if mine["hand"]["phase"] == "over":
                return
            legal = mine["legal"]
            kinds = {a["kind"] for a in legal}
            if "knock" in kinds:
                action = next(a for a in legal if a["kind"] == "knock")
                action = {k: v for k, v in action.items() if k != "deadwood"}
            elif "pass" in kinds:
                action = {"kind": "pass"}
            elif "draw_stock" in kinds:
                action = {"kind": "draw_stock"}
            else:
                action = next(a for a in legal if a["kind"] == "discard")
            ws.send(json.dumps({"type": "action", "version": mine["version"], "action": action}))
            states = [_state_at(s, mine["version"] + 1) for s in sockets]
        raise AssertionError("the hand did not end")


def _state_at(ws: ClientConnection, version: int) -> dict[str, Any]:
    while True:
        state = _state(ws)
        if state["version"] >= version:
            return state


def test_a_move_the_clock_made_says_so_in_the_log_the_live_region_and_the_replay(
    server: Server, new_context: NewContext
) -> None:
    # Bob deals; Ann has the upcard offer first, and lets her 15 s run out.
    table = server.create_table(
        name="Ann", turn_seconds=15, test_decks=[deck(ANN, BOB, "4H", [])], test_first_dealer=1
    )
    table_id = table["table_id"]
    bob_seat = server.join(table_id, "Bob")
    tokens = [table["token"], bob_seat["token"]]
    ann = seated_page(new_context, table_id, tokens[0], "en-GB", DESKTOP)
    bob = seated_page(new_context, table_id, tokens[1], "de-DE", PHONE)
    mine = re.compile(r"^Your time ran out: the computer (passed|took the upcard, the 4♥)$")
    expect(ann.locator("#log li").last).to_have_text(mine, timeout=30_000)
    expect(ann.locator("#live")).to_contain_text("Your time ran out: the computer")
    theirs = re.compile(
        r"^Die Zeit von Ann ist abgelaufen: Der Computer hat "
        r"(die aufgedeckte Karte nicht genommen|die aufgedeckte Karte 4♥ genommen)$"
    )
    # Bob's log is folded away on a phone: its words are there all the same.
    expect(bob.locator("#log li").last).to_have_text(theirs)
    expect(bob.locator("#live")).to_contain_text("Die Zeit von Ann ist abgelaufen")
    # Never as Ann's own move.
    assert not ann.locator("#log li", has_text=re.compile(r"^You (passed|took)")).count()

    play_out(server, table_id, tokens)
    ann.goto(f"/t/{table_id}/hands/1")
    expect(ann.locator("#timeline button[data-step]").nth(1)).to_have_text(mine)
    bob.goto(f"/t/{table_id}/hands/1")
    expect(bob.locator("#timeline button[data-step]").nth(1)).to_have_text(theirs)


# Bob holds no meld: Ann's gin (she takes TH onto 7H-8H-9H, throws KS) scores
# 97 + 25 = 122, over a target of 100 in one hand (tests/e2e/test_browser_match.py).
BOB_HIGH = ["KC", "QD", "JH", "TS", "9C", "8D", "KH", "QS", "JD", "TC"]
LONG = "Maximilianeleonora"  # one word, longer than a column of the tables on a phone

# Every word of each name cell: the lines its text takes (a word broken over two
# lines takes two), whether the cell cuts the name, and the cell's title.
NAME_CELLS = """() => [...document.querySelectorAll("#moment .nm")].map((nm) => {
  const text = nm.firstChild;
  const words = [];
  let at = 0;
  for (const word of text.data.split(" ")) {
    const range = document.createRange();
    range.setStart(text, at);
    range.setEnd(text, at + word.length);
    // The lines the word's rectangles lie on (an ellipsis splits a cut word in two
    // rectangles on one line).
    words.push(new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size);
    at += word.length + 1;
  }
  return {name: nm.textContent, title: nm.closest("th").title, words,
          cut: nm.scrollWidth > nm.clientWidth,
          spoken: nm.closest("th").textContent};
})"""


@pytest.mark.parametrize(
    ("locale", "viewport", "words"),
    [
        (
            "en-GB",
            DESKTOP,
            ("You win the game", "You win game 1, 122 to 0", "Anna Alexandra"),
        ),
        (
            "de-DE",
            PHONE,
            ("Sie gewinnen das Spiel", "Sie gewinnen Spiel 1 mit 122 zu 0", "Anna Alexandra"),
        ),
    ],
)
def test_names_wrap_between_words_and_the_tables_say_who_won_as_a_person_would(
    server: Server,
    new_context: NewContext,
    locale: str,
    viewport: dict[str, int],
    words: tuple[str, str, str],
) -> None:
    title, game_row, _ = words
    table = server.create_table(
        name="Anna Alexandra",
        scoring="game",
        target=100,
        test_decks=[deck(ANN, BOB_HIGH, "TH", [])],
        test_first_dealer=1,
    )
    server.join(table["table_id"], LONG)
    page = seated_page(new_context, table["table_id"], table["token"], locale, viewport)
    page.locator("#take").click()
    page.locator("#gin").click()
    page.locator("#confirm-yes").click()
    moment = page.locator("#moment")
    expect(moment).to_be_visible()
    expect(page.locator("#moment-title")).to_have_text(title)
    expect(moment.locator(".bonus-game")).to_have_text(game_row)
    expect(moment.locator(".summary-table")).to_be_visible()
    cells = page.evaluate(NAME_CELLS)
    assert [c["name"] for c in cells] == ["Anna Alexandra", LONG] * 2
    for cell in cells:
        # Never a word over two lines; the whole name is the cell's text (what a
        # screen reader reads) and its title, cut or not.
        assert set(cell["words"]) == {1}, cell
        assert cell["spoken"] == cell["title"] == cell["name"]
    # A name of two words fits, over two lines on a phone; the long word does not
    # fit a phone's column: cut, with an ellipsis (CSS).
    assert [c["cut"] for c in cells if c["name"] != LONG] == [False, False]
    if viewport is PHONE:
        assert [c["cut"] for c in cells if c["name"] == LONG] == [True, True]
    assert (
        page.evaluate("getComputedStyle(document.querySelector('#moment .nm')).textOverflow")
        == "ellipsis"
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
