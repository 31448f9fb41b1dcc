"""The score sheet in a real browser: long names, the computer, a finished Hollywood
match, phone and desktop widths, both themes, German; a single hand; printing."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from websockets.asyncio.client import connect

from tests.e2e.conftest import ANN, ARTIFACTS, BOB, NewContext, Server, deck, take_seat
from tests.wire import playable

# Two names of the longest allowed length: one of several words, one single word.
LONG_0 = "Annabelle Marie Longname"
LONG_1 = "Wolfeschlegelsteinhausen"
# Every hand: the non-dealer takes the upcard (the ten of hearts) and goes gin with
# it, so the winners alternate and each gin scores 5 + 25 = 30 (docs/rules.md "Scoring a hand").
GIN_HAND = deck(ANN, BOB, "TH", [])


async def play_gins(base: str, table_id: str, tokens: list[str]) -> dict[str, Any]:
    """Both seats over sockets: take the upcard, go gin, press Next hand, until the
    match is over. Returns the last state."""
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    last: dict[str, Any] = {}

    async def seat(token: str) -> None:
        nonlocal last
        headers = {"Cookie": f"gin_seat_{table_id}={token}"}
        async with connect(url, additional_headers=headers, origin=None, proxy=None) as ws:
            acted = -1
            async for raw in ws:
                msg = json.loads(raw)
                if msg.get("type") != "state":
                    continue
                last = msg
                if msg["table"]["status"] == "match_over":
                    return
                # Without `resign` (open whenever a match is under way): a move, or none.
                legal = playable(msg.get("legal") or [])
                if not legal or msg["version"] == acted:
                    continue
                kinds = {a["kind"]: a for a in legal}
                knocks = [a for a in legal if a["kind"] == "knock"]
                if knocks:
                    action = min(knocks, key=lambda a: a["deadwood"])
                else:
                    action = kinds.get("take_upcard") or kinds.get("next_hand") or legal[0]
                acted = msg["version"]
                await ws.send(json.dumps({"type": "action", "version": acted, "action": action}))

    await asyncio.wait_for(asyncio.gather(*(seat(t) for t in tokens)), timeout=60)
    return last


def run_gins(base: str, table_id: str, tokens: list[str]) -> dict[str, Any]:
    """`play_gins` on a thread of its own: Playwright's sync API keeps an event loop
    running in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, play_gins(base, table_id, tokens)).result()


def finished_match(server: Server, scoring: str, hands: int) -> tuple[str, str, dict[str, Any]]:
    table = server.create_table(
        name=LONG_0,
        scoring=scoring,
        target=100,
        test_decks=[GIN_HAND] * hands,
        test_first_dealer=1,
        lang="de",
    )
    other = server.join(table["table_id"], LONG_1)
    final = run_gins(server.base, table["table_id"], [table["token"], other["token"]])
    assert final["table"]["status"] == "match_over"
    return table["table_id"], table["token"], final


@pytest.fixture(scope="module")
def hollywood(server: Server) -> tuple[str, str, dict[str, Any]]:
    return finished_match(server, "hollywood", 20)


def open_sheet(page: Page) -> None:
    moment = page.locator("#moment")  # the match end's own screen comes first
    # The state that draws the sheet opens that screen in the same handler: once the
    # sheet is there, the screen is open if it is to be.
    expect(page.locator("#sheet .sheet-table")).to_be_attached()
    if moment.is_visible():
        page.locator("#moment-close").click()
        expect(moment).to_be_hidden()
    toggle = page.locator("#sheet-toggle")
    if toggle.is_visible():
        toggle.click()
    expect(page.locator("#sheet .sheet-table")).to_be_visible()


def overflowing(page: Page) -> list[str]:
    """Every box in the sheet whose content is wider than the box (text only for
    screen readers is a 1 px box by design; a name cut with an ellipsis, its whole
    text still the cell's, by design too)."""
    found: list[str] = page.evaluate(
        """() => [document.getElementById("sheet"), ...document.querySelectorAll("#sheet *")]
            .filter(el => !el.classList.contains("sr-only"))
            .filter(el => getComputedStyle(el).textOverflow !== "ellipsis")
            .filter(el => el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 0.5)
            .map(el => `${el.tagName}.${el.className} ${el.scrollWidth}>${el.clientWidth}`)"""
    )
    return found


def broken_words(page: Page) -> list[str]:
    """Words of the names in the sheet's key that the browser split over two lines."""
    found: list[str] = page.evaluate(
        """() => {
            const broken = [];
            for (const el of document.querySelectorAll("#sheet .sheet-name")) {
                const text = el.firstChild;
                let at = 0;
                for (const word of text.textContent.split(" ")) {
                    const range = document.createRange();
                    range.setStart(text, at);
                    range.setEnd(text, at + word.length);
                    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
                    if (lines.size > 1) broken.push(word);
                    at += word.length + 1;
                }
            }
            return broken;
        }"""
    )
    return found


def columns_of_games(page: Page) -> list[dict[str, Any]]:
    """Per game: the header's horizontal extent and the points cells' centres."""
    found: list[dict[str, Any]] = page.evaluate(
        """() => {
            const table = document.querySelector("#sheet .sheet-table");
            const heads = [...table.querySelectorAll("thead th.game")];
            const points = [...table.querySelectorAll("tfoot tr.points td")];
            return heads.map((h, g) => {
                const r = h.getBoundingClientRect();
                const cells = points.slice(2 * g, 2 * g + 2).map(c => {
                    const b = c.getBoundingClientRect();
                    return {centre: b.left + b.width / 2, text: c.textContent};
                });
                return {left: r.left, right: r.right, cells};
            });
        }"""
    )
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("width", "height"), [(360, 740), (1280, 900)])
def test_a_finished_hollywood_sheet_with_long_names(
    server: Server,
    new_context: NewContext,
    hollywood: tuple[str, str, dict[str, Any]],
    width: int,
    height: int,
    scheme: str,
) -> None:
    table_id, token, final = hollywood
    sheet = final["sheet"]
    context, watch = new_context(
        viewport={"width": width, "height": height}, color_scheme=scheme, locale="de-DE"
    )
    page = context.new_page()
    take_seat(page, f"/t/{table_id}/seat/{token}?lang=de")
    open_sheet(page)
    sheet_box = page.locator("#sheet")
    sheet_box.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    sheet_box.screenshot(path=str(ARTIFACTS / f"sheet-{width}-{scheme}.png"))

    # Nothing overflows, nothing scrolls sideways, game 3 is inside the sheet.
    assert overflowing(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    sheet_rect = sheet_box.bounding_box()
    assert sheet_rect is not None and sheet_rect["x"] + sheet_rect["width"] <= width
    games = columns_of_games(page)
    assert len(games) == 3
    assert games[2]["right"] <= sheet_rect["x"] + sheet_rect["width"]

    # The full names, each word whole, and both players' marks.
    key = page.locator("#sheet .sheet-key")
    expect(key).to_contain_text(LONG_0)
    expect(key).to_contain_text(LONG_1)
    assert broken_words(page) == []

    # Each game's points sit under that game's header, in seat order.
    for g, game in enumerate(games):
        for s, cell in enumerate(game["cells"]):
            assert game["left"] <= cell["centre"] <= game["right"], (g, s)
            assert cell["text"] == str(sheet["games"][g]["seats"][s]["points"])

    # The rows are labelled (German: points, bonus, total).
    labels = page.locator("#sheet tfoot th.label")
    expect(labels).to_have_text(["Punkte", "Bonus", "Summe"])

    # Each finished game marks its winner, in its own columns, and names them.
    seats = page.locator("#sheet thead th.seat")
    for g, game in enumerate(sheet["games"]):
        assert game["finished"]
        for s in (0, 1):
            cell = seats.nth(2 * g + s)
            won = game["winner"] == s
            assert ("winner" in (cell.get_attribute("class") or "")) == won
            if won:
                name = LONG_0 if s == 0 else LONG_1
                expect(cell).to_contain_text(f"gewonnen von {name}")
    # The match from the reader's seat (the token's, seat 0): won or lost by the games.
    won_games = [sum(1 for g in sheet["games"] if g["winner"] == s) for s in (0, 1)]
    winner = "Sie gewinnen die Partie" if sheet["match_winner"] == 0 else "gewinnt die Partie"
    expect(page.locator("#sheet-totals")).to_contain_text(
        f"{winner}, {max(won_games)} Spiele zu {min(won_games)}"
    )
    watch.assert_clean()


def test_against_the_computer(server: Server, new_context: NewContext) -> None:
    # The human (seat 0, not dealing) takes the upcard and goes gin: one entry.
    table = server.create_table(
        name=LONG_0,
        scoring="hollywood",
        computer="hard",
        test_decks=[GIN_HAND],
        test_first_dealer=1,
        lang="hu",
    )
    context, watch = new_context(
        viewport={"width": 360, "height": 740}, has_touch=True, locale="hu-HU"
    )
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}?lang=hu")
    page.locator("#take").click()
    page.locator("#gin").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#result")).to_be_visible()
    open_sheet(page)
    page.locator("#sheet").screenshot(path=str(ARTIFACTS / "sheet-computer-360-hu.png"))
    assert overflowing(page) == []
    assert broken_words(page) == []
    key = page.locator("#sheet .sheet-key")
    expect(key).to_contain_text(LONG_0)
    expect(key).to_contain_text("Számítógép")
    # The gin went into game 1 only: 30 for the human, nothing yet for the computer.
    points = page.locator("#sheet tfoot tr.points td")
    expect(points).to_have_text(["30", "0", "0", "0", "0", "0"])
    expect(page.locator("#sheet tfoot th.label")).to_have_text(["Pontok"])
    watch.assert_clean()


def test_a_single_hand_shows_no_empty_bonus(server: Server, new_context: NewContext) -> None:
    table = server.create_table(
        name="Ann", scoring="hand", test_decks=[GIN_HAND], test_first_dealer=1
    )
    other = server.join(table["table_id"], "Bob")
    run_gins(server.base, table["table_id"], [table["token"], other["token"]])
    context, _watch = new_context()
    page = context.new_page()
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}")
    open_sheet(page)
    text = page.locator("#sheet").inner_text()
    assert "+0" not in text
    expect(page.locator("#sheet tfoot th.label")).to_have_text(["Points"])
    expect(page.locator("#sheet tfoot tr.points td")).to_have_text(["30", "0"])
    expect(page.locator("#sheet thead th.seat.winner")).to_have_count(1)


@pytest.mark.parametrize("width", [360, 1280])
def test_printing_prints_the_sheet_alone(
    server: Server, new_context: NewContext, hollywood: tuple[str, str, dict[str, Any]], width: int
) -> None:
    table_id, token, _final = hollywood
    context, _watch = new_context(viewport={"width": width, "height": 800}, color_scheme="dark")
    page = context.new_page()
    take_seat(page, f"/t/{table_id}/seat/{token}")
    if width > 1000:  # the sheet is always in view there, with its Print button
        expect(page.locator("#sheet-print")).to_be_visible()
    page.emulate_media(media="print")
    expect(page.locator("#sheet .sheet-table")).to_be_visible()  # even when folded away
    for hidden in (".site-header", ".site-footer", "#result", ".settings", "#sheet-print"):
        expect(page.locator(hidden).first).to_be_hidden()
    shown = page.evaluate(
        """() => [...document.body.querySelectorAll("*")]
            .filter(el => el.getClientRects().length && !el.closest("#sheet")
                     && !el.contains(document.getElementById("sheet")))
            .filter(el => getComputedStyle(el).visibility !== "hidden")
            .map(el => el.id || el.className || el.tagName)"""
    )
    assert [s for s in shown if s not in ("sr-only",)] == []
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(255, 255, 255)"
    pdf = page.pdf()
    assert pdf[:4] == b"%PDF"
