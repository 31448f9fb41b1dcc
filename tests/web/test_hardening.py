"""docs/protocol-guide.md "Limits" on a real `python -m hollywood_gin` over raw sockets: bodies
refused from their length unread or cut at the limit, a body timeout, a global connection bound
below the open-file limit, a global table-creation rate and a live-table cap, table
paths that name a table plainly, and the security headers on the gate's refusals."""

from __future__ import annotations

import resource
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from hollywood_gin.main import create_app
from hollywood_gin.tables.lifecycle import open_tables
from hollywood_gin.web.guard.connections import RESERVED_FILES, connection_limit
from hollywood_gin.web.guard.security import HEADERS
from hollywood_gin.web.socket.messages import CLIENT_MESSAGE
from tests.conftest import running_server
from tests.postgres import pg_url, postgres
from tests.tables.helpers import make_settings
from tests.web.test_connections import answer, open_raw, settle

__all__ = ["pg_url", "postgres"]  # fixtures

ENV = {
    "HOLLYWOOD_GIN_BODY_TIMEOUT_SECONDS": "1",
    "HOLLYWOOD_GIN_MAX_CONNECTIONS": "12",
    "HOLLYWOOD_GIN_MAX_CONNECTIONS_PER_ADDRESS": "100",
    "HOLLYWOOD_GIN_TABLES_PER_MINUTE": "5",
    "HOLLYWOOD_GIN_TABLES_PER_HOUR_PER_ADDRESS": "1000",
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("hard") / "tables.sqlite3"
    with running_server(data, env=ENV) as (url, _proc):
        yield url


def status_of(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1]) if raw.startswith(b"HTTP/1.1 ") else 0


def test_a_declared_length_over_the_limit_is_refused_before_the_body(base: str) -> None:
    sock = open_raw(base)
    sock.sendall(
        b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 67108864\r\n\r\n"
    )
    raw = answer(sock)  # answered without a byte of the body sent
    sock.close()
    assert status_of(raw) == 413
    assert b'"too_large"' in raw
    assert b"x-frame-options: DENY" in raw and b"content-security-policy:" in raw


def test_a_chunked_body_is_cut_where_it_passes_the_limit(base: str) -> None:
    sock = open_raw(base)
    sock.sendall(
        b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"x" * 1024
    sent = 0
    try:
        for _ in range(4096):  # up to 4 MiB: the server stops reading long before
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sent += len(chunk)
    except OSError:
        pass  # reset: the server closed at the limit
    raw = answer(sock)
    sock.close()
    assert sent < 4096 * 1024 or status_of(raw) == 413
    assert status_of(raw) in (413, 0)  # 0: the refusal was lost in the reset
    settle(base)


def test_a_body_that_stalls_is_answered_408(base: str) -> None:
    sock = open_raw(base)
    sock.settimeout(10)
    sock.sendall(
        b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
    )
    raw = answer(sock)
    sock.close()
    assert status_of(raw) == 408
    assert b'"too_slow"' in raw


def test_open_connections_in_all_are_bounded(base: str) -> None:
    """12 in all (the setting); the 13th gets 503 whichever address it comes from."""
    held: list[socket.socket] = []
    try:
        for n in range(12):
            sock = open_raw(base, f"127.0.0.{2 + n % 6}")
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert status_of(sock.recv(4096)) == 200  # kept alive: still open
            held.append(sock)
        extra = open_raw(base, "127.0.0.9")
        raw = answer(extra)
        extra.close()
        assert status_of(raw) == 503 and b'"busy"' in raw
    finally:
        for sock in held:
            sock.close()
    settle(base)
    assert httpx.get(base + "/healthz", timeout=5).status_code == 200


def test_at_the_bound_the_oldest_idle_connection_makes_room(base: str) -> None:
    """12 connections that never send a request fill the bound; a health check still
    gets its answer, and the oldest idle connection is the one closed (503)."""
    idle = [open_raw(base, f"127.0.0.{2 + n % 6}") for n in range(12)]
    try:
        time.sleep(0.3)  # all twelve accepted and counted
        probe = open_raw(base, "127.0.0.9")
        probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert status_of(answer(probe)) == 200
        probe.close()
        idle[0].settimeout(5)
        assert status_of(answer(idle[0])) == 503
    finally:
        for sock in idle:
            sock.close()
    settle(base)


def test_the_connection_bound_stays_below_the_file_limit() -> None:
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert connection_limit(0) <= soft - RESERVED_FILES
    assert connection_limit(10) == 10
    assert connection_limit(10**9) == connection_limit(0)


def test_new_tables_past_the_global_rate_get_503_busy_and_play_goes_on(base: str) -> None:
    made = []
    answers = []
    for n in range(14):
        source = f"127.0.1.{n + 1}"  # a different address each time
        transport = httpx.HTTPTransport(local_address=source)
        with httpx.Client(base_url=base, transport=transport, timeout=10) as http:
            r = http.post("/api/tables", json={"name": "Ann"})
        answers.append(r.status_code)
        if r.status_code == 201:
            made.append(r.json()["table_id"])
        else:
            assert r.json()["error"] == "busy"
    # Ten at once (at least 10, else a tenth of a minute's worth), then one every 12 s.
    assert answers.count(201) in (10, 11) and 503 in answers
    # Joining and looking at a table are never refused.
    r = httpx.post(f"{base}/api/tables/{made[0]}/seats", json={"name": "Bob"}, timeout=10)
    assert r.status_code == 201
    assert httpx.get(f"{base}/api/tables/{made[0]}", timeout=10).status_code == 200


def test_live_tables_past_the_cap_stop_creation_only(tmp_path: Path) -> None:
    env = {"HOLLYWOOD_GIN_MAX_LIVE_TABLES": "2", "HOLLYWOOD_GIN_TABLES_PER_HOUR_PER_ADDRESS": "99"}
    with running_server(tmp_path / "t.sqlite3", env=env) as (url, _proc):
        first = httpx.post(url + "/api/tables", json={"name": "Ann"}, timeout=10).json()
        httpx.post(url + "/api/tables", json={"name": "Ann"}, timeout=10)
        r = httpx.post(url + "/api/tables", json={"name": "Ann"}, timeout=10)
        assert r.status_code == 503 and r.json()["error"] == "busy"
        join = httpx.post(f"{url}/api/tables/{first['table_id']}/seats", json={}, timeout=10)
        assert join.status_code == 201


@pytest.mark.parametrize(
    "path",
    [
        "/api/tables/%41bc",
        "/t/%41bc",
        "/api/tables/%00abc",
        "/t/abc%00",
        "/api/tables/abc%2F",
        "/api/tables/ab%20c/seats",
    ],
)
def test_a_table_path_that_is_not_plain_is_404(base: str, path: str) -> None:
    sock = open_raw(base)
    sock.sendall(b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % path.encode())
    raw = answer(sock)
    sock.close()
    assert status_of(raw) == 404, raw[:100]
    assert b'"unknown_table"' in raw


@pytest.mark.anyio
async def test_a_nul_byte_in_a_table_id_opens_no_store_failure(tmp_path: Path, pg_url: str) -> None:
    """The registry never asks PostgreSQL about an id that cannot be one (a NUL byte
    made the claim fail: 503 and a store-failure episode)."""

    settings = make_settings(tmp_path, database_url=pg_url)
    async with open_tables(settings) as registry:
        for text in ("abc\x00def", "a/b", "", "x" * 65):
            assert await registry.find(text) is None
        assert registry.store_episode.failures == 0
        assert not registry.store_episode.failing


def test_the_gates_refusals_carry_the_security_headers(base: str) -> None:
    with httpx.Client(base_url=base, timeout=10) as http:
        refusals = [
            http.get("/", headers={"Host": "evil.example"}),  # 400 bad_host
            http.post("/api/tables", json={}, headers={"Origin": "https://evil.example"}),
            http.post("/api/tables", content=b"x", headers={"content-type": "text/plain"}),
            http.get("/api/tables/%41bc"),
        ]
    for r in refusals:
        assert r.status_code in (400, 403, 404, 415), r.status_code
        for name, value in HEADERS.items():
            assert r.headers.get(name) == value, (r.status_code, name)


def test_metrics_are_not_answered_through_a_proxy(tmp_path: Path) -> None:
    env = {"HOLLYWOOD_GIN_METRICS": "true", "HOLLYWOOD_GIN_TRUSTED_PROXIES": "127.0.0.1"}
    with running_server(tmp_path / "m.sqlite3", env=env) as (url, _proc):
        assert httpx.get(url + "/metrics", timeout=5).status_code == 200
        r = httpx.get(url + "/metrics", headers={"X-Forwarded-For": "1.2.3.4"}, timeout=5)
        assert r.status_code == 404


@pytest.mark.parametrize("version", ["true", '"1"', "1.0", "false", '"0"'])
def test_a_version_must_be_a_json_integer(version: str) -> None:
    for raw in (
        '{"type": "hello", "version": V}'.replace("V", version),
        '{"type": "action", "version": V, "action": {"kind": "pass"}}'.replace("V", version),
    ):
        with pytest.raises(ValidationError):
            CLIENT_MESSAGE.validate_json(raw)
    assert CLIENT_MESSAGE.validate_json('{"type": "hello", "version": 1}').version == 1


def test_a_socket_refuses_a_boolean_version_and_stays_open(tmp_path: Path) -> None:
    from websockets.sync.client import connect

    with running_server(tmp_path / "v.sqlite3") as (url, _proc):
        made = httpx.post(url + "/api/tables", json={"name": "Ann"}, timeout=10).json()
        httpx.post(f"{url}/api/tables/{made['table_id']}/seats", json={}, timeout=10)
        ws_url = url.replace("http://", "ws://") + f"/ws/tables/{made['table_id']}"
        with connect(ws_url, origin=None) as ws:
            ws.send(orjson.dumps({"type": "hello", "token": made["token"]}).decode())
            state = orjson.loads(ws.recv(timeout=5))
            while state.get("type") != "state":
                state = orjson.loads(ws.recv(timeout=5))
            action = {"kind": "pass"}
            ws.send(orjson.dumps({"type": "action", "version": True, "action": action}).decode())
            error = orjson.loads(ws.recv(timeout=5))
            while error["type"] == "state":  # presence updates may come first
                state = error
                error = orjson.loads(ws.recv(timeout=5))
            assert error["type"] == "error" and error["code"] == "bad_message"
            ws.send(orjson.dumps({"type": "ping"}).decode())
            assert orjson.loads(ws.recv(timeout=5))["type"] == "pong"
        after = httpx.get(f"{url}/api/tables/{made['table_id']}", timeout=10).json()
        assert after["version"] == state["version"]


def test_create_table_refuses_a_target_given_as_text(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        r = client.post("/api/tables", json={"target": "250"})
        assert r.status_code == 422
        assert client.post("/api/tables", json={"target": 250}).status_code == 201


def test_the_language_cookie_is_secure_under_an_https_public_url(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, public_url="https://gin.example.org")
    with TestClient(create_app(settings), base_url="https://gin.example.org") as client:
        r = client.get("/de/", follow_redirects=False)
        cookies = [v for k, v in r.headers.multi_items() if k == "set-cookie"]
        lang = [c for c in cookies if c.startswith("gin_lang=")]
        assert lang and all("Secure" in c for c in lang), cookies
    with TestClient(create_app(make_settings(tmp_path / "plain"))) as client:
        r = client.get("/de/", follow_redirects=False)
        lang = [v for k, v in r.headers.multi_items() if k == "set-cookie" and "gin_lang" in v]
        assert lang and not any("Secure" in c for c in lang)
