"""The server's own WebSocket ping (`HOLLYWOOD_GIN_WS_PING_SECONDS`, and its timeout)
drops a client gone without a word: one that opened a socket and then answers nothing,
not even the ping (as a phone switched off mid-game). A client that answers stays.
A client that talks (the page's own `ping` every 25 s) is alive by what it sends: the
server does not ping it (one sweep of the quiet sockets, `connections.Keepalive`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.conftest import running_server, upgrade_request

ENV = {"HOLLYWOOD_GIN_WS_PING_SECONDS": "0.5", "HOLLYWOOD_GIN_WS_PING_TIMEOUT_SECONDS": "0.5"}
BOUND = 15.0  # seconds: a bound on a hang, far past 0.5 + 0.5 and short of uvicorn's 20 + 20


@contextmanager
def a_table(tmp_path: Path, env: dict[str, str]) -> Iterator[tuple[str, str]]:
    """A server with `env`'s keepalive and a table on it: (its URL, the table's id)."""
    with running_server(tmp_path / "t.sqlite3", env=env) as (base, _proc):
        yield base, httpx.post(base + "/api/tables", json={}, timeout=5).json()["table_id"]


@contextmanager
def raw_socket(tmp_path: Path, env: dict[str, str]) -> Iterator[socket.socket]:
    """A table's WebSocket opened by hand on a server of its own: it answers nothing,
    not even a ping, but what the test writes."""
    with a_table(tmp_path, env) as (base, table_id):
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=BOUND) as sock:
            sock.sendall(upgrade_request(base, table_id))
            yield sock


def test_a_silent_dead_client_is_dropped(tmp_path: Path) -> None:
    received = b""
    with raw_socket(tmp_path, ENV) as sock:
        # Read what comes (the upgrade, the state, the pings) until the server
        # closes the connection; a timeout here means it never did.
        while chunk := sock.recv(65536):
            received += chunk
    assert received.startswith(b"HTTP/1.1 101")


@pytest.mark.anyio
async def test_a_client_that_answers_the_pings_stays(tmp_path: Path) -> None:
    with a_table(tmp_path, ENV) as (base, table_id):
        url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
        # The client answers pings by itself (as browsers do), and sends none of its own.
        async with connect(url, ping_interval=None) as ws:
            await ws.recv()
            # Past several of the server's pings and their timeouts: still open, and
            # answering the protocol's own ping.
            await asyncio.sleep(3.0)
            await ws.send('{"type": "ping"}')
            while json.loads(await ws.recv())["type"] != "pong":
                pass


def masked_text(payload: bytes) -> bytes:
    """A client's text frame (FIN, masked with a zero key: the payload unchanged)."""
    assert len(payload) < 126
    return bytes([0x81, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


def server_frames(data: bytes) -> list[tuple[int, bytes]]:
    """(opcode, payload) of each whole frame the server sent after its 101 answer."""
    data = data[data.index(b"\r\n\r\n") + 4 :]
    frames = []
    while len(data) >= 2:
        length, start = data[1] & 0x7F, 2
        if length == 126:
            (length,), start = struct.unpack("!H", data[2:4]), 4
        elif length == 127:
            (length,), start = struct.unpack("!Q", data[2:10]), 10
        if len(data) < start + length:
            break
        frames.append((data[0] & 0x0F, data[start : start + length]))
        data = data[start + length :]
    return frames


# A ping after 3-4 s of quiet: past the client's pause between its messages (0.15 s)
# by far, even on a busy machine; uvicorn's keepalive pinged every 4 s whatever came.
TALKING = {"HOLLYWOOD_GIN_WS_PING_SECONDS": "4", "HOLLYWOOD_GIN_WS_PING_TIMEOUT_SECONDS": "4"}


def test_a_client_that_talks_is_not_pinged(tmp_path: Path) -> None:
    received = b""
    with raw_socket(tmp_path, TALKING) as sock:
        sock.setblocking(False)
        ends = time.monotonic() + 9.0  # two of uvicorn's pings' worth
        while time.monotonic() < ends:
            sock.sendall(masked_text(b'{"type":"ping"}'))
            time.sleep(0.15)  # within the messages' rate
            with contextlib.suppress(BlockingIOError):
                received += sock.recv(65536)
        frames = server_frames(received)
        pongs = [f for f in frames if f[0] == 0x1 and b'"pong"' in f[1]]
        assert len(pongs) > 10  # it was answered all along
        assert not [f for f in frames if f[0] == 0x9]  # and never pinged
