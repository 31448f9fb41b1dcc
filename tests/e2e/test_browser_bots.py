"""Bot seats in Chromium: a seat played by a program is marked as one (its name, a
badge, the sheet), the person is told before the first move, the invitation of a
bot's table says so, and the home page's "No bots" choice makes a table that refuses
bots. Screenshots of the badge at 360 and 1280 px, light and dark, in German."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import NewContext, Server, axe_violations, take_seat

SHOTS = Path("/tmp/shots/bots")


def bot_joins(server: Server, table_id: str, name: str) -> None:
    answer = httpx.post(
        f"{server.base}/api/tables/{table_id}/seats", json={"name": name, "bot": True}, timeout=10
    )
    assert answer.status_code == 201, answer.text


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("width", "height"), [(360, 740), (1280, 900)])
def test_a_bot_opponent_is_marked_and_announced(
    server: Server, new_context: NewContext, width: int, height: int, scheme: str
) -> None:
    made = server.create_table(name="Ann", scoring="hollywood")
    table_id = made["table_id"]
    context, watch = new_context(
        viewport={"width": width, "height": height},
        color_scheme=scheme,
        locale="de-DE",
        has_touch=width < 500,
        bypass_csp=True,
    )
    page = context.new_page()
    take_seat(page, f"/t/{table_id}/seat/{made['token']}")
    expect(page.locator("#invite")).to_be_visible()
    expect(page.locator("#opp-bot")).to_be_hidden()
    bot_joins(server, table_id, "Robo")
    # The opponent: its own name, a badge that says bot, a note before the first move.
    expect(page.locator("#opp-name")).to_have_text("Robo")
    badge = page.locator("#opp-bot")
    expect(badge).to_be_visible()
    expect(badge).to_have_text("Bot")
    expect(badge).to_have_attribute("title", "Auf diesem Platz spielt ein Programm")
    note = page.locator("#bot-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Robo ist ein Bot")
    expect(page.locator("#me-bot")).to_be_hidden()  # the person is no bot
    # The sheet names it as a bot, and the spoken line said so once.
    expect(page.locator("#sheet")).to_contain_text("Robo (Bot)")
    expect(page.locator("#live")).to_contain_text("Robo ist ein Bot")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"table-bot-{width}-{scheme}-de.png"), full_page=True)
    assert axe_violations(page) == []
    watch.assert_clean()


def test_a_bots_invitation_says_it_is_a_bot(server: Server, new_context: NewContext) -> None:
    made = httpx.post(
        f"{server.base}/api/tables", json={"name": "Robo", "bot": True}, timeout=10
    ).json()
    context, watch = new_context(locale="hu-HU", viewport={"width": 360, "height": 740})
    page = context.new_page()
    page.goto(f"/t/{made['table_id']}")
    expect(page.locator("#join")).to_be_visible()
    expect(page.locator("#join-title")).to_contain_text("Robo (bot)")
    expect(page.locator("#join-bot")).to_be_visible()
    expect(page.locator("#join-bot")).to_contain_text("Robo egy bot")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "invite-bot-360-light-hu.png"), full_page=True)
    # a person joins: the bot is the opponent, marked, before any move
    page.locator("#join-form button[type=submit]").click()
    expect(page.locator("#opp-bot")).to_be_visible()
    expect(page.locator("#bot-note")).to_contain_text("Robo egy bot")
    watch.assert_clean()


def test_the_home_pages_no_bots_choice_makes_a_table_that_refuses_bots(
    server: Server, new_context: NewContext
) -> None:
    context, watch = new_context(locale="da-DK", viewport={"width": 360, "height": 740})
    page = context.new_page()
    page.goto("/da/")
    box = page.locator("#no-bots")
    expect(box).not_to_be_checked()  # bots welcome by default
    expect(box).to_be_hidden()  # a rarely changed option: under "More options", closed
    page.get_by_text("Flere valg").click()
    page.locator(".no-bots").get_by_text("Ingen bots").click()
    expect(box).to_be_checked()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#create-table").screenshot(path=str(SHOTS / "home-no-bots-360-da.png"))
    page.locator("button[value=friend]").click()
    page.wait_for_url("**/t/*")
    table_id = page.url.rsplit("/", 1)[-1].split("?")[0]
    facts = httpx.get(f"{server.base}/api/tables/{table_id}", timeout=10).json()
    assert facts["bots"] is False
    answer = httpx.post(
        f"{server.base}/api/tables/{table_id}/seats", json={"bot": True}, timeout=10
    )
    assert (answer.status_code, answer.json()["error"]) == (403, "no_bots")
    watch.assert_clean()
