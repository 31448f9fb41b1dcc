"""A record between friends in Chromium
(docs/protocol-guide.md "A record between friends"): the table page's score sheet,
its match result and the home page's "My tables" say who leads in matches at this
table, in the language's plural forms.

Screenshots go to /tmp/shots/days/ (360 and 1280 px, light and dark, en and de).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from websockets.sync.client import connect

from tests.conftest import running_server
from tests.e2e.conftest import ANN, BOB, context_for, deck, screenshot_context

SHOTS = Path(os.environ.get("HOLLYWOOD_GIN_SHOTS", "/tmp/shots/days"))


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("record") / "tables.sqlite3"
    with running_server(data, env={"HOLLYWOOD_GIN_TEST_HOOKS": "1"}) as (url, _proc):
        yield url


def friends_table(context: BrowserContext, base: str, lang: str = "en") -> tuple[str, str, str]:
    """A table played over days made by this browser (Ann), Bob joined: (id, Ann's
    token, Bob's token). One hand is a match (`hand` scoring)."""
    answer = context.request.post(
        "/api/tables",
        data={
            "name": "Ann",
            "move_days": 2,
            "scoring": "hand",
            "lang": lang,
            "test_decks": [deck(ANN, BOB, "4H", [])] * 8,
            "test_first_dealer": 1,
        },
    )
    assert answer.status == 201, answer.text()
    table_id: str = answer.json()["table_id"]
    joined = httpx.post(f"{base}/api/tables/{table_id}/seats", json={"name": "Bob"}, timeout=10)
    assert joined.status_code == 201
    return table_id, answer.json()["token"], joined.json()["token"]


def send(base: str, table_id: str, token: str, kind: str) -> None:
    """One action of a seat over its own socket; returns once the state moved on."""
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    with connect(url, additional_headers={"Cookie": f"gin_seat_{table_id}={token}"}) as ws:
        state = next(m for m in map(json.loads, iter(ws.recv, None)) if m["type"] == "state")
        action = {"type": "action", "version": state["version"], "action": {"kind": kind}}
        ws.send(json.dumps(action))
        while True:
            msg = json.loads(ws.recv(timeout=10))
            assert msg["type"] != "error", msg
            if msg["type"] == "state" and msg["version"] > state["version"]:
                return


def resign_then_rematch(base: str, table_id: str, loser: str, other: str) -> None:
    send(base, table_id, loser, "resign")
    send(base, table_id, loser, "new_match")
    send(base, table_id, other, "new_match")


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def test_the_record_on_the_table_page_and_in_my_tables(browser: Browser, base: str) -> None:
    context = context_for(browser, base)
    page = context.new_page()
    table_id, ann, bob = friends_table(context, base)
    page.goto(f"/t/{table_id}")
    expect(page.locator("#days-left")).to_be_visible()
    expect(page.locator("#match-record")).to_be_hidden()  # no match ended yet
    send(base, table_id, bob, "resign")
    record = page.locator("#match-record")
    expect(record).to_have_text("You lead Bob 1–0 after one match")
    # The first match's end screens say only who won it (the record would repeat it).
    expect(page.locator("#moment-title")).to_be_visible()
    expect(page.locator("#moment-record")).to_be_hidden()
    expect(page.locator("#result-record")).to_be_hidden()
    send(base, table_id, bob, "new_match")
    send(base, table_id, ann, "new_match")
    resign_then_rematch(base, table_id, ann, bob)
    expect(record).to_have_text("You and Bob are level at 1–1 in matches")
    resign_then_rematch(base, table_id, ann, bob)
    expect(record).to_have_text("Bob leads you 2–1 in matches")
    send(base, table_id, bob, "resign")
    expect(record).to_have_text("You and Bob are level at 2–2 in matches")
    # From the second match on, the match's end says it as well, on every screen (the
    # sheet folds on a phone).
    expect(page.locator("#moment-record")).to_have_text("You and Bob are level at 2–2 in matches")
    expect(page.locator("#result-record")).to_have_text("You and Bob are level at 2–2 in matches")
    # A spectator's words name both.
    watcher = context_for(browser, base).new_page()
    watcher.goto(f"/t/{table_id}")
    expect(watcher.locator("#match-record")).to_have_text("Ann and Bob are level at 2–2 in matches")
    watcher.context.close()
    # "My tables": the table stays after its match (played over days: a rematch
    # waits), with the record from this seat's side.
    page.goto("/")
    item = page.locator("#my-tables-list li", has_text="Gin Rummy with Bob")
    expect(item.locator(".my-record")).to_have_text("You and Bob are level at 2–2 in matches")
    expect(item.locator(".my-turn")).to_have_text(re.compile("^The match is over$"))
    send(base, table_id, bob, "new_match")  # Bob asks for a rematch: Ann's move now
    page.reload()
    expect(item.locator(".my-turn")).to_have_text(re.compile(r"^Your move · "))
    context.close()


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "de"])
def test_screenshots(browser: Browser, base: str, width: int, scheme: str, lang: str) -> None:
    context = screenshot_context(browser, base, width, scheme, lang)
    page = context.new_page()
    table_id, ann, bob = friends_table(context, base, lang)
    resign_then_rematch(base, table_id, bob, ann)
    resign_then_rematch(base, table_id, bob, ann)
    send(base, table_id, ann, "resign")
    page.goto(f"/t/{table_id}")
    # The match screen says it first; then the result panel, and the sheet.
    expect(page.locator("#moment-record")).to_be_visible()
    shoot(page, f"record-moment-{lang}-{scheme}-{width}")
    page.locator("#moment-close").click()
    expect(page.locator("#result-record")).to_be_visible()
    page.locator("#result-record").scroll_into_view_if_needed()
    shoot(page, f"record-result-{lang}-{scheme}-{width}")
    if width < 600:
        page.locator("#sheet-toggle").click()
    page.locator("#match-record").scroll_into_view_if_needed()
    expect(page.locator("#match-record")).to_be_visible()
    shoot(page, f"record-sheet-{lang}-{scheme}-{width}")
    page.goto("/")
    page.locator("#my-tables").scroll_into_view_if_needed()
    expect(page.locator("#my-tables-list .my-record").first).to_be_visible()
    shoot(page, f"record-home-{lang}-{scheme}-{width}")
    context.close()
