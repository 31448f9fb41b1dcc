"""What an open table socket keeps for its life, on a real uvicorn in this process:
thousands of them are most of a busy server's memory (docs/performance.md "Memory").

- no `asyncio.Queue` or `asyncio.Event` of uvicorn's (four deques of 760 bytes each,
  even empty): `connections.Inbox` and `connections.Writable` in their place;
- two tasks a socket (the server's, which writes, and the reader), not three;
- no coroutine frame of the middleware or the router: the gate hands the socket to
  its endpoint (`main.App`, `gate.Gate.direct`);
- no handshake headers in its scope once they are read;
- no `__dict__` of uvicorn's protocol's names: slots (`GuardedWebSocket`);
- a reader waiting for its next message holds a future of its inbox, no coroutine
  of uvicorn's `receive` or of `Inbox.get` (`GuardedWebSocket.next_message`).

And `Inbox` and `Writable` do what uvicorn asks of a queue and an event.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from websockets.asyncio.client import ClientConnection, connect

from hollywood_gin.web.guard.connections import Inbox, Writable
from tests.web.helpers import table_server

SOCKETS = 4

# What a socket's coroutines passed through before the gate served it straight.
MIDDLEWARE = {
    "AccessLog.__call__",
    "SecurityHeaders.__call__",
    "Health.__call__",
    "AnswerHead.__call__",
    "GZipMiddleware.__call__",
    "ExceptionMiddleware.__call__",
    "ServerErrorMiddleware.__call__",
    "AsyncExitStackMiddleware.__call__",
    "Router.__call__",
    "Starlette.__call__",
}


@asynccontextmanager
async def serving(tmp_path: Path) -> AsyncIterator[tuple[str, str]]:
    """A real server in this process with one table: its socket's URL, a seat's token."""
    async with table_server(tmp_path) as (port, made):
        yield f"ws://127.0.0.1:{port}/ws/tables/{made['table_id']}", made["token"]


@asynccontextmanager
async def open_sockets(url: str, token: str) -> AsyncIterator[list[ClientConnection]]:
    """`SOCKETS` sockets of one seat, each past its first state."""
    sockets = [await connect(url) for _ in range(SOCKETS)]
    try:
        for socket in sockets:
            await socket.send(orjson.dumps({"type": "hello", "token": token}))
            while orjson.loads(await socket.recv()).get("you") is None:
                pass
        await asyncio.sleep(0.05)
        gc.collect()
        yield sockets
    finally:
        for socket in sockets:
            await socket.close()


def alive(kind: type) -> int:
    return sum(1 for o in gc.get_objects() if type(o) is kind)


def header_lists() -> int:
    """Lists of a socket handshake's headers (the server's; the client keeps none)."""
    return sum(
        1
        for o in gc.get_objects()
        if type(o) is list and any(type(h) is tuple and h[:1] == (b"sec-websocket-key",) for h in o)
    )


def protocols() -> list[Any]:
    return [o for o in gc.get_objects() if type(o).__name__ == "GuardedWebSocket"]


def awaited(task: asyncio.Task[Any]) -> Iterator[str]:
    """The qualified names of the coroutines a task is inside, outermost first."""
    coro: Any = task.get_coro()
    while coro is not None and hasattr(coro, "cr_code"):
        yield coro.cr_code.co_qualname
        coro = coro.cr_await


@pytest.mark.anyio
async def test_open_sockets_keep_no_asyncio_queue_or_event(tmp_path: Path) -> None:
    async with serving(tmp_path) as (url, token):
        gc.collect()
        queues, events = alive(asyncio.Queue), alive(asyncio.Event)
        async with open_sockets(url, token):
            assert alive(asyncio.Queue) <= queues
            assert alive(asyncio.Event) <= events


@pytest.mark.anyio
async def test_open_sockets_have_two_tasks_each_past_the_middleware(tmp_path: Path) -> None:
    async with serving(tmp_path) as (url, token), open_sockets(url, token):
        chains = [list(awaited(t)) for t in asyncio.all_tasks()]
        sessions = [c for c in chains if any(name.startswith("Session.") for name in c)]
        assert len(sessions) == 2 * SOCKETS
        for chain in sessions:
            assert not MIDDLEWARE & set(chain), chain


@pytest.mark.anyio
async def test_open_sockets_keep_no_handshake_headers(tmp_path: Path) -> None:
    async with serving(tmp_path) as (url, token), open_sockets(url, token):
        open_ones = [p for p in protocols() if not p.disconnected]
        assert len(open_ones) == SOCKETS
        for protocol in open_ones:
            assert protocol.scope["headers"] == []
        assert header_lists() == 0


@pytest.mark.anyio
async def test_open_sockets_protocols_keep_their_attributes_in_slots(tmp_path: Path) -> None:
    """uvicorn's protocol's ~40 names, in a `__dict__`, were 1.6 KB of every socket."""
    async with serving(tmp_path) as (url, token), open_sockets(url, token):
        open_ones = [p for p in protocols() if not p.disconnected]
        assert len(open_ones) == SOCKETS
        for protocol in open_ones:
            assert vars(protocol) == {}


@pytest.mark.anyio
async def test_open_sockets_readers_wait_on_a_future_of_the_inbox_alone(tmp_path: Path) -> None:
    """A reader waiting for its next message holds no coroutine of uvicorn's `receive`
    nor of `Inbox.get`: two young objects fewer for every socket's every message."""
    async with serving(tmp_path) as (url, token), open_sockets(url, token):
        chains = [list(awaited(t)) for t in asyncio.all_tasks()]
        readers = [c for c in chains if "Session._read_all" in c]
        assert len(readers) == SOCKETS
        for chain in readers:
            assert chain[-1] == "Session._read_all", chain


# --- Inbox and Writable: what uvicorn asks of asyncio.Queue and asyncio.Event ---


@pytest.mark.anyio
async def test_inbox_hands_out_messages_in_order_and_waits_for_the_next() -> None:
    inbox = Inbox(asyncio.get_running_loop())
    assert inbox.empty()
    inbox.put_nowait(1)
    inbox.put_nowait(2)
    assert inbox.qsize() == 2
    assert [await inbox.get(), await inbox.get()] == [1, 2]
    waiting = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    inbox.put_nowait(3)
    assert await waiting == 3
    assert inbox.empty()


@pytest.mark.anyio
async def test_inbox_passes_a_message_on_when_its_woken_getter_is_cancelled() -> None:
    inbox = Inbox(asyncio.get_running_loop())
    first = asyncio.create_task(inbox.get())
    second = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    inbox.put_nowait("m")  # wakes the first getter ...
    first.cancel()  # ... which is cancelled before it runs
    assert await asyncio.wait_for(second, 1) == "m"
    assert first.cancelled()


@pytest.mark.anyio
async def test_inbox_take_hands_messages_in_order_to_one_future_each() -> None:
    inbox = Inbox(asyncio.get_running_loop())
    inbox.put_nowait(1)
    inbox.put_nowait(2)
    assert [await inbox.take(), await inbox.take()] == [1, 2]
    waiting = inbox.take()
    assert inbox.awaited() and not waiting.done()
    inbox.put_nowait(3)
    assert waiting.result() == 3 and inbox.empty() and not inbox.awaited()
    # A taker given up leaves the next message queued for the next one.
    inbox.take().cancel()
    assert not inbox.awaited()
    inbox.put_nowait(4)
    assert inbox.qsize() == 1
    assert await inbox.take() == 4


@pytest.mark.anyio
async def test_writable_waits_while_cleared_until_set() -> None:
    writable = Writable(asyncio.get_running_loop())
    assert writable.is_set()
    assert await writable.wait()
    writable.clear()
    waiting = asyncio.create_task(writable.wait())
    cancelled = asyncio.create_task(writable.wait())
    await asyncio.sleep(0)
    assert not waiting.done()
    cancelled.cancel()
    await asyncio.sleep(0)
    writable.set()
    assert await waiting
    assert cancelled.cancelled()
