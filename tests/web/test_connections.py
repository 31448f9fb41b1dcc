"""The server's own bounds (docs/protocol-guide.md "Limits"), on a real `python -m
hollywood_gin` over raw sockets: header read time, header size and count, open connections per
address."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import orjson
import pytest
from websockets.sync.client import connect

from tests.conftest import running_server

ENV = {
    "HOLLYWOOD_GIN_HEADER_TIMEOUT_SECONDS": "1",
    "HOLLYWOOD_GIN_MAX_HEADER_BYTES": "4096",
    "HOLLYWOOD_GIN_MAX_HEADERS": "20",
    "HOLLYWOOD_GIN_MAX_CONNECTIONS_PER_ADDRESS": "4",
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("conns") / "tables.sqlite3"
    with running_server(data, env=ENV) as (url, _proc):
        yield url


def open_raw(base: str, source: str = "127.0.0.1") -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5, source_address=(source, 0))
    return sock


def answer(sock: socket.socket) -> bytes:
    chunks = []
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except (TimeoutError, ConnectionResetError):
        pass
    return b"".join(chunks)


def settle(base: str) -> None:
    """Wait until the connections a test opened are gone from the server's count."""
    for _ in range(50):
        try:
            if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)


def test_headers_that_trickle_are_cut_off(base: str) -> None:
    sock = open_raw(base)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    started = time.monotonic()
    for _ in range(4):  # one header line every half second: never done in time
        time.sleep(0.5)
        try:
            sock.sendall(b"X-Slow: 1\r\n")
        except OSError:
            break
    got = answer(sock)
    sock.close()
    assert got.startswith(b"HTTP/1.1 408"), got[:80]
    assert b'"too_slow"' in got
    assert time.monotonic() - started < 4
    settle(base)


def test_headers_over_the_size_limit_get_431(base: str) -> None:
    sock = open_raw(base)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 8000 + b"\r\n\r\n")
    got = answer(sock)
    sock.close()
    assert got.startswith(b"HTTP/1.1 431") and b'"too_large"' in got, got[:80]
    settle(base)


def test_too_many_header_lines_get_431(base: str) -> None:
    sock = open_raw(base)
    lines = b"".join(b"X-%d: a\r\n" % i for i in range(30))
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + lines + b"\r\n")
    got = answer(sock)
    sock.close()
    assert got.startswith(b"HTTP/1.1 431"), got[:80]
    settle(base)


def test_ordinary_requests_and_kept_alive_connections_pass(base: str) -> None:
    with httpx.Client(base_url=base, timeout=5) as client:
        for _ in range(3):  # one connection, three requests
            assert client.get("/healthz", headers={"x-a": "b" * 2000}).status_code == 200


def test_open_connections_per_address_are_capped(base: str) -> None:
    settle(base)
    held = [open_raw(base) for _ in range(4)]
    for sock in held:
        sock.sendall(b"GET /healthz HTTP/1.1\r\n")  # unfinished: each stays open
    time.sleep(0.2)
    extra = open_raw(base)
    extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    got = answer(extra)
    extra.close()
    assert got.startswith(b"HTTP/1.1 429") and b'"rate_limited"' in got, got[:80]
    # Another address is counted apart.
    other = open_raw(base, source="127.0.0.2")
    other.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert answer(other).startswith(b"HTTP/1.1 200")
    other.close()
    for sock in held:
        sock.close()
    settle(base)
    assert httpx.get(base + "/healthz", timeout=5).status_code == 200


def test_websockets_count_until_they_close(base: str) -> None:
    settle(base)
    table = httpx.post(base + "/api/tables", json={}, timeout=5).json()["table_id"]
    url = base.replace("http://", "ws://") + f"/ws/tables/{table}"
    sockets = [connect(url) for _ in range(4)]
    for ws in sockets:
        ws.recv(timeout=5)  # its first state: upgraded and open
    with pytest.raises(Exception):  # noqa: B017 - refused at the handshake (429)
        connect(url, open_timeout=5)
    sockets.pop().close()
    time.sleep(0.3)
    again = connect(url, open_timeout=5)
    again.recv(timeout=5)
    again.close()
    for ws in sockets:
        ws.close()


def test_frames_go_out_as_utf8_text_frames(base: str) -> None:
    """This server's sockets send a frame's UTF-8 bytes as a text frame without decoding
    them first (`connections.DIRECT`): the client gets text frames (str) that are the
    JSON of the state, names outside ASCII intact, for states and for the answers."""
    made = httpx.post(f"{base}/api/tables", json={"name": "Zoë Ærø"}, timeout=10).json()
    table_id = made["table_id"]
    joined = httpx.post(f"{base}/api/tables/{table_id}/seats", json={"name": "Őrs"}, timeout=10)
    assert joined.status_code == 201, joined.text
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    with connect(url) as ws:
        ws.send(orjson.dumps({"type": "hello", "token": made["token"]}).decode())
        frame = ws.recv(timeout=10)
        assert isinstance(frame, str)  # a text frame, decoded as UTF-8 by the client
        state = orjson.loads(frame)
        assert state["type"] == "state"
        assert "Zoë Ærø" in frame and "Őrs" in frame
        ws.send(orjson.dumps({"type": "ping"}).decode())
        while (frame := ws.recv(timeout=10)) and orjson.loads(frame)["type"] != "pong":
            assert isinstance(frame, str)
        assert isinstance(frame, str)
    settle(base)
