"""Two registries (two workers) on one PostgreSQL store: lazy claims, the refused
append that means "not the owner", the ownership watch
(docs/architecture.md "One owner per table")."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hollywood_gin.engine.actions import Action, parse_action
from hollywood_gin.tables.errors import Moved, StoreUnavailable
from hollywood_gin.tables.hub import CLOSE_RESTART, Connection
from hollywood_gin.tables.ownership import Shared
from hollywood_gin.tables.postgres_store import PostgresStore
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.store import FIRST_EPOCH
from hollywood_gin.tables.table import Table
from hollywood_gin.tables.writer import Ledger
from tests.postgres import pg_url, postgres
from tests.tables.helpers import HAND_OPTIONS, registry_on, two_seats
from tests.wire import playable, wire

__all__ = ["pg_url", "postgres"]  # fixtures


async def worker(url: str, name: str, store_class: type[PostgresStore] = PostgresStore) -> Registry:
    store = store_class(url, owner=name)
    await store.open()
    return registry_on(store, expiry_seconds=3600.0, owner=name)


async def shut(*registries: Registry) -> None:
    for r in registries:
        await r.close()
        await r.store.close()


def shared(registry: Registry) -> Shared:
    """The registry's ownership, chosen from its store: shared with PostgreSQL."""
    assert isinstance(registry.ownership, Shared)
    return registry.ownership


def ledger(registry: Registry, table: Table) -> Ledger:
    return registry.writer.ledger(table)


def epoch(registry: Registry, table: Table) -> int:
    """The epoch the registry writes `table` under (its writer's ledger)."""
    return ledger(registry, table).epoch


def first_legal(table: Any, seat: int) -> dict[str, Any]:
    legal: list[dict[str, Any]] = playable(wire(table.match.view(seat))["legal"])
    return legal[0]


async def outage(registry: Registry) -> tuple[Table, int, Action]:
    """The outage tests' start: store calls given up after 0.5 s, a table with two
    seats, and the first legal move of the seat to act."""
    shared(registry).store_seconds = 0.5
    table = await two_seats(registry)
    seat = wire(table.match.view(None))["hand"]["turn"]
    return table, seat, parse_action(first_legal(table, seat))


@pytest.mark.anyio
async def test_a_worker_claims_on_first_request_and_the_old_owner_is_refused(pg_url: str) -> None:
    a, b = await worker(pg_url, "a"), await worker(pg_url, "b")
    try:
        table = await two_seats(a)
        assert b.get(table.id) is None  # nothing loaded: claimed when asked for
        conn = Connection(0)
        a.hub.attach(table, conn)
        before = len(conn.pending())
        moved = await b.find(table.id)
        assert moved is not None and epoch(b, moved) == epoch(a, table) + 1
        assert moved.version == table.version
        seat = wire(moved.match.view(None))["hand"]["turn"]
        # The old owner still holds its copy until it writes: its append is refused,
        # the table dropped, its socket closed with 1012, and nothing was broadcast.
        with pytest.raises(Moved) as refused:
            await a.act(table, seat, parse_action(first_legal(table, seat)), table.version)
        assert refused.value.code == "server_error"
        assert a.get(table.id) is None
        assert conn.close_code == CLOSE_RESTART
        assert len(conn.pending()) == before
        # The new owner plays on from the same version.
        await b.act(moved, seat, parse_action(first_legal(moved, seat)), moved.version)
        assert moved.version == table.version + 1
    finally:
        await shut(a, b)


@pytest.mark.anyio
async def test_the_watch_drops_a_table_claimed_elsewhere_without_a_move(pg_url: str) -> None:
    a, b = await worker(pg_url, "a"), await worker(pg_url, "b")
    try:
        t1, _ = await a.create(HAND_OPTIONS, "Ann")
        t2, _ = await a.create(HAND_OPTIONS, "Cy")
        conn = Connection(None)
        a.hub.attach(t1, conn)
        assert await shared(a).watch_once() == 0
        await b.find(t1.id)
        assert await shared(a).watch_once() == 1
        assert a.get(t1.id) is None and a.get(t2.id) is t2
        assert conn.close_code == CLOSE_RESTART
        # Asked again, it claims it back: one more epoch, one owner.
        back = await a.find(t1.id)
        assert back is not None and epoch(a, back) == 3
        assert await shared(b).watch_once() == 1 and b.get(t1.id) is None
    finally:
        await shut(a, b)


@pytest.mark.anyio
async def test_concurrent_first_requests_make_one_claim(pg_url: str) -> None:
    a, b = await worker(pg_url, "a"), await worker(pg_url, "b")
    try:
        table, _ = await a.create(HAND_OPTIONS, "Ann")
        found = await asyncio.gather(*(b.find(table.id) for _ in range(10)))
        assert all(f is found[0] for f in found) and shared(b).claims == 1
        assert await b.find("no-such-table") is None
    finally:
        await shut(a, b)


@pytest.mark.anyio
async def test_idle_tables_leave_memory_and_come_back_when_asked_for(pg_url: str) -> None:
    now = [1_000.0]
    store = PostgresStore(pg_url, owner="a")
    await store.open()
    a = registry_on(store, expiry_seconds=3600.0, clock=lambda: now[0])
    try:
        idle, _ = await a.create(HAND_OPTIONS, "Ann")
        watched, _ = await a.create(HAND_OPTIONS, "Cy")
        a.hub.attach(watched, Connection(None))
        now[0] += shared(a).release_seconds + 1
        assert shared(a).release_idle() == 1
        assert a.get(idle.id) is None and a.get(watched.id) is watched
        back = await a.find(idle.id)
        assert back is not None and epoch(a, back) == FIRST_EPOCH + 1
    finally:
        await shut(a)


@pytest.mark.anyio
async def test_a_worker_woken_from_a_pause_looks_before_serving_what_it_holds(pg_url: str) -> None:
    a, b = await worker(pg_url, "a"), await worker(pg_url, "b")
    shared(a).watch_seconds = 0.05
    await shared(a).start("")
    try:
        table, _ = await a.create(HAND_OPTIONS, "Ann")
        await asyncio.sleep(0.1)
        await b.find(table.id)
        # As if paused: the watch has not run for longer than three rounds.
        shared(a)._watch_task.cancel()  # type: ignore[union-attr]
        shared(a)._watched_at -= 1.0
        again = await a.find(table.id)
        assert again is not None and again is not table
        assert epoch(a, again) == FIRST_EPOCH + 2  # b's claim, then a's own
    finally:
        await shut(a, b)


class Stalling(PostgresStore):
    """An append that never answers while `stall` is set, as asyncpg's can after a
    database restart (an unbounded pool acquire, a cancelled query's clean-up)."""

    stall = False

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.released = asyncio.Event()  # set when the test ends: no stall outlives it

    async def append(self, *args: Any, **kw: Any) -> None:
        if self.stall:
            await self.released.wait()
        await super().append(*args, **kw)


@pytest.mark.anyio
async def test_a_store_call_that_never_answers_frees_the_table_after_store_seconds(
    pg_url: str,
) -> None:
    registry = await worker(pg_url, "a", Stalling)
    store = registry.store
    assert isinstance(store, Stalling)
    try:
        table, seat, action = await outage(registry)
        store.stall = True
        # Refused as any store failure is (server_error), not waited on for ever:
        # the table's lock is free and the move may be sent again.
        with pytest.raises(StoreUnavailable) as refused:
            await asyncio.wait_for(registry.act(table, seat, action, table.version), 5)
        assert refused.value.code == "server_error"
        assert ledger(registry, table).doubtful and table.version == 1
        store.stall = False
        await asyncio.wait_for(registry.act(table, seat, action, 1), 5)
        assert table.version == 2 and not ledger(registry, table).doubtful
    finally:
        store.released.set()
        await shut(registry)


class Stubborn(PostgresStore):
    """A claim that, while `stall` is set, does not end even when cancelled: what
    asyncpg's clean-up of a query cut off by a database restart can do (a rollback
    that waits for the answer to a cancel request that never comes)."""

    stall = False

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.released = asyncio.Event()

    async def append(self, *args: Any, **kw: Any) -> None:
        if self.stall:
            raise ConnectionResetError("the database went away mid-commit")
        await super().append(*args, **kw)

    async def claim(self, *args: Any, **kw: Any) -> Any:
        while self.stall:
            try:
                await self.released.wait()
            except asyncio.CancelledError:
                continue  # swallowed: the clean-up goes on waiting
        return await super().claim(*args, **kw)


@pytest.mark.anyio
async def test_a_store_call_that_ignores_its_cancellation_still_frees_the_table(
    pg_url: str,
) -> None:
    """The outage test's stuck table (docs/scale-out.md "What happens when…"): a doubtful
    table's settling claim hung in a clean-up that outlived its cancellation, and `wait_for`
    waited for it: the table's lock was never free again. Given up at `store_seconds`, without
    waiting."""
    registry = await worker(pg_url, "a", Stubborn)
    store = registry.store
    assert isinstance(store, Stubborn)
    try:
        table, seat, action = await outage(registry)
        store.stall = True
        with pytest.raises(StoreUnavailable):  # the write fails: the table is doubtful
            await registry.act(table, seat, action, table.version)
        assert ledger(registry, table).doubtful
        # The move sent again: settling claims the table, and that claim hangs.
        with pytest.raises(StoreUnavailable) as refused:
            await asyncio.wait_for(registry.act(table, seat, action, table.version), 5)
        assert refused.value.code == "server_error"
        assert ledger(registry, table).doubtful and table.version == 1 and not table.lock.locked()
        store.stall = False
        store.released.set()
        await asyncio.wait_for(registry.act(table, seat, action, 1), 5)
        assert table.version == 2 and not ledger(registry, table).doubtful
    finally:
        store.released.set()
        await shut(registry)
