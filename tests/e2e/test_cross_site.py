"""A page of another site (a second loopback server, `http://localhost:PORT`) tries, in a
real Chromium, to create a table, to take the free seat and to set a seat cookie on
the game's server (`http://127.0.0.1:PORT`): all three fail
(docs/protocol-guide.md "Limits"). The same
script run from the game's own origin succeeds, so the test can fail."""

from __future__ import annotations

import http.server
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from tests.conftest import running_server
from tests.e2e.conftest import NewContext, Server, take_seat

ENV = {"HOLLYWOOD_GIN_TEST_HOOKS": "1", "HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0"}

# What a hostile page can send without asking the game's server (no CORS preflight):
# a "simple" fetch with a text/plain JSON body, and auto-submitted forms.
ATTACK = """<!doctype html><title>free cards</title>
<form id="join" method="post" action="{base}/api/tables/{table_id}/seats"></form>
<form id="fix" method="post" action="{base}/t/{table_id}/seat/{token}" target="f"></form>
<iframe name="f"></iframe>
<script>
fetch("{base}/api/tables", {{method: "POST", mode: "no-cors", credentials: "include",
  headers: {{"Content-Type": "text/plain"}}, body: JSON.stringify({{name: "Eve"}})}})
  .finally(() => {{ document.title = "sent"; }});
</script>"""


def count_tables(data: Path) -> int:
    with sqlite3.connect(f"file:{data}?mode=ro", uri=True) as db:
        (n,) = db.execute("SELECT COUNT(*) FROM tables").fetchone()
    return int(n)


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    data = tmp_path / "tables.sqlite3"
    with running_server(data, env=ENV) as (base, _proc):
        yield Server(base), data


class Evil:
    """A second loopback web server on another origin, serving one page."""

    def __init__(self) -> None:
        self.page = b""
        evil = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(evil.page)

            def log_message(self, *args: object) -> None:
                pass

        # Port 0: bound at once, where a port picked and closed could be taken meanwhile.
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.httpd.server_address[1])
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def evil() -> Iterator[Evil]:
    server = Evil()
    yield server
    server.close()


def test_another_site_cannot_create_join_or_fix_a_seat(
    game: tuple[Server, Path], evil: Evil, new_context: NewContext
) -> None:
    server, data = game
    table = server.create_table(name="Ann")
    before = count_tables(data)
    evil.page = ATTACK.format(
        base=server.base, table_id=table["table_id"], token=table["token"]
    ).encode()
    context, _watch = new_context(base_url=server.base)
    page = context.new_page()
    refused: list[int] = []
    page.on(
        "response",
        lambda r: refused.append(r.status) if r.url.startswith(server.base) else None,
    )
    # `localhost` is another site than `127.0.0.1` to the browser.
    page.goto(f"http://localhost:{evil.port}/")
    expect(page).to_have_title("sent")
    page.evaluate("document.getElementById('fix').submit()")
    with page.expect_navigation():
        page.evaluate("document.getElementById('join').submit()")
    assert 403 in refused
    assert count_tables(data) == before
    facts = httpx.get(f"{server.base}/api/tables/{table['table_id']}").json()
    assert facts["open_seats"] == [1]
    assert not [c for c in context.cookies() if c["name"].startswith("gin_seat_")]

    # The same requests from the game's own page go through.
    own = context.new_page()
    own.goto(f"{server.base}/en/")
    status = own.evaluate(
        """async () => (await fetch("/api/tables", {method: "POST",
             headers: {"Content-Type": "application/json"}, body: "{}"})).status"""
    )
    assert status == 201 and count_tables(data) == before + 1


def test_the_seat_link_asks_then_seats_on_this_device(
    game: tuple[Server, Path], new_context: NewContext
) -> None:
    server, _data = game
    table = server.create_table(name="Ann")
    context, watch = new_context(base_url=server.base)
    page = context.new_page()
    page.goto(f"/t/{table['table_id']}/seat/{table['token']}?lang=en")
    expect(page.locator("h1")).to_have_text("Continue as Ann on this device?")
    assert not [c for c in context.cookies() if c["name"].startswith("gin_seat_")]
    take_seat(page, f"/t/{table['table_id']}/seat/{table['token']}?lang=en")
    assert page.url.endswith(f"/t/{table['table_id']}")
    cookies = [c for c in context.cookies() if c["name"] == f"gin_seat_{table['table_id']}"]
    assert cookies and cookies[0]["value"] == table["token"] and cookies[0]["httpOnly"]
    watch.assert_clean()
