"""A socket's move runs in the socket's own reader task (`Registry.act(in_caller=True)`),
so the socket must not cancel that task while the move is being stored: a move cut
in half would roll memory back under a store write that still commits.

A real SQLite file, held inside its commit by a gate (`GatedStore`); the socket is a
stub with the calls `Session` makes of Starlette's WebSocket.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from starlette.websockets import WebSocketState

from hollywood_gin.config import Settings
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.table import Table
from hollywood_gin.web.guard.seats import cookie_name
from hollywood_gin.web.socket.endpoint import Session
from tests.tables.helpers import HAND_OPTIONS, INDEX_DECK, registry_on
from tests.tables.test_store_faults import GatedStore, on_disk


class StubSocket:
    """What `Session` asks of a WebSocket: cookies, the app, its scope (no extension:
    frames are sent as text), receive, send, close."""

    def __init__(self, table_id: str, token: str) -> None:
        self.scope: dict[str, Any] = {"type": "websocket", "extensions": {}}
        self.cookies = {cookie_name(table_id): token}
        self.app = SimpleNamespace(state=SimpleNamespace(build="test"))
        self.application_state = WebSocketState.CONNECTED
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.sent: list[str] = []

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.application_state = WebSocketState.DISCONNECTED


async def seated(path: Path) -> tuple[GatedStore, Registry, Table, str]:
    """A table with both seats taken; seat 1 (whose token is returned) acts first."""
    store = GatedStore(path)
    await store.open()
    registry = registry_on(store)
    table, _ = await registry.create(HAND_OPTIONS, "Ann", test_decks=[INDEX_DECK], first_dealer=0)
    _, token = await registry.join(table.id, "Bob")
    return store, registry, table, token


async def session_held_in_a_commit(
    store: GatedStore, registry: Registry, table: Table, token: str
) -> tuple[Session, asyncio.Task[None]]:
    """Seat 1's socket, its pass sent and held inside the store's commit."""
    socket = StubSocket(table.id, token)
    session = Session(socket, table, registry, Settings(), lambda: 0.0)  # type: ignore[arg-type]
    running = asyncio.create_task(session.run())
    while not socket.sent:  # the first state sent: the socket's reader and writer run
        await asyncio.sleep(0.01)
    store.closed_gate = True
    frame = {"type": "action", "version": 1, "action": {"kind": "pass"}}
    await socket.inbox.put({"type": "websocket.receive", "text": orjson.dumps(frame).decode()})
    assert await asyncio.to_thread(store.entered.wait, 10)
    return session, running


async def stored_as_in_memory(store: GatedStore, registry: Registry, table: Table) -> None:
    await registry.close()  # waits for every change still running, in callers' tasks too
    memory = [e.to_json() for e in table.match.log]
    path = store.path
    await store.close()
    assert table.version == 2  # the pass was made
    assert memory == (await on_disk(path))[table.id].log


@pytest.mark.anyio
async def test_a_socket_whose_writer_ends_mid_commit_still_makes_its_move(
    tmp_path: Path,
) -> None:
    store, registry, table, token = await seated(tmp_path / "t.sqlite3")
    session, running = await session_held_in_a_commit(store, registry, table, token)
    assert session.conn is not None
    session.conn.close(1008, "not reading")  # the writer ends: the socket is let go
    await asyncio.sleep(0.05)
    assert not running.done()  # the reader is not cancelled: it waits for its move
    store.release()
    await asyncio.wait_for(running, 10)
    await stored_as_in_memory(store, registry, table)


@pytest.mark.anyio
async def test_a_socket_ended_by_the_server_going_away_mid_commit_still_makes_its_move(
    tmp_path: Path,
) -> None:
    store, registry, table, token = await seated(tmp_path / "t.sqlite3")
    _, running = await session_held_in_a_commit(store, registry, table, token)
    running.cancel()  # what the server does to a socket's task when it goes away
    with pytest.raises(asyncio.CancelledError):
        await running
    closing = asyncio.create_task(registry.close())
    await asyncio.sleep(0.05)
    assert not closing.done()  # the move in the reader's task is waited for
    store.release()
    await asyncio.wait_for(closing, 10)
    await stored_as_in_memory(store, registry, table)
