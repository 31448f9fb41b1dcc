"""The server's own WebSocket ping (`HOLLYWOOD_GIN_WS_PING_SECONDS`, and its timeout)
drops a client gone without a word: one that opened a socket and then answers nothing,
not even the ping (as a phone switched off mid-game). A client that answers stays."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.conftest import running_server, upgrade_request

ENV = {"HOLLYWOOD_GIN_WS_PING_SECONDS": "0.5", "HOLLYWOOD_GIN_WS_PING_TIMEOUT_SECONDS": "0.5"}
BOUND = 15.0  # seconds: a bound on a hang, far past 0.5 + 0.5 and short of uvicorn's 20 + 20


def silent_socket(base: str, table_id: str) -> socket.socket:
    """A WebSocket opened by hand that will answer nothing, not even a ping."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=BOUND)
    sock.sendall(upgrade_request(base, table_id))
    return sock


def test_a_silent_dead_client_is_dropped(tmp_path: Path) -> None:
    with running_server(tmp_path / "t.sqlite3", env=ENV) as (base, _proc):
        table_id = httpx.post(base + "/api/tables", json={}, timeout=5).json()["table_id"]
        sock = silent_socket(base, table_id)
        received = b""
        with sock:
            # Read what comes (the upgrade, the state, the pings) until the server
            # closes the connection; a timeout here means it never did.
            while chunk := sock.recv(65536):
                received += chunk
        assert received.startswith(b"HTTP/1.1 101")


@pytest.mark.anyio
async def test_a_client_that_answers_the_pings_stays(tmp_path: Path) -> None:
    with running_server(tmp_path / "t.sqlite3", env=ENV) as (base, _proc):
        table_id = httpx.post(base + "/api/tables", json={}, timeout=5).json()["table_id"]
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
