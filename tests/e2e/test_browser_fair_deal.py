"""Deals nobody can choose, in Chromium: the home page sends the browser's own 16 bytes
with the new table, the page keeps them (a reload does not lose them), and after the
hand it checks the deal and says so; a reveal tampered with on the way shows the
warning naming what did not match.

The deal is derived for real (docs/protocol-guide.md "Deals nobody can choose"). Only
the server secret is chosen, with the test hook `test_secrets`, after the browser's
entropy is seen in its create request, so that the first hand is one the player can
knock at once (a search of a few hundred secrets); the entropy itself is the page's
`crypto.getRandomValues`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from playwright.sync_api import Page, Route, WebSocketRoute, expect

from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.melds import deadwood
from tests.e2e.conftest import NewContext, Server
from tests.engine.test_fair_deal import (
    VECTOR_BOTH,
    VECTOR_SEAT1_MISSING,
    VECTOR_ZERO_SECRET_NO_ENTROPY,
    reference_deck,
)


def knockable_secret(entropy: str, seat: int = 0) -> str:
    """A server secret whose deal lets `seat`, the non-dealer, take the upcard and knock
    (`entropy` is that seat's, the other adds none)."""
    for n in range(1, 100_000):
        secret = n.to_bytes(32, "big")
        parts = [None, None]
        parts[seat] = bytes.fromhex(entropy)
        order = reference_deck(secret, parts[0], parts[1])
        mine, upcard = order[0:20:2], order[20]
        cards = [Card.parse(c) for c in [*mine, upcard]]
        best = min(deadwood([c for c in cards if c != Card.parse(d)]) for d in mine)
        if 1 <= best <= 10:
            return secret.hex()
    raise AssertionError("no knockable deal found")


def create_from_home(page: Page) -> dict[str, Any]:
    """Create a table against the computer from the home page; the route adds the test
    hook's secret for the entropy the page sent. Returns what was sent."""
    sent: dict[str, Any] = {}

    def handle(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        sent.update(body)
        assert re.fullmatch(r"[0-9a-f]{32}", body["entropy"])
        body.update(test_secrets=[knockable_secret(body["entropy"])], test_first_dealer=1)
        route.continue_(post_data=json.dumps(body))

    page.route("**/api/tables", handle)
    page.goto("/")
    page.locator("#name").fill("Ann")
    page.locator('button[value="computer"]').click()
    page.wait_for_url(re.compile(r"/t/[^/?]+$"))
    return sent


def knock(page: Page) -> None:
    page.locator("#take").click()
    page.locator("#knock").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#result-title")).to_be_visible()


def test_the_deal_is_checked_with_the_players_secret(
    server: Server, new_context: NewContext
) -> None:
    context, watch = new_context()
    page = context.new_page()
    sent = create_from_home(page)
    table_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#hand button.card")).to_have_count(10)
    page.reload()  # what the browser sent survives a reload
    expect(page.locator("#hand button.card")).to_have_count(10)
    kept = page.evaluate(f"localStorage.getItem('gin.deals.{table_id}')")
    assert json.loads(kept)["1"]["entropy"] == sent["entropy"]
    knock(page)
    expect(page.locator("#verify")).to_have_text("Deal checked: shuffled with your secret")
    expect(page.locator("#verify")).to_have_class(re.compile(r"\bok\b"))
    # The next deal: the page sends fresh bytes of its own with next_hand, kept too.
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: frames.append(str(f))))
    page.reload()
    expect(page.locator("#verify")).to_have_text("Deal checked: shuffled with your secret")
    page.locator("#next-hand").click()
    expect(page.locator("#hand button.card")).to_have_count(10)
    deals = json.loads(page.evaluate(f"localStorage.getItem('gin.deals.{table_id}')"))
    assert re.fullmatch(r"[0-9a-f]{32}", deals["2"]["entropy"])
    assert deals["2"]["entropy"] != sent["entropy"]
    assert re.fullmatch(r"[0-9a-f]{64}", deals["2"]["commitment"])
    next_hand = [json.loads(f) for f in frames if '"next_hand"' in f]
    assert [m["action"]["entropy"] for m in next_hand] == [deals["2"]["entropy"]]
    watch.assert_clean()


def tamper(ws: WebSocketRoute) -> None:
    """Pass every frame, but change seat 0's entropy in a revealed deck."""
    server = ws.connect_to_server()
    ws.on_message(lambda m: server.send(m))

    def to_page(message: str | bytes) -> None:
        text = message if isinstance(message, str) else message.decode()
        body = json.loads(text)
        reveal = (body.get("hand") or {}).get("result", {}).get("deck_reveal")
        if reveal:
            reveal["entropy"][0] = "ab" * 16
            text = json.dumps(body)
        ws.send(text)

    server.on_message(to_page)


def test_a_tampered_reveal_shows_the_warning(server: Server, new_context: NewContext) -> None:
    context, _watch = new_context()
    page = context.new_page()
    page.route_web_socket(re.compile(r"^wss?://"), tamper)
    create_from_home(page)
    expect(page.locator("#hand button.card")).to_have_count(10)
    knock(page)
    verify = page.locator("#verify")
    expect(verify).to_contain_text("Warning: the deal check failed")
    expect(verify).to_contain_text("your secret was not used")
    expect(verify).to_contain_text("the deck is not the one the secrets give")
    expect(verify).to_have_class(re.compile(r"\bbad\b"))


# The joiner's bytes are fixed here (only 16-byte requests, which only the deal makes),
# so that the secret chosen at the table's creation gives a hand it can knock at once.
FIXED_BYTES = """
const real = crypto.getRandomValues.bind(crypto);
crypto.getRandomValues = (a) => (a.length === 16 ? a.fill(0x5a) : real(a));
"""


def test_the_joiner_sends_its_secret_and_the_deal_is_checked(
    server: Server, new_context: NewContext
) -> None:
    secret = knockable_secret("5a" * 16, seat=1)
    table = server.create_table(
        name="Ann", scoring="game", test_secrets=[secret], test_first_dealer=0
    )
    context, watch = new_context()
    context.add_init_script(FIXED_BYTES)
    page = context.new_page()
    page.goto(f"/t/{table['table_id']}")
    page.locator("#join-name").fill("Bob")
    page.locator("#join-form button[type=submit]").click()
    expect(page.locator("#hand button.card")).to_have_count(10)
    knock(page)
    expect(page.locator("#verify")).to_have_text("Deal checked: shuffled with your secret")
    record = server_record(server, table["table_id"], 1)
    assert record["entropy"] == [None, "5a" * 16] and record["server_secret"] == secret
    watch.assert_clean()


def server_record(server: Server, table_id: str, n: int) -> dict[str, Any]:
    answer = httpx.get(f"{server.base}/api/tables/{table_id}/hands/{n}", timeout=10)
    assert answer.status_code == 200
    result: dict[str, Any] = answer.json()
    return result


def fairness_module(page: Page) -> str:
    """The stamped URL of static/js/fairness.js, as the table page loads it."""
    src = page.evaluate(
        "[...document.querySelectorAll('script[src]')].map(s => s.src)"
        ".find(s => s.includes('/js/'))"
    )
    return re.sub(r"/js/[^/?]+(\?.*)?$", "/js/fairness.js", src)


def test_the_pages_derivation_gives_the_fixed_vectors_and_keeps_few_tables(
    server: Server, new_context: NewContext
) -> None:
    table = server.create_table(name="Ann")
    context, watch = new_context()
    page = context.new_page()
    page.goto(f"/t/{table['table_id']}")
    url = fairness_module(page)
    decks = page.evaluate(
        """async (url) => {
            const f = await import(url);
            const hex = (b) => b.toString(16).padStart(2, "0");
            const secret = [...Array(32).keys()].map(hex).join("");
            return [
                await f.deriveDeck(secret, ["00112233445566778899aabbccddeeff", "ff".repeat(16)]),
                await f.deriveDeck(secret, ["00112233445566778899aabbccddeeff", null]),
                await f.deriveDeck("00".repeat(32), [null, null]),
            ];
        }""",
        url,
    )
    assert decks == [VECTOR_BOTH, VECTOR_SEAT1_MISSING, VECTOR_ZERO_SECRET_NO_ENTROPY]
    # What the browser sent for each deal is kept by store.js (fairness.js, the check,
    # is loaded only when a hand ends).
    kept = page.evaluate(
        """async (url) => {
            const f = await import(url.replace("/fairness.js", "/store.js"));
            localStorage.clear();
            for (let i = 0; i < 45; i += 1) {
                const old = JSON.stringify({1: {entropy: "x", at: i}});
                localStorage.setItem(`gin.deals.old${i}`, old);
            }
            localStorage.setItem("gin.sort", "rank");
            f.rememberDeal("new", 1, "c".repeat(64), "e".repeat(32));
            return Object.keys(localStorage).sort();
        }""",
        url,
    )
    deals = [k for k in kept if k.startswith("gin.deals.")]
    assert len(deals) == 40 and "gin.deals.new" in deals and "gin.sort" in kept
    assert "gin.deals.old44" in deals and "gin.deals.old0" not in deals
    watch.assert_clean()
