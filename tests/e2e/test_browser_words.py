"""The table's small truths in Chromium, where a player reads them: a move the computer
made for a seat says so (the move log, the live region, the replay)."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect
from websockets.sync.client import ClientConnection, connect

from hollywood_gin.web.http.i18n import LANGUAGES
from tests.conftest import run_gin
from tests.e2e.conftest import ANN, BOB, NewContext, Server, deck, take_seat
from tests.e2e.scripted import play_script
from tests.e2e.test_browser_fair_deal import create_from_home, knock
from tests.e2e.test_browser_replay import finished_table

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


@pytest.mark.parametrize(
    ("locale", "viewport", "button"),
    [("en-GB", DESKTOP, "Copy my seat link"), ("de-DE", PHONE, "Meinen Platz-Link kopieren")],
)
def test_the_seat_link_is_copied_never_printed(
    server: Server, new_context: NewContext, locale: str, viewport: dict[str, int], button: str
) -> None:
    table = server.create_table(name="Ann", test_decks=[deck(ANN, BOB, "4H", [])])
    server.join(table["table_id"], "Bob")
    context, watch = new_context(
        locale=locale, viewport=viewport, permissions=["clipboard-read", "clipboard-write"]
    )
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#hand button.card")).to_have_count(10)
    copy = page.get_by_role("button", name=button)
    copy.scroll_into_view_if_needed()
    expect(copy).to_be_visible()
    # Nowhere in what the page shows: not as text, not in a field.
    assert "/seat/" not in page.locator("body").inner_text()
    expect(page.locator("#seat-url")).to_be_hidden()
    copy.click()
    expect(page.locator("#seat-copy-status")).not_to_be_empty()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == f"{server.base}/t/{table['table_id']}/seat/{table['token']}"
    assert "/seat/" not in page.locator("body").inner_text()
    watch.assert_clean()


def test_laid_off_cards_stand_in_their_melds_order(server: Server, new_context: NewContext) -> None:
    # Bob (seat 1, the non-dealer) holds Ann's usual three melds and the king of
    # spades; he takes the 2♠ and knocks. Ann lays off the 3♦ before his 4♦ 5♦ 6♦
    # and the 6♥ before his 7♥ 8♥ 9♥.
    ann = ["3D", "6H", "KC", "QD", "JH", "TS", "9C", "8D", "KH", "QS"]
    table_id, tokens = play_script(
        server.base,
        deck(ANN, ann, "2S", []),
        [(1, {"kind": "take_upcard"}), (1, {"kind": "knock", "discard": "KS"})],
    )
    page = seated_page(new_context, table_id, tokens[0], "en-GB", DESKTOP)
    expect(page.locator("#result-title")).to_have_text("Bob knocked and won")
    melds = page.locator('#result-hands [data-zone="result1"] .meld')
    faces = "(box) => [...box.querySelectorAll('[data-card]')].map((c) => c.dataset.card)"
    assert [m.evaluate(faces) for m in melds.all()] == [
        ["AC", "2C", "3C"],
        ["3D", "4D", "5D", "6D"],
        ["6H", "7H", "8H", "9H"],
    ]
    expect(page.locator("#result-layoffs")).to_contain_text(
        "after laying off the three of diamonds and six of hearts"
    )


def test_the_fairness_panel_shows_what_it_checked_and_the_command_checks_it(
    server: Server, new_context: NewContext, tmp_path: Path
) -> None:
    context, watch = new_context(locale="de-DE", viewport=PHONE)
    page = context.new_page()
    sent = create_from_home(page)
    table_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#hand button.card")).to_have_count(10)
    knock(page)
    expect(page.locator("#verify")).to_have_class(re.compile(r"\bok\b"))
    facts = page.locator("#verify-facts")
    facts.scroll_into_view_if_needed()
    facts.locator("summary").click()
    deals = json.loads(page.evaluate(f"localStorage.getItem('gin.deals.{table_id}')"))
    commitment, entropy = deals["1"]["commitment"], sent["entropy"]
    expect(page.locator("#vf-commitment")).to_have_text(commitment)
    expect(page.locator("#vf-secret")).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    # The computer adds no secret of its own: "–" for it.
    expect(page.locator("#vf-entropy")).to_have_text(f"Sie: {entropy} · Computer (normal): –")
    record = httpx.get(f"{server.base}/api/tables/{table_id}/hands/1", timeout=10).json()
    expect(page.locator("#vf-deck")).to_be_visible()
    command = page.locator("#vf-command").inner_text()
    file = f"hollywood-gin-{table_id}-hand-1.json"
    assert command == (f"hollywood-gin verify {file} --commitment {commitment} --entropy {entropy}")
    # The command, run as shown on the downloaded hand, says all is well.
    (tmp_path / file).write_text(json.dumps(record))
    args = command.split()[2:]
    done = run_gin("verify", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    watch.assert_clean()


def test_the_browser_gets_a_favicon_ico(server: Server, new_context: NewContext) -> None:
    context, _ = new_context()
    page = context.new_page()
    answer = page.goto("/favicon.ico")
    assert answer is not None and answer.status == 200
    assert answer.headers["content-type"] == "image/x-icon"
    body = answer.body()
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO file, one image
    assert body[22:26] == b"\x89PNG"  # holding a PNG
    # Drawn: the image has the size it says.
    size = page.evaluate(
        """async () => { const i = new Image(); i.src = "/favicon.ico"; await i.decode();
           return [i.naturalWidth, i.naturalHeight]; }"""
    )
    assert size == [32, 32]


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (390, 844)])
def test_both_ways_to_start_are_above_the_fold(
    server: Server, new_context: NewContext, width: int, height: int
) -> None:
    context, watch = new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    for lang in LANGUAGES:
        page.goto(f"/{lang}/")
        for opponent in ("friend", "computer"):
            box = page.locator(f'#create-table button[value="{opponent}"]').bounding_box()
            assert box is not None
            assert box["y"] >= 0 and box["y"] + box["height"] <= height, (lang, opponent, box)
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, (lang, opponent, box)
        # The computer's strength beside its button, named for a screen reader.
        strength = page.get_by_role("combobox", name=re.compile(r"\S"))
        expect(strength).to_have_value("normal")
        box = page.locator("#strength").bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, (lang, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    watch.assert_clean()


HAND_IN_VIEW = """() => {
  const cards = [...document.querySelectorAll("#hand .card")].map((c) => c.getBoundingClientRect());
  return {
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth,
    cards: cards.length,
    inView: cards.every(
      (r) => r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight),
    // One row: no card's top half a card below another's (the card just drawn is
    // raised a little).
    rows: Math.max(...cards.map((r) => r.top)) - Math.min(...cards.map((r) => r.top))
      < cards[0].height / 2 ? 1 : 2,
  };
}"""


@pytest.mark.parametrize(
    ("locale", "width", "height"),
    [("en-GB", 844, 390), ("de-DE", 740, 360), ("en-GB", 667, 375)],
)
def test_a_landscape_phone_shows_the_whole_hand_and_never_scrolls_sideways(
    server: Server, new_context: NewContext, locale: str, width: int, height: int
) -> None:
    table = server.create_table(
        name="Alexandra", test_decks=[deck(ANN, BOB, "4H", [])], test_first_dealer=1
    )
    server.join(table["table_id"], "Maximilianeleonora")
    context, watch = new_context(
        locale=locale,
        viewport={"width": width, "height": height},
        is_mobile=True,
        has_touch=True,
    )
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    expect(page.locator("#hand button.card")).to_have_count(10)
    expect(page.locator("#take")).to_be_visible()  # the offer: Take and Pass by the piles
    for large in (False, True):
        page.locator("#large-cards").set_checked(large)
        page.locator("#hand").scroll_into_view_if_needed()
        seen = page.evaluate(HAND_IN_VIEW)
        # A page wider than the screen makes a phone zoom out: innerWidth grows.
        assert seen["innerWidth"] == width and seen["scrollWidth"] <= width, (large, seen)
        assert seen["inView"] and seen["rows"] == 1, (large, seen)
    page.locator("#take").click()
    expect(page.locator("#hand button.card")).to_have_count(11)
    for large in (True, False):
        page.locator("#large-cards").set_checked(large)
        page.locator("#hand").scroll_into_view_if_needed()
        seen = page.evaluate(HAND_IN_VIEW)
        assert seen["innerWidth"] == width and seen["scrollWidth"] <= width, (large, seen)
        assert seen["inView"] and seen["rows"] == 1, (large, seen)
    watch.assert_clean()


@pytest.mark.parametrize(
    ("locale", "viewport", "words"),
    [
        (
            "en-GB",
            DESKTOP,
            (
                ["take the upcard", "pass"],
                r"^Not the best: “pass” \([+−-]?[\d.]+\) costs [\d.]+ points against the"
                r" coach's choice, “take the upcard” \([+−-]?[\d.]+\)\. That is the move"
                r" played in the game\.$",
                r"^Yes: “take the upcard” is the coach's choice",
            ),
        ),
        (
            "de-DE",
            PHONE,
            (
                ["die aufgedeckte Karte nehmen", "passen"],
                r"^Nicht die beste Wahl: „passen“ \([+−-]?[\d,]+\) kostet [\d,]+ Punkte",
                r"^Ja: „die aufgedeckte Karte nehmen“ ist die Wahl des Trainers",
            ),
        ),
    ],
)
def test_find_the_better_move_takes_the_pick_and_prices_it(
    server: Server,
    new_context: NewContext,
    locale: str,
    viewport: dict[str, int],
    words: tuple[list[str], str, str],
) -> None:
    choices_text, wrong, right = words
    table_id, tokens, _record = finished_table(server)
    context, watch = new_context(locale=locale, viewport=viewport)
    context.add_cookies(
        [{"name": f"gin_seat_{table_id}", "value": tokens[1], "url": f"{server.base}/t/{table_id}"}]
    )
    page = context.new_page()
    page.goto(f"/t/{table_id}/hands/1")
    expect(page.locator("#review-verdict")).not_to_be_empty(timeout=60_000)
    for pick, answer in ((1, wrong), (0, right)):
        page.locator("#quiz-start").click()
        choices = page.locator("#quiz-choices button")
        # The offer's two choices in their fixed order, whichever the coach chose.
        expect(choices).to_have_text(choices_text)
        expect(page.locator("#quiz-answer")).to_be_empty()
        choices.nth(pick).click()
        expect(page.locator("#quiz-answer")).to_have_text(re.compile(answer))
        page.locator("#quiz-stop").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    watch.assert_clean()
