"""The replay page of a finished hand (`/t/{id}/hands/{n}`) in Chromium: every move
steps through, the cards are the record's at each step, one seat's view never shows
the other's hidden cards before the end, the coach's marks and "Find the better move"."""

from __future__ import annotations

import random
from typing import Any

import httpx
from playwright.sync_api import Page, Route, expect

from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from tests.bots.coach_hands import GIN_PASSED
from tests.e2e.conftest import ANN, NewContext, Server, axe_violations, deck
from tests.e2e.scripted import play_script


def positions(record: dict[str, Any]) -> list[tuple[list[set[str]], str | None, list[set[str]]]]:
    """From the record alone, with the engine: after each action, both seats' cards,
    the pile's top, and the cards each seat took from the pile and still holds."""
    match = Match(
        Options.from_dict(record["options"]),
        deck_orders=[record["deck"]],
        first_dealer=record["dealer"],
        rng=random.Random(1),
    )
    match.start()
    hand = match.hand
    assert hand is not None
    known: list[set[str]] = [set(), set()]

    def now() -> tuple[list[set[str]], str | None, list[set[str]]]:
        top = str(hand.discard[-1]) if hand.discard else None
        return [{str(c) for c in hand.cards[s]} for s in (0, 1)], top, [set(k) for k in known]

    out = [now()]
    for entry in record["actions"]:
        seat, action = entry["seat"], parse_action(entry["action"])
        top = str(hand.discard[-1]) if hand.discard else None
        match.apply(seat, action)
        if action.kind in ("take_upcard", "draw_discard") and top:
            known[seat].add(top)
        if action.kind == "discard" and action.card is not None:
            known[seat].discard(str(action.card))
        out.append(now())
    return out


def faces(page: Page, selector: str) -> set[str]:
    found: list[str] = page.eval_on_selector_all(
        f"{selector} .card[data-card]", "els => els.map(e => e.dataset.card)"
    )
    return set(found)


def finished_table(server: Server) -> tuple[str, list[str], dict[str, Any]]:
    script = [(a["seat"], a["action"]) for a in GIN_PASSED["actions"]]
    # GIN_PASSED's seat 0 deals, as the table's first dealer here.
    table_id, tokens = play_script(server.base, GIN_PASSED["deck"], script)
    record = httpx.get(f"{server.base}/api/tables/{table_id}/hands/1", timeout=10).json()
    assert [a["action"] for a in record["actions"]] == [a["action"] for a in GIN_PASSED["actions"]]
    return table_id, tokens, record


def test_the_replay_steps_through_every_move_from_each_view(
    server: Server, new_context: NewContext
) -> None:
    table_id, _tokens, record = finished_table(server)
    expected = positions(record)
    last = len(expected) - 1
    context, watch = new_context(bypass_csp=True)
    page = context.new_page()
    for seat in (1, 0):
        page.goto(f"/t/{table_id}/hands/1?seat={seat}")
        expect(page.locator("#step-caption")).to_contain_text("1")
        other = 1 - seat
        for k in range(last + 1):
            if k:
                page.locator("#step-next").click()
            expect(page.locator("#step-count")).to_have_text(f"{k} / {last}")
            hands, top, known = expected[k]
            assert faces(page, "#me-cards") == hands[seat], k
            assert faces(page, "#discard") == ({top} if top else set())
            shown = faces(page, "#opp-cards")
            if k < last:
                # Hidden cards stay backs: only those it took from the pile show.
                assert shown == known[other] & hands[other], k
                assert page.locator("#opp-cards .card-back").count() == len(hands[other] - shown)
                # Nowhere on the page is a card face of the other's hidden hand.
                everywhere = faces(page, "body")
                assert not everywhere & (hands[other] - known[other]), k
            else:
                assert shown == hands[other]  # the end position: everything is public
                expect(page.locator("#result")).to_be_visible()
        # Back to the start with the keyboard, and forward again.
        page.locator("body").press("Home")
        expect(page.locator("#step-count")).to_have_text(f"0 / {last}")
        page.locator("body").press("ArrowRight")
        expect(page.locator("#step-count")).to_have_text(f"1 / {last}")
    # Both hands: every step shows both seats' cards as the record has them.
    page.locator("#view-both").check()
    page.locator("#step-first").click()
    for k in range(last + 1):
        if k:
            page.locator("#step-next").click()
        hands, _top, _known = expected[k]
        assert faces(page, "#me-cards") | faces(page, "#opp-cards") == hands[0] | hands[1], k
    # The slider goes anywhere.
    page.locator("#step-slider").fill("3")
    expect(page.locator("#step-count")).to_have_text(f"3 / {last}")
    watch.assert_clean()


def test_the_coach_marks_and_find_the_better_move(server: Server, new_context: NewContext) -> None:
    table_id, tokens, _record = finished_table(server)
    context, watch = new_context(bypass_csp=True)
    context.add_cookies(
        [{"name": f"gin_seat_{table_id}", "value": tokens[1], "url": f"{server.base}/t/{table_id}"}]
    )
    page = context.new_page()
    page.goto(f"/t/{table_id}/hands/1")
    # Bob (seat 1) reads his own seat's view first, and his review once it is there.
    expect(page.locator("#view-1")).to_be_checked()
    expect(page.locator("#review-verdict")).not_to_be_empty(timeout=60_000)
    # Passing the upcard that made gin is marked at the move (step 1).
    expect(page.locator("#timeline li").nth(1)).to_have_attribute("data-label", "blunder")
    page.locator("#timeline li").nth(1).locator("button").click()
    expect(page.locator("#coach-box")).to_be_visible()
    expect(page.locator("#coach-line")).to_contain_text("??")
    assert axe_violations(page) == []
    # Find the better move: the position before the offer, the answer hidden.
    page.locator("#quiz-start").click()
    expect(page.locator("#step-count")).to_have_text("0 / 8")
    expect(page.locator("#coach-box")).to_be_hidden()
    choices = page.locator("#quiz-choices button")
    expect(choices).to_have_count(2)
    choices.first.click()  # take the upcard: the coach's choice
    expect(page.locator("#quiz-answer")).not_to_be_empty()
    expect(page.locator("#coach-box")).to_be_visible()
    watch.assert_clean()


def test_no_replay_while_the_hand_is_played(server: Server, new_context: NewContext) -> None:
    script = [(a["seat"], a["action"]) for a in GIN_PASSED["actions"]][:3]
    table_id, _tokens = play_script(server.base, GIN_PASSED["deck"], script)
    assert httpx.get(f"{server.base}/t/{table_id}/hands/1", timeout=10).status_code == 404
    r = httpx.get(f"{server.base}/api/tables/{table_id}/hands/1/review?seat=1", timeout=10)
    assert r.status_code == 404 and r.json()["error"] == "unknown_hand"


def test_stepping_keeps_the_place_on_a_phone(server: Server, new_context: NewContext) -> None:
    """Stepping never scrolls the page (the timeline, far below on a phone, scrolls
    alone), and a keyboard user on the timeline stays on it."""
    table_id, _tokens, record = finished_table(server)
    context, watch = new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    page.goto(f"/t/{table_id}/hands/1?seat=1")
    expect(page.locator("#step-count")).to_have_text(f"0 / {len(record['actions'])}")
    page.locator("#step-next").scroll_into_view_if_needed()
    before = page.evaluate("window.scrollY")
    for k in range(1, 5):
        page.locator("#step-next").click()
        expect(page.locator("#step-count")).to_have_text(f"{k} / {len(record['actions'])}")
        assert page.evaluate("window.scrollY") == before
    page.locator("#timeline button").nth(1).focus()
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#step-count")).to_have_text(f"2 / {len(record['actions'])}")
    focused = page.evaluate("document.activeElement.dataset.step")
    assert focused == "2"
    watch.assert_clean()


# Bob holds no meld at all (deadwood 8 x 10 + 9 + 8 = 97): Ann takes the upcard 10H
# onto 7H-8H-9H and goes gin throwing KS: 97 + 25 = 122 points, over the target of
# 100 in one hand, so the hand ends the game.
BOB_HIGH = ["KC", "QD", "JH", "TS", "9C", "8D", "KH", "QS", "JD", "TC"]
GAME_ENDING = [(0, {"kind": "take_upcard"}), (0, {"kind": "knock", "discard": "KS"})]

# The result's lines, top to bottom, and for each two that show, the room between
# them beyond the larger of their margins (what a block's collapsing margins leave):
# an empty line (gin has no lay-offs) must add none.
EXTRA_ROOM = """() => {
    const lines = ["result-math", "result-points", "result-layoffs", "result-games",
                   "result-bonuses", "result-hands"].map((id) => document.getElementById(id));
    const shown = lines.filter((el) => el.getBoundingClientRect().height > 0);
    const px = (el, side) => parseFloat(getComputedStyle(el)[side]);
    return shown.slice(1).map((b, i) => {
        const a = shown[i];
        const room = b.getBoundingClientRect().top - a.getBoundingClientRect().bottom;
        return [a.id, b.id, Math.round(room - Math.max(px(a, "marginBottom"), px(b, "marginTop")))];
    });
}"""


BONUS_ROWS = """() => [...document.querySelectorAll("#result-bonuses tr")].map(
    (row) => [...row.cells].map((c) => c.textContent))"""


def test_the_end_of_a_hand_that_ends_a_game(server: Server, new_context: NewContext) -> None:
    """The replay's result panel is the table's: the bonuses of the game the hand
    finished (from the record's sheet as it stood after the hand) exactly as the table
    page showed them, its empty lines leave no gap, its markup passes axe, and on a
    phone it folds away from the board as at the table."""
    table_id, tokens = play_script(
        server.base,
        deck(ANN, BOB_HIGH, "TH", []),
        GAME_ENDING,
        scoring="game",
        test_first_dealer=1,
    )
    context, watch = new_context(bypass_csp=True)
    host = server.base.split("//", 1)[1].split(":")[0]
    context.add_cookies(
        [{"name": f"gin_seat_{table_id}", "value": tokens[0], "domain": host, "path": "/"}]
    )
    page = context.new_page()
    # The table page at that hand's end, as Ann sees it.
    page.goto(f"/t/{table_id}")
    expect(page.locator("#result-bonuses table")).to_be_visible()
    at_table = page.locator("#result-bonuses").inner_html()
    room_at_table = page.evaluate(EXTRA_ROOM)
    page.goto(f"/t/{table_id}/hands/1?seat=0")
    page.locator("#step-last").click()
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#result-title")).to_have_text("Ann went gin")
    expect(page.locator("#result-math")).to_have_text("Gin: 97 + 25 = 122")
    expect(page.locator("#result-games")).to_have_text("Points entered in game 1")
    expect(page.locator("#result-layoffs")).to_be_empty()  # gin: nothing laid off
    # docs/rules.md "Scoring the match": Bob scored nothing in the game, a shutout: 200
    # for the game; 25 for Ann's one won hand, nothing for Bob.
    expect(page.locator("#result-bonuses table")).to_be_visible()
    assert page.evaluate(BONUS_ROWS) == [
        ["", "Ann", "Bob"],
        ["You win game 1, 122 to 0"],
        ["Game bonus", "200shutout", "–"],
        ["Line bonus", "25 = 1 × 25", "–"],
    ]
    assert page.locator("#result-bonuses").inner_html() == at_table
    # The empty lay-offs line adds no room; the bonus table keeps its own margin
    # (0.5rem, through its box), as at the table.
    room = page.evaluate(EXTRA_ROOM)
    assert room[:3] == [
        ["result-math", "result-points", 0],
        ["result-points", "result-games", 0],
        ["result-games", "result-bonuses", 0],
    ]
    assert room == room_at_table
    # No Next hand, no deck check here: those are the table's.
    expect(page.locator("#result .result-actions, #result-foot")).to_have_count(0)
    assert axe_violations(page) == []
    # On a phone the panel lies over the board; its button folds it to its title.
    page.set_viewport_size({"width": 360, "height": 740})
    fold = page.locator("#result-fold")
    expect(fold).to_have_attribute("aria-expanded", "true")
    fold.click()
    expect(page.locator("#result-body")).to_be_hidden()
    expect(fold).to_have_attribute("aria-expanded", "false")
    expect(fold).to_have_text("Show the result")
    fold.click()
    expect(page.locator("#result-body")).to_be_visible()
    expect(fold).to_have_text("Show the table")
    assert axe_violations(page) == []
    watch.assert_clean()


def test_a_review_arriving_leaves_the_keyboard_where_it_was(
    server: Server, new_context: NewContext
) -> None:
    """The reviews come when the coach is done, while the player may be on the
    timeline: the page draws the marks but leaves the focus on the move it was on
    (it once moved it to the current move, so Enter then stayed there)."""
    table_id, tokens, record = finished_table(server)
    context, watch = new_context()
    context.add_cookies(
        [{"name": f"gin_seat_{table_id}", "value": tokens[1], "url": f"{server.base}/t/{table_id}"}]
    )
    page = context.new_page()
    held: list[Route] = []
    # the reviews are answered only once the focus is placed
    page.route("**/review?seat=*", lambda route: held.append(route))
    page.goto(f"/t/{table_id}/hands/1")  # Bob's own view, and his review
    last = len(record["actions"])
    expect(page.locator("#step-count")).to_have_text(f"0 / {last}")
    page.locator("#step-next").click()
    page.locator("#step-next").click()
    expect(page.locator("#step-count")).to_have_text(f"2 / {last}")
    page.locator("#timeline button").nth(0).focus()
    for _ in range(100):  # both seats' reviews asked for (the handler runs as events come)
        if len(held) == 2:
            break
        page.wait_for_timeout(50)
    assert len(held) == 2
    for route in held:
        route.continue_()
    page.unroute("**/review?seat=*")  # the page asks again while the coach is busy (202)
    # Bob's review marks his pass of the upcard that made gin (step 1)
    expect(page.locator("#timeline li").nth(1)).to_have_attribute(
        "data-label", "blunder", timeout=60_000
    )
    assert page.evaluate("document.activeElement.dataset.step") == "0"
    page.keyboard.press("Enter")
    expect(page.locator("#step-count")).to_have_text(f"0 / {last}")
    watch.assert_clean()


def test_the_coach_shows_its_progress_while_it_works(
    server: Server, new_context: NewContext
) -> None:
    """While the review is computed the page draws its `202`'s progress (`done` of
    `of`) as a bar, waits out a `429` (too many reviews under way) without giving up,
    and hides the bar once the review is there."""
    table_id, tokens, _record = finished_table(server)
    answers: list[tuple[int, dict[str, Any]]] = []
    seen: list[int] = []

    def review(route: Route) -> None:
        if "seat=1" in route.request.url and answers:
            status, body = answers.pop(0)
            seen.append(status)
            route.fulfill(status=status, json=body)
        else:
            route.continue_()

    for width, scheme, lang in (
        (360, "light", "en"),
        (1280, "dark", "de"),
        (360, "dark", "de"),
        (1280, "light", "en"),
    ):
        answers[:] = [
            (202, {"status": "computing", "done": 0, "of": 5}),
            (202, {"status": "computing", "done": 2, "of": 5}),
            (429, {"error": "rate_limited", "message": "later"}),
        ]
        context, watch = new_context(
            viewport={"width": width, "height": 800}, color_scheme=scheme, locale=lang
        )
        context.add_cookies(
            [
                {
                    "name": f"gin_seat_{table_id}",
                    "value": tokens[1],
                    "url": f"{server.base}/t/{table_id}",
                }
            ]
        )
        page = context.new_page()
        page.route("**/review?seat=*", review)
        page.goto(f"/t/{table_id}/hands/1")
        bar = page.locator("#review-progress")
        expect(bar).to_have_attribute("max", "5")
        expect(bar).to_have_attribute("value", "2")
        expect(bar).to_be_visible()
        page.screenshot(path=f"/tmp/shots/coach/progress-{width}-{scheme}-{lang}.png")
        # After the 429 the page asks again, and the real review comes.
        expect(page.locator("#review-verdict")).not_to_be_empty(timeout=60_000)
        expect(bar).to_be_hidden()
        assert 429 in seen
        page.screenshot(path=f"/tmp/shots/coach/ready-{width}-{scheme}-{lang}.png")
        # The browser logs the 429 it was answered; nothing else.
        assert [e for e in watch.errors if "429" not in e] == [] and watch.foreign == []
        context.close()
