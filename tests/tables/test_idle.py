"""Idle tables leave memory (`hollywood_gin.tables.idle`): what keeps one in memory,
and that one read back is the table it was. The clock is the registry's, moved by
hand; the wire's side is tests/web/test_idle_tables.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from hollywood_gin.engine.actions import parse_action
from hollywood_gin.tables.hub import Connection
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.store import TableStore
from hollywood_gin.tables.table import Table
from tests.tables.helpers import registry_on, snapshot, two_seats
from tests.tables.memory_store import MemoryStore
from tests.wire import wire

IDLE = 600.0
DAY = 86400.0


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def idle_registry(store: TableStore, clock: Clock) -> Registry:
    registry = registry_on(store, idle_seconds=IDLE, expiry_seconds=100 * DAY)
    registry.clock = clock
    return registry


def later(registry: Registry, clock: Clock, seconds: float = 2 * IDLE) -> int:
    """The clock moved on by `seconds`; a sweep; how many tables it let go."""
    clock.now += seconds
    assert registry.idle is not None
    return registry.idle.sweep()


@pytest.mark.anyio
async def test_only_a_table_with_nothing_of_it_in_memory_leaves() -> None:
    store, clock = MemoryStore(), Clock()
    registry = idle_registry(store, clock)
    table = await two_seats(registry)
    await registry.presence.tick()
    assert later(registry, clock, IDLE / 2) == 0  # played a moment ago
    # A connection keeps it.
    conn = Connection(0)
    registry.hub.attach(table, conn)
    assert later(registry, clock) == 0
    registry.hub.detach(table, conn)
    # A card order not yet written keeps it; written, the table may go.
    cards = wire(table.view(0))["hand"]["my_cards"]
    await registry.arrange(table, 0, sorted(cards))
    assert later(registry, clock) == 0
    await registry.orders.flush(table)
    # A change under way (its lock) keeps it.
    async with table.lock:
        assert later(registry, clock) == 0
    # The seats' away looks passed (nothing due any more): it goes.
    await registry.presence.tick()
    assert later(registry, clock) == 1
    assert registry.get(table.id) is None
    await registry.close()


@pytest.mark.anyio
async def test_a_table_read_back_is_the_table_it_was() -> None:
    store, clock = MemoryStore(), Clock()
    registry = idle_registry(store, clock)
    table = await two_seats(registry)
    await registry.act(table, 1, parse_action({"kind": "pass"}), 1)
    await registry.arrange(table, 0, sorted(wire(table.view(0))["hand"]["my_cards"]))
    await registry.orders.flush(table)
    before = snapshot(table)
    clock.now += 2 * IDLE
    await registry.presence.tick()
    players = registry.presence.players(table)
    assert later(registry, clock, 0) == 0  # asked for since the last sweep: kept once more
    assert later(registry, clock, 0) == 1
    back = await registry.find(table.id)
    assert back is not None and back is not table
    assert snapshot(back) == before
    assert registry.presence.players(back) == players  # away since when it was
    await registry.act(back, 0, parse_action({"kind": "take_upcard"}), 2)
    assert len(store.records[table.id].log) == len(back.match.log)
    await registry.close()


async def days_table(registry: Registry) -> Table:
    table, _ = await registry.create({"move_days": 1}, "Ann")
    await registry.join(table.id, "Bob")
    return table


@pytest.mark.anyio
async def test_a_deadline_of_a_table_out_of_memory_loads_it_and_passes() -> None:
    store, clock = MemoryStore(), Clock()
    registry = idle_registry(store, clock)
    table = await days_table(registry)
    deadlines = [h.deadline for h in table.seats]
    later(registry, clock, 0)  # asked for (joined) since the last sweep: kept once more
    assert later(registry, clock) == 1
    # Not yet due: nothing loads it.
    await registry.presence.tick(wait=True)
    assert registry.get(table.id) is None
    # Due: loaded by the clock with nobody asking, and the seat asked is away.
    clock.now = max(d for d in deadlines if d is not None)
    await registry.presence.tick(wait=True)
    back = registry.get(table.id)
    assert back is not None and [h.deadline for h in back.seats] == deadlines
    await registry.presence.tick(wait=True)
    assert any(back.match.presence.absent)
    await registry.close()


@pytest.mark.anyio
async def test_a_start_loads_only_what_is_live_and_notes_the_deadlines() -> None:
    store, clock = MemoryStore(), Clock()
    registry = idle_registry(store, clock)
    old = await two_seats(registry)
    days = await days_table(registry)
    clock.now += 2 * DAY / 3  # the days table's deadline: a third of a day away
    fresh = await two_seats(registry)
    await registry.close()
    again = idle_registry(store, clock)
    assert await again.load() == 1
    assert again.get(fresh.id) is not None and again.get(old.id) is None
    assert again.get(days.id) is None
    clock.now += DAY / 3
    await again.presence.tick(wait=True)
    assert again.get(days.id) is not None  # its deadline came: loaded for it
    assert await again.find(old.id) is not None  # asked for: read back
    await again.close()


@pytest.mark.anyio
async def test_the_file_store_keeps_a_last_seq_only_for_the_tables_in_memory(
    tmp_path: Path,
) -> None:
    clock = Clock()
    store = SqliteStore(tmp_path / "tables.sqlite3")
    await store.open()
    registry = idle_registry(store, clock)
    table = await two_seats(registry)
    await two_seats(registry)
    await registry.act(table, 1, parse_action({"kind": "pass"}), 1)
    await registry.close()
    await store.close()
    # Opened again past the idle time: nothing is live, nothing is kept per table.
    clock.now += 2 * IDLE
    store = SqliteStore(tmp_path / "tables.sqlite3")
    await store.open()
    again = idle_registry(store, clock)
    assert await again.load() == 0
    assert await store.seqs_kept() == 0
    # Asked for: claimed, and its appends follow the stored log.
    back = await again.find(table.id)
    assert back is not None and await store.seqs_kept() == 1
    await again.act(back, 0, parse_action({"kind": "pass"}), back.version)
    # Idle again: it leaves memory, and the store forgets it too.
    later(again, clock, 0)  # asked for since the last sweep: kept once more
    clock.now += 2 * IDLE
    await again.presence.tick()  # the seats' away looks pass
    assert later(again, clock, 0) == 1
    assert await store.seqs_kept() == 0
    # Read back once more: its log, and the move made before, are all there.
    logged = len(back.match.log)
    back = await again.find(table.id)
    assert back is not None and len(back.match.log) == logged
    await again.close()
    await store.close()
