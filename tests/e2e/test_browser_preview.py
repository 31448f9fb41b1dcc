"""The home page tells the server its language when it creates a table, so the link
the creator shares unfurls in the creator's language."""

from __future__ import annotations

import re

import httpx

from tests.e2e.conftest import NewContext, Server


def test_a_table_created_in_german_unfurls_in_german(
    server: Server, new_context: NewContext
) -> None:
    # The browser asks for English and holds no language cookie: only the page's own
    # language can say German.
    context, watch = new_context(locale="en-US")
    page = context.new_page()
    page.goto("/de/")
    context.clear_cookies()
    page.fill("#name", "Ann")
    page.check('input[name="scoring"][value="hollywood"]')
    page.locator('#create-table button[value="friend"]').click()
    page.wait_for_url(re.compile(r"/t/[\w-]+$"))
    share = page.locator("#share-url").input_value()
    html = httpx.get(share, headers={"accept-language": "en"}, timeout=10).text
    assert (
        '<meta property="og:title" content="Ann lädt Sie zu Gin-Rommé ein'
        ' — Standard, Hollywood auf 100">'
    ) in html
    watch.assert_clean()
