"""A host on the LAN (http://192.168.x.x) is not a secure context: no `crypto.subtle`.
The deck must still be verified there. Chromium maps the name gin.test to loopback,
so the page is served from a plain-HTTP origin that is neither HTTPS nor localhost."""

from __future__ import annotations

import os
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from tests.e2e.conftest import ANN, BOB, CHROMIUM_ARGS, NewContext, Server, deck, take_seat
from tests.e2e.test_browser_fair_deal import create_from_home, knock


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=os.environ.get("HOLLYWOOD_GIN_CHROMIUM", "/usr/bin/chromium"),
            args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP gin.test 127.0.0.1"],
        )
        yield chromium
        chromium.close()


def lan_base(server: Server) -> str:
    return f"http://gin.test:{urlsplit(server.base).port}"


def test_the_deck_is_verified_outside_a_secure_context(
    server: Server, new_context: NewContext
) -> None:
    # Upcard 2S: Ann takes it and knocks throwing KS (deadwood 2 against Bob's 5).
    table = server.create_table(
        name="Ann", test_decks=[deck(ANN, BOB, "2S", [])], test_first_dealer=1
    )
    server.join(table["table_id"], "Bob")
    base = lan_base(server)
    context, watch = new_context(base_url=base)
    page = context.new_page()
    take_seat(page, f"{base}/t/{table['table_id']}/seat/{table['token']}")
    assert page.evaluate("window.isSecureContext") is False
    assert page.evaluate("typeof crypto.subtle") == "undefined"
    expect(page.locator("#hand button.card")).to_have_count(10)
    page.locator("#take").click()
    page.locator("#knock").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#result-title")).to_have_text("Ann knocked and won")
    expect(page.locator("#verify")).to_contain_text("Deck verified")
    # Chromium says on its console that it ignores Cross-Origin-Opener-Policy on a
    # plain-HTTP origin; that is the browser's notice, not the page's error.
    errors = [e for e in watch.errors if "Cross-Origin-Opener-Policy" not in e]
    assert errors == []
    assert watch.foreign == []


def test_a_derived_deal_is_checked_outside_a_secure_context(
    server: Server, new_context: NewContext
) -> None:
    """Deals nobody can choose: the entropy, the commitment and the derivation checked
    with the page's own SHA-256 (`crypto.getRandomValues` needs no secure context)."""
    base = lan_base(server)
    context, watch = new_context(base_url=base)
    page = context.new_page()
    create_from_home(page)
    assert page.evaluate("typeof crypto.subtle") == "undefined"
    expect(page.locator("#hand button.card")).to_have_count(10)
    knock(page)
    expect(page.locator("#verify")).to_have_text("Deal checked: shuffled with your secret")
    assert [e for e in watch.errors if "Cross-Origin-Opener-Policy" not in e] == []


@pytest.mark.parametrize(
    ("text", "digest"),
    [
        # FIPS 180-4 examples: one block, two blocks, and the empty message.
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        ),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ],
)
def test_the_fallback_sha256_gives_the_standard_digests(
    server: Server, new_context: NewContext, text: str, digest: str
) -> None:
    base = lan_base(server)
    context, _watch = new_context(base_url=base)
    page = context.new_page()
    page.goto(f"{base}/en/")
    got = page.evaluate(
        """async (text) => {
            const { sha256Hex } = await import("/static/js/fairness.js");
            return sha256Hex(new TextEncoder().encode(text));
        }""",
        text,
    )
    assert got == digest
