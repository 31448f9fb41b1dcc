"""The gate in front of every route (docs/architecture.md "The web layer"): hosts, rates,
origins, bodies, and who may seat the computer. Each refusal is a typed JSON error and changes
nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from hollywood_gin.web.guard.addresses import address_key
from hollywood_gin.web.guard.limits import KeyedBuckets
from hollywood_gin.web.guard.security import AllowedHosts, host_name
from tests.tables.helpers import make_settings
from tests.web.helpers import app_client, registry_of


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with app_client(tmp_path) as c:
        yield c


def refused(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json"
    assert r.json()["error"] == code and r.json()["message"]


# --- hosts --------------------------------------------------------------------------------
def test_a_foreign_host_gets_400_and_is_never_reflected(client: TestClient) -> None:
    for path in ("/api/tables", "/en/", "/t/whatever", "/static/js/table.js"):
        r = client.get(path, headers={"host": "rebind.attacker.example"})
        refused(r, 400, "bad_host")
        assert "attacker" not in r.text
    r = client.post("/api/tables", json={}, headers={"host": "rebind.attacker.example"})
    refused(r, 400, "bad_host")
    assert len(registry_of(client)) == 0
    # A probe by address still gets its answer.
    assert client.get("/healthz", headers={"host": "10.1.2.3:8000"}).status_code == 200


def test_a_socket_with_a_foreign_host_is_refused(client: TestClient) -> None:
    with (
        pytest.raises(WebSocketDenialResponse),
        client.websocket_connect("/ws/tables/x", headers={"host": "evil.example"}),
    ):
        pass


def test_own_names_addresses_and_configured_extras_are_answered(tmp_path: Path) -> None:
    with app_client(tmp_path, allowed_hosts=["gin.test"]) as c:
        for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000", "gin.test:5555", "GIN.TEST"):
            r = c.post("/api/tables", json={}, headers={"host": host, "origin": f"http://{host}"})
            assert r.status_code == 201, (host, r.text)
        r = c.post("/api/tables", json={}, headers={"host": "gin.test"})
        assert r.json()["url"].startswith("http://gin.test/t/")


def test_with_a_public_url_only_its_host_is_answered(tmp_path: Path) -> None:
    with app_client(tmp_path, public_url="https://gin.example.org", allowed_hosts=[]) as c:
        assert c.get("/en/", headers={"host": "gin.example.org"}).status_code == 200
        refused(c.get("/en/", headers={"host": "127.0.0.1:8000"}), 400, "bad_host")
        refused(c.get("/en/", headers={"host": "testserver"}), 400, "bad_host")


def test_allowed_hosts_parsing() -> None:
    assert host_name("Gin.Example.org:443") == "gin.example.org"
    assert host_name("[::1]:8000") == "::1"
    assert host_name("a:b") is None and host_name("") is None and host_name("[::1") is None
    hosts = AllowedHosts(make_settings(Path("/nonexistent"), allowed_hosts=[]))
    assert hosts.allowed("localhost") and hosts.allowed("192.168.1.20:8000")
    assert not hosts.allowed("example.com") and not hosts.allowed(None)


# --- origins and content types -------------------------------------------------------------
@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "https://evil.example"},
        {"origin": "null"},
        {"origin": "http://testserver.evil.example"},
        {"sec-fetch-site": "cross-site"},
        {"sec-fetch-site": "same-site"},
    ],
)
def test_posts_from_another_site_are_refused(client: TestClient, headers: dict[str, str]) -> None:
    made = client.post("/api/tables", json={"name": "Ann"}).json()
    client.cookies.clear()
    refused(client.post("/api/tables", json={}, headers=headers), 403, "forbidden_origin")
    seats = f"/api/tables/{made['table_id']}/seats"
    refused(client.post(seats, json={"name": "Eve"}, headers=headers), 403, "forbidden_origin")
    table = registry_of(client).get(made["table_id"])
    assert table is not None and len(table.seats) == 1
    assert len(registry_of(client)) == 1


def test_posts_from_this_site_pass(client: TestClient) -> None:
    for headers in (
        {"origin": "http://testserver"},
        {"sec-fetch-site": "same-origin"},
        {},  # not a browser
    ):
        assert client.post("/api/tables", json={}, headers=headers).status_code == 201


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("text/plain", b'{"name": "Eve"}'),
        ("application/x-www-form-urlencoded", b"name=Eve"),
        ("multipart/form-data; boundary=x", b"--x--"),
        (None, b'{"name": "Eve"}'),
    ],
)
def test_bodies_that_are_not_json_get_415(
    client: TestClient, content_type: str | None, body: bytes
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    made = client.post("/api/tables", json={}).json()
    seats = f"/api/tables/{made['table_id']}/seats"
    refused(client.post(seats, content=body, headers=headers), 415, "unsupported_media_type")
    table = registry_of(client).get(made["table_id"])
    assert table is not None and len(table.seats) == 1


def test_json_with_a_charset_and_an_empty_body_pass(client: TestClient) -> None:
    r = client.post(
        "/api/tables",
        content=b'{"name":"Ann"}',
        headers={"content-type": "application/json; charset=utf-8"},
    )
    assert r.status_code == 201
    assert client.post(f"/api/tables/{r.json()['table_id']}/seats").status_code == 201


# --- bodies ---------------------------------------------------------------------------------
@pytest.fixture
def production(tmp_path: Path) -> Iterator[TestClient]:
    """Without test hooks (whose deck orders make bodies long)."""
    with app_client(tmp_path, test_hooks=False) as c:
        yield c


def test_a_body_over_the_limit_is_refused_from_its_length(production: TestClient) -> None:
    client = production
    big = b'{"name": "' + b"x" * 5000 + b'"}'
    refused(
        client.post("/api/tables", content=big, headers={"content-type": "application/json"}),
        413,
        "too_large",
    )
    assert len(registry_of(client)) == 0


def test_a_streamed_body_is_refused_while_reading(production: TestClient) -> None:
    client = production

    def chunks() -> Iterator[bytes]:
        # No Content-Length: only counting while reading can refuse it.
        yield b'{"name": "'
        for _ in range(1000):
            yield b"x" * 1000
        yield b'"}'

    r = client.post("/api/tables", content=chunks(), headers={"content-type": "application/json"})
    refused(r, 413, "too_large")
    assert len(registry_of(client)) == 0


# --- rates ----------------------------------------------------------------------------------
def test_http_requests_per_address_are_limited(tmp_path: Path) -> None:
    with app_client(tmp_path, http_burst=5, http_requests_per_second=0.001) as c:
        for _ in range(5):
            assert c.get("/healthz").status_code == 200
        r = c.get("/healthz")
        refused(r, 429, "rate_limited")
        assert r.headers["retry-after"]
    # Another address has its own allowance.
    with app_client(tmp_path, client=("192.0.2.7", 1), http_burst=5) as other:
        assert other.get("/healthz").status_code == 200


def test_static_files_have_a_wider_bucket_of_their_own(tmp_path: Path) -> None:
    # A first visit's assets must not use up the pages' small burst, nor the reverse.
    with app_client(tmp_path, http_burst=5, http_requests_per_second=0.001) as c:
        for _ in range(12):  # more than the pages' 5, within five times that
            assert c.get("/static/favicon.svg").status_code == 200
        for _ in range(5):
            assert c.get("/healthz").status_code == 200
        refused(c.get("/healthz"), 429, "rate_limited")
        for _ in range(13):  # the static bucket's 25 in all
            assert c.get("/static/favicon.svg").status_code == 200
        refused(c.get("/static/favicon.svg"), 429, "rate_limited")


def test_new_sockets_per_address_are_limited(tmp_path: Path) -> None:
    with app_client(tmp_path, ws_connects_burst=2, ws_connects_per_second=0.001) as c:
        for _ in range(2):
            with c.websocket_connect("/ws/tables/x") as ws:
                assert ws.receive_json()["code"] == "unknown_table"
        with pytest.raises(WebSocketDenialResponse), c.websocket_connect("/ws/tables/x"):
            pass


def test_an_ipv6_subscriber_is_one_address() -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:ffff:1:2:3")
    assert address_key("2001:db8:1:2::1") != address_key("2001:db8:1:3::1")
    assert address_key("::ffff:192.0.2.1") == "192.0.2.1"
    assert address_key("192.0.2.1") != address_key("192.0.2.2")


def test_tables_per_hour_count_an_ipv6_64_once(tmp_path: Path) -> None:
    with app_client(tmp_path, tables_per_hour_per_address=2, trusted_proxies=["127.0.0.1"]) as c:
        for host in ("2001:db8:5:6::1", "2001:db8:5:6::2"):
            r = c.post("/api/tables", json={}, headers={"x-forwarded-for": host})
            assert r.status_code == 201
        r = c.post("/api/tables", json={}, headers={"x-forwarded-for": "2001:db8:5:6:ffff::9"})
        refused(r, 429, "rate_limited")
        r = c.post("/api/tables", json={}, headers={"x-forwarded-for": "2001:db8:5:7::1"})
        assert r.status_code == 201


def test_keyed_buckets_forget_full_buckets() -> None:
    now = [0.0]
    buckets = KeyedBuckets(1.0, 2, lambda: now[0])
    assert buckets.take("a") and buckets.take("a") and not buckets.take("a")
    now[0] += 1.0
    assert buckets.take("a") and not buckets.take("a")
    for i in range(KeyedBuckets.PRUNE_EVERY):
        now[0] += 10.0
        buckets.take(f"k{i}")
    assert len(buckets) < 10


# --- the computer seat --------------------------------------------------------------------
def test_seating_the_computer_needs_a_seated_players_token(client: TestClient) -> None:
    made = client.post("/api/tables", json={"name": "Ann"}).json()
    client.cookies.clear()
    path = f"/api/tables/{made['table_id']}/computer"
    refused(client.post(path, json={"strength": "easy"}), 403, "not_seated")
    refused(
        client.post(path, json={"strength": "easy"}, headers={"authorization": "Bearer nope"}),
        403,
        "not_seated",
    )
    table = registry_of(client).get(made["table_id"])
    assert table is not None and len(table.seats) == 1
    refused(client.post("/api/tables/nope/computer", json={}), 404, "unknown_table")
    r = client.post(
        path, json={"strength": "easy"}, headers={"authorization": f"Bearer {made['token']}"}
    )
    assert r.status_code == 201, r.text
    assert len(table.seats) == 2


def test_the_seat_cookie_is_enough_to_seat_the_computer(client: TestClient) -> None:
    made = client.post("/api/tables", json={"name": "Ann"}).json()
    r = client.post(f"/api/tables/{made['table_id']}/computer", json={"strength": "normal"})
    assert r.status_code == 201, r.text
