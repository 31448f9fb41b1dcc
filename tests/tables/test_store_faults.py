"""What goes wrong around the store: a caller cancelled mid-commit, a write that fails.

A real SQLite file throughout; the faults are injected at the edge (a gate in the
store's worker thread, a trigger that makes SQLite refuse a write as a full disk would).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest

from hollywood_gin.engine.actions import parse_action
from hollywood_gin.tables.errors import StoreUnavailable
from hollywood_gin.tables.hub import Connection
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.store import TableRecord
from hollywood_gin.tables.table import Table
from tests.tables.faults import accept_writes, refuse_writes
from tests.tables.helpers import HAND_OPTIONS, SEAT0_CARDS, registry_on, snapshot, two_seats


class GatedStore(SqliteStore):
    """Holds the worker thread inside a commit until the test opens the gate."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.closed_gate = False
        self.entered = threading.Event()
        self.gate = threading.Event()

    def _commit_batch(self, db: sqlite3.Connection, writes: list[Any]) -> list[Exception | None]:
        if self.closed_gate:
            self.entered.set()
            self.gate.wait(10)
        return super()._commit_batch(db, writes)

    async def held_pass(self, registry: Registry, table: Table) -> asyncio.Task[Any]:
        """Seat 1 passes the upcard; returns once that pass is held inside its commit."""
        self.closed_gate = True
        mover = asyncio.create_task(registry.act(table, 1, parse_action({"kind": "pass"}), 1))
        assert await asyncio.to_thread(self.entered.wait, 10)
        return mover

    def release(self) -> None:
        """Let the held commit go on, and every later one."""
        self.closed_gate = False
        self.gate.set()


async def gated_table(path: Path) -> tuple[GatedStore, Registry, Table]:
    """A gated store on `path`, its registry, and a table with two seats."""
    store = GatedStore(path)
    await store.open()
    registry = registry_on(store)
    return store, registry, await two_seats(registry)


async def on_disk(path: Path) -> dict[str, TableRecord]:
    store = SqliteStore(path)
    await store.open()
    try:
        return {r.table_id: r for r in await store.load_all()}
    finally:
        await store.close()


@pytest.mark.anyio
async def test_a_caller_cancelled_mid_commit_cannot_wedge_its_table(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"

    store, registry, table = await gated_table(path)
    # Seat 1 passes the upcard; its socket closes while the write commits.
    mover = await store.held_pass(registry, table)
    mover.cancel()
    with pytest.raises(asyncio.CancelledError):
        await mover
    store.release()
    # More moves work: the pass happened (it was committed), play goes on from it.
    await registry.act(table, 0, parse_action({"kind": "take_upcard"}), 2)
    await registry.act(table, 0, parse_action({"kind": "discard", "card": SEAT0_CARDS[0]}), 3)
    await registry.act(table, 1, parse_action({"kind": "draw_stock"}), 4)
    assert table.version == 5
    memory = [e.to_json() for e in table.match.log]
    await registry.close()
    await store.close()
    disk = (await on_disk(path))[table.id].log
    assert memory == disk


@pytest.mark.anyio
async def test_a_caller_cancelled_while_waiting_for_the_lock_still_has_its_move_made(
    tmp_path: Path,
) -> None:
    """Cancelled before its turn at the lock: the section still runs, whole, in order."""
    path = tmp_path / "t.sqlite3"

    store, registry, table = await gated_table(path)
    first = await store.held_pass(registry, table)
    second = asyncio.create_task(registry.act(table, 0, parse_action({"kind": "take_upcard"}), 2))
    await asyncio.sleep(0)
    second.cancel()
    store.release()
    await first
    with pytest.raises(asyncio.CancelledError):
        await second
    await registry.close()  # waits for every section still running
    version, memory = table.version, [e.to_json() for e in table.match.log]
    await store.close()
    disk = (await on_disk(path))[table.id].log
    assert version == 3 and memory == disk


@pytest.mark.anyio
async def test_a_failing_store_refuses_the_move_logs_once_and_recovers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "hollywood_gin")
    path = tmp_path / "t.sqlite3"

    store = SqliteStore(path)
    await store.open()
    registry = registry_on(store)
    table = await two_seats(registry)
    before = snapshot(table)
    refuse_writes(path)
    for _ in range(5):
        with pytest.raises(StoreUnavailable) as refused:
            await registry.act(table, 1, parse_action({"kind": "pass"}), 1)
        assert refused.value.code == "server_error"
        assert snapshot(table) == before
    with pytest.raises(StoreUnavailable):
        await registry.create(HAND_OPTIONS, "Cy")
    assert len(registry) == 1
    accept_writes(path)
    await registry.act(table, 1, parse_action({"kind": "pass"}), 1)  # the same move, now stored
    assert table.version == 2
    memory = [e.to_json() for e in table.match.log]
    await registry.close()
    await store.close()
    assert (await on_disk(path))[table.id].log == memory
    lines = [r for r in caplog.records if r.name == "hollywood_gin.tables"]
    failed = [r for r in lines if "storing a change failed" in r.getMessage()]
    again = [r for r in lines if "works again" in r.getMessage()]
    assert len(failed) == 1 and failed[0].levelno == logging.ERROR
    assert "disk is full" in failed[0].getMessage()
    assert len(again) == 1 and "6 failures" in again[0].getMessage()


@pytest.mark.anyio
async def test_a_seat_whose_deal_was_not_stored_stays_free(tmp_path: Path) -> None:
    """The seats are stored, then the deal fails: nobody sat down, now or after a restart."""
    path = tmp_path / "t.sqlite3"

    store = SqliteStore(path)
    await store.open()
    registry = registry_on(store)
    table, _ = await registry.create(HAND_OPTIONS, "Ann")
    refuse_writes(path, ["events"])  # the deal's events are refused, not the seats
    with pytest.raises(StoreUnavailable):
        await registry.join(table.id, "Bob")
    assert len(table.seats) == 1 and table.status == "waiting"
    await registry.close()
    await store.close()
    accept_writes(path)
    with sqlite3.connect(path) as db:
        (seats,) = db.execute("SELECT seats FROM tables").fetchone()
    assert "Bob" in seats  # stored before the deal failed

    store = SqliteStore(path)
    await store.open()
    again = registry_on(store)
    await again.load()
    rebuilt = again.get(table.id)
    assert rebuilt is not None and [s.name for s in rebuilt.seats] == ["Ann"]
    await again.join(table.id, "Cy")
    assert rebuilt.status == "playing" and [p["name"] for p in again.presence.players(rebuilt)] == [
        "Ann",
        "Cy",
    ]
    await again.close()
    await store.close()


def state_versions(conn: Connection) -> list[int]:
    return [m["version"] for m in map(orjson.loads, conn.pending()) if m["type"] == "state"]


@pytest.mark.anyio
@pytest.mark.parametrize("stored", [True, False])
async def test_nobody_sees_a_move_before_it_is_stored(tmp_path: Path, stored: bool) -> None:
    """A player arriving while a move commits changes everybody's players list, so
    everybody is sent a state: it must not show the move before it is stored, nor
    ever when the store refuses it. (A worker that slept through losing its table
    showed a stale client a move that the table's new owner never saw.)"""
    path = tmp_path / "t.sqlite3"

    store, registry, table = await gated_table(path)
    seat0 = Connection(0)
    registry.hub.attach(table, seat0)
    assert state_versions(seat0) == [1]
    if not stored:
        refuse_writes(path)
    mover = await store.held_pass(registry, table)
    # While the pass commits: seat 1 opens a tab, a spectator arrives.
    seat1, spectator = Connection(1), Connection(None)
    registry.hub.attach(table, seat1)
    registry.hub.attach(table, spectator)
    during = [v for c in (seat0, seat1, spectator) for v in state_versions(c)]
    store.release()
    if stored:
        await mover
    else:
        with pytest.raises(StoreUnavailable):
            await mover
    after = [state_versions(c)[-1] for c in (seat0, seat1, spectator)]
    await registry.close()
    await store.close()
    assert during == [1]  # seat 0's state from before the move, nothing new
    assert after == ([2, 2, 2] if stored else [1, 1, 1])
