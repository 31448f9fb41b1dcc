"""What a frame costs an open table socket's tasks, on a real uvicorn in this process
(docs/performance.md "Capacity at human pace"): at human pace every wake-up of a
task is a turn of the loop and a fresh wait (a coroutine, a future and their
callbacks), young objects the collector walks.

- a frame for a socket whose client reads goes out at once (`endpoint.Outbox`): the
  writer task's wait is the one it began before, not woken for it;
- the page's heartbeat (`ping` as the page sends it) is answered in the protocol's
  callback while the reader waits (`Session.answer`): the reader is not woken either,
  and a flood of them is still refused, then closed, as any other message's;
- a message its reader takes at once does not stop the reading (uvicorn pauses and
  resumes it for each message: `epoll_ctl` calls of uvloop's);
- an open socket holds no keepalive timer of its own (one sweep for all of them,
  `connections.Keepalive`; what it does: tests/test_ws_ping.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.web.helpers import table_server
from tests.web.test_socket_memory import awaited, open_sockets, protocols, serving

PING = b'{"type":"ping"}'  # as the page sends it: JSON.stringify({type: "ping"})


def tasks_in(name: str) -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks() if name in list(awaited(t))]


def waits(tasks: list[asyncio.Task[Any]]) -> list[object]:
    """What each task waits on now (the future it is parked on)."""
    return [t._fut_waiter for t in tasks]  # type: ignore[attr-defined]


async def heartbeats(sockets: list[Any], each: int) -> None:
    for socket in sockets:
        for _ in range(each):
            await socket.send(PING.decode())
            while orjson.loads(await socket.recv())["type"] != "pong":
                pass


@pytest.mark.anyio
@pytest.mark.parametrize("task", ["Session._write", "Session._read"])
async def test_frames_and_the_pages_heartbeat_wake_neither_task(tmp_path: Path, task: str) -> None:
    """Frames go out without waking the writer, and the page's heartbeat is answered
    without waking the reader: each task still waits on the future it waited on."""
    async with serving(tmp_path) as (url, token), open_sockets(url, token) as sockets:
        watched = tasks_in(task)
        assert len(watched) == len(sockets)
        before = waits(watched)
        assert all(w is not None for w in before)
        await heartbeats(sockets, 3)
        assert waits(watched) == before
        # Any other message still goes to the reader, which answers it.
        await sockets[0].send(orjson.dumps({"type": "ping", "x": 1}).decode())
        error = orjson.loads(await sockets[0].recv())
        assert error["type"] == "error" and error["code"] == "bad_message"


@asynccontextmanager
async def flood_server(tmp_path: Path) -> AsyncIterator[str]:
    """A real server in this process, a burst of 3 and no refill: a table socket's URL."""
    no_refill = table_server(tmp_path, clock=lambda: 1000.0, ws_burst=3, ws_messages_per_second=1.0)
    async with no_refill as (port, made):
        yield f"ws://127.0.0.1:{port}/ws/tables/{made['table_id']}"


@pytest.mark.anyio
async def test_a_flood_of_heartbeats_is_refused_then_closed(tmp_path: Path) -> None:
    async with flood_server(tmp_path) as url, connect(url) as ws:
        assert orjson.loads(await ws.recv())["type"] == "state"
        codes = []
        # One at a time, each answered before the next (so each finds the reader
        # waiting): 3 fit the burst, 8 refusals are answered, the 9th closes.
        for _ in range(3 + 8):
            await ws.send(PING.decode())
            message = orjson.loads(await ws.recv())
            codes.append(message.get("code", message["type"]))
        assert codes == ["pong"] * 3 + ["rate_limited"] * 8
        await ws.send(PING.decode())
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008


class CountedTransport:
    """A socket's transport that counts the pauses of its reading."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self.pauses = 0

    def pause_reading(self) -> None:
        self.pauses += 1
        self.transport.pause_reading()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


@pytest.mark.anyio
async def test_a_message_taken_at_once_does_not_stop_the_reading(tmp_path: Path) -> None:
    async with serving(tmp_path) as (url, token), open_sockets(url, token) as sockets:
        counted = []
        for protocol in protocols():
            if not protocol.disconnected:
                protocol.transport = CountedTransport(protocol.transport)
                counted.append(protocol.transport)
        assert len(counted) == len(sockets)
        for socket in sockets:
            for _ in range(3):  # not the page's own spelling: the reader answers it
                await socket.send('{"type": "ping"}')
                while orjson.loads(await socket.recv())["type"] != "pong":
                    pass
        assert [t.pauses for t in counted] == [0] * len(sockets)


@pytest.mark.anyio
async def test_an_open_socket_holds_no_keepalive_timer(tmp_path: Path) -> None:
    async with serving(tmp_path) as (url, token), open_sockets(url, token) as sockets:
        open_ones = [p for p in protocols() if not p.disconnected]
        assert len(open_ones) == len(sockets)
        assert [(p.ping_timer, p.pong_timer) for p in open_ones] == [(None, None)] * len(sockets)
