"""Tables played over days and Web Push in Chromium
(docs/protocol-guide.md "Correspondence tables", "Notifications"): the time left and
the tab's title on the table page, "My tables" on the home page, "Notify me" asking
only when pressed, and the service worker showing one notification per table for
pushes delivered through the DevTools protocol (`ServiceWorker.deliverPushMessage`).

Screenshots go to /tmp/shots/corr/ (360 and 1280 px, light and dark, en and de).
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

from tests.conftest import running_server
from tests.e2e.conftest import ANN, BOB, context_for, deck, screenshot_context

DAY = 3000  # seconds: 1 day a move is 50 minutes (a live countdown), 14 days 11 h
SHOTS = Path(os.environ.get("HOLLYWOOD_GIN_SHOTS", "/tmp/shots/corr"))


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("corr") / "tables.sqlite3"
    env = {
        "HOLLYWOOD_GIN_TEST_HOOKS": "1",
        "HOLLYWOOD_GIN_SECONDS_PER_DAY": str(DAY),
        "HOLLYWOOD_GIN_VAPID_SUBJECT": "mailto:e2e@example.org",
    }
    with running_server(data, env=env) as (url, _proc):
        yield url


def ann_table(context: BrowserContext, base: str, days: int, lang: str = "en") -> str:
    """A table created by this browser (Ann, seat 0, to act first), Bob joined."""
    answer = context.request.post(
        "/api/tables",
        data={
            "name": "Ann",
            "move_days": days,
            "lang": lang,
            "test_decks": [deck(ANN, BOB, "4H", [])],
            "test_first_dealer": 1,
        },
    )
    assert answer.status == 201, answer.text()
    table_id: str = answer.json()["table_id"]
    joined = httpx.post(f"{base}/api/tables/{table_id}/seats", json={"name": "Bob"}, timeout=10)
    assert joined.status_code == 201
    return table_id


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def test_time_left_title_and_my_tables(browser: Browser, base: str) -> None:
    context = context_for(browser, base)
    page = context.new_page()
    long_one = ann_table(context, base, 14)
    waiting = ann_table(context, base, 14)
    short_one = ann_table(context, base, 1)
    page.goto(f"/t/{long_one}")
    expect(page.locator("#days-left")).to_have_text(re.compile(r"^Your move · 11 hr left$"))
    expect(page).to_have_title(re.compile(r"^● Your move · "))
    page.goto(f"/t/{short_one}")
    # Under an hour: a live countdown from the server's time ("49:58").
    expect(page.locator("#days-left")).to_have_text(re.compile(r"^Your move · [45]\d:\d\d left$"))
    first = page.locator("#days-left").text_content()
    expect(page.locator("#days-left")).not_to_have_text(first or "")
    # Ann passes the upcard at one table (over her socket): it is Bob's move there.
    page.goto(f"/t/{waiting}")
    expect(page.locator("#days-left")).to_be_visible()
    page.locator("#pass").click()
    expect(page.locator("#days-left")).to_have_text(re.compile(r"^Waiting for Bob · 11 hr left$"))
    expect(page).not_to_have_title(re.compile("Your move"))
    page.goto("/")
    items = page.locator("#my-tables-list li")
    expect(items).to_have_count(3)
    # Ann's moves first, each with its time left; the opponent named; the last move.
    left = re.compile(r"^Your move · \d+ (hr|min) left$")
    expect(items.nth(0).locator(".my-turn")).to_have_text(left)
    expect(items.nth(1).locator(".my-turn")).to_have_text(re.compile(r"^Your move · "))
    expect(items.nth(2)).to_contain_text("Gin Rummy with Bob")
    expect(items.nth(2).locator(".my-turn")).not_to_have_text(re.compile("Your move"))
    expect(items.nth(2).locator(".my-last")).to_have_text("You passed")
    context.close()


def test_no_offline_banner_over_days(browser: Browser, base: str) -> None:
    """Bob never opened the page: normal on a table played over days, so no "Bob is
    offline — the game waits" there (the time left says whose move it is); a live
    table with Bob away still says he is (then how long ago he left)."""
    context = context_for(browser, base)
    page = context.new_page()
    live = context.request.post(
        "/api/tables",
        data={"name": "Ann", "test_decks": [deck(ANN, BOB, "4H", [])], "test_first_dealer": 1},
    ).json()["table_id"]
    joined = httpx.post(f"{base}/api/tables/{live}/seats", json={"name": "Bob"}, timeout=10)
    assert joined.status_code == 201
    page.goto(f"/t/{live}")
    expect(page.locator("#opp-away")).to_contain_text(re.compile(r"^Bob (is offline|left)"))
    table_id = ann_table(context, base, 2)
    page.goto(f"/t/{table_id}")
    expect(page.locator("#days-left")).to_have_text(re.compile(r"^Your move · "))
    expect(page.locator("#opp-away")).to_be_hidden()
    page.locator("#pass").click()
    expect(page.locator("#days-left")).to_have_text(re.compile(r"^Waiting for Bob · \d+ hr left$"))
    expect(page.locator("#opp-away")).to_be_hidden()
    expect(page.locator("#live")).not_to_contain_text("offline")
    context.close()


def test_notify_asks_only_when_pressed_and_one_notification_per_table(
    browser: Browser, base: str
) -> None:
    context = context_for(browser, base)
    context.grant_permissions(["notifications"], origin=base)
    asked: list[str] = []
    context.add_init_script(
        "window.__asked = 0; const ask = Notification.requestPermission.bind(Notification);"
        " Notification.requestPermission = (...a) => { window.__asked++; return ask(...a); };"
    )
    page = context.new_page()
    page.on("request", lambda r: asked.append(r.url))
    first = ann_table(context, base, 3)
    second = ann_table(context, base, 3)
    page.goto(f"/t/{first}")
    expect(page.locator("#push-notify")).to_be_visible()
    expect(page.locator("#days-left")).to_be_visible()
    assert page.evaluate("window.__asked") == 0
    assert not [u for u in asked if "/sw.js" in u or "/api/push" in u or "notify.js" in u]
    page.locator("#push-notify").click()
    for _ in range(50):  # (wait_for_function evaluates a string: the CSP refuses it)
        if page.evaluate("window.__asked") == 1:
            break
        page.wait_for_timeout(100)
    assert page.evaluate("window.__asked") == 1
    registration = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
    assert registration == base + "/"
    # Pushes delivered to the service worker: one notification per table, the newer
    # replacing the older.
    cdp = context.new_cdp_session(page)
    ids: list[str] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: ids.extend(r["registrationId"] for r in e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    for _ in range(50):  # the registrations come as an event
        if ids:
            break
        page.wait_for_timeout(100)
    assert ids
    for table, body in ((first, "one"), (second, "two"), (first, "three")):
        data = {
            "table": table,
            "kind": "your_move",
            "title": "Your move",
            "body": body,
            "url": f"/t/{table}",
        }
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": base, "registrationId": ids[-1], "data": json.dumps(data)},
        )
        # One at a time, as a push service sends a seat's messages: each shown before
        # the next is delivered (the worker handles push events side by side, so two
        # delivered in the same instant may be shown in either order).
        for _ in range(200):  # the service worker shows it in its own time
            shown = page.evaluate(
                "navigator.serviceWorker.ready.then(r => r.getNotifications())"
                ".then(ns => ns.map(n => [n.tag, n.body]))"
            )
            if [table, body] in shown:
                break
            page.wait_for_timeout(100)
    assert sorted(shown) == sorted([[first, "three"], [second, "two"]])
    context.close()


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "de"])
def test_screenshots(browser: Browser, base: str, width: int, scheme: str, lang: str) -> None:
    context = screenshot_context(browser, base, width, scheme, lang)
    page = context.new_page()
    table_id = ann_table(context, base, 1, lang)
    ann_table(context, base, 14, lang)
    page.goto(f"/t/{table_id}")
    expect(page.locator("#days-left")).to_be_visible()
    page.locator("#days-left").scroll_into_view_if_needed()
    shoot(page, f"table-{lang}-{scheme}-{width}")
    page.locator("#push-box").scroll_into_view_if_needed()
    shoot(page, f"notify-{lang}-{scheme}-{width}")
    page.goto("/")
    page.locator("#my-tables").scroll_into_view_if_needed()
    expect(page.locator("#my-tables-list li").first).to_be_visible()
    shoot(page, f"home-{lang}-{scheme}-{width}")
    page.locator("details.more-options summary").first.click()
    page.locator("#move-days").scroll_into_view_if_needed()
    shoot(page, f"create-{lang}-{scheme}-{width}")
    context.close()
