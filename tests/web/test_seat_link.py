"""The personal seat link (`/t/{id}/seat/{token}`) asks before it seats anyone: opening
it sets nothing; only the confirm page's same-origin POST sets the seat cookie."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from hollywood_gin.main import create_app
from tests.tables.helpers import make_settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(tmp_path))) as c:
        yield c


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    client.cookies.clear()
    made: dict[str, Any] = r.json()
    return made


def test_opening_the_link_asks_and_sets_nothing(client: TestClient) -> None:
    made = create(client, name="Ann")
    link = f"/t/{made['table_id']}/seat/{made['token']}"
    r = client.get(link + "?lang=en", follow_redirects=False)
    assert r.status_code == 200
    assert "gin_seat_" not in r.headers.get("set-cookie", "")
    assert r.headers["cache-control"] == "no-store"
    # So the form's POST carries this site's Origin (a LAN address has no Fetch Metadata).
    assert r.headers["referrer-policy"] == "same-origin"
    text = html.unescape(r.text)
    assert "Continue as Ann on this device?" in text
    assert f'<form method="post" action="{link}">' in r.text
    assert 'name="robots" content="noindex, nofollow"' in r.text


def test_the_question_speaks_the_readers_language(client: TestClient) -> None:
    made = create(client, name="Ann")
    r = client.get(f"/t/{made['table_id']}/seat/{made['token']}?lang=de")
    assert "Auf diesem Gerät als Ann weiterspielen?" in html.unescape(r.text)
    client.cookies.clear()  # the language cookie would win over the header
    r = client.get(f"/t/{made['table_id']}/seat/{made['token']}", headers={"accept-language": "da"})
    assert "Fortsæt som Ann på denne enhed?" in html.unescape(r.text)


def test_the_same_origin_post_sets_the_cookie(client: TestClient) -> None:
    made = create(client, name="Ann")
    link = f"/t/{made['table_id']}/seat/{made['token']}"
    # What Chromium sends for the page's form under `Referrer-Policy: no-referrer`:
    # an opaque Origin, Sec-Fetch-Site same-origin, an empty urlencoded body.
    r = client.post(
        link,
        headers={
            "origin": "null",
            "sec-fetch-site": "same-origin",
            "content-type": "application/x-www-form-urlencoded",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == f"/t/{made['table_id']}"
    assert r.headers["set-cookie"].startswith(f"gin_seat_{made['table_id']}={made['token']};")
    assert "httponly" in r.headers["set-cookie"].lower()


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "https://evil.example"},
        {"sec-fetch-site": "cross-site"},
        {"origin": "null"},
        {"origin": "null", "sec-fetch-site": "cross-site"},
    ],
)
def test_a_post_from_another_site_sets_nothing(client: TestClient, headers: dict[str, str]) -> None:
    made = create(client, name="Ann")
    r = client.post(
        f"/t/{made['table_id']}/seat/{made['token']}", headers=headers, follow_redirects=False
    )
    assert r.status_code == 403 and r.json()["error"] == "forbidden_origin"
    assert "set-cookie" not in r.headers


def test_a_wrong_link_is_not_found_and_sets_nothing(client: TestClient) -> None:
    made = create(client)
    other = create(client)
    for table_id, token in (
        (made["table_id"], "wrong"),
        (made["table_id"], other["token"]),  # a token of another table
        ("nope", made["token"]),
    ):
        r = client.get(f"/t/{table_id}/seat/{token}", follow_redirects=False)
        assert r.status_code == 404 and "gin_seat_" not in r.headers.get("set-cookie", "")
        assert "Continue as" not in r.text
        r = client.post(f"/t/{table_id}/seat/{token}", follow_redirects=False)
        assert r.status_code == 404 and "gin_seat_" not in r.headers.get("set-cookie", "")
