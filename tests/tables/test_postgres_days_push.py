"""PostgreSQL mode (several workers): every worker signs Web Push with the one VAPID key
kept in the database, and a seat's deadline and subscriptions go with the table when
another worker claims it (docs/protocol-guide.md "Correspondence tables",
"Notifications")."""

from __future__ import annotations

from pathlib import Path

import pytest

asyncpg = pytest.importorskip("asyncpg")
pytestmark = pytest.mark.anyio

from hollywood_gin.engine.actions import Action  # noqa: E402
from hollywood_gin.engine.match import Match  # noqa: E402
from hollywood_gin.engine.options import Options  # noqa: E402
from hollywood_gin.tables.ownership import Shared  # noqa: E402
from hollywood_gin.tables.postgres_store import PostgresStore  # noqa: E402
from hollywood_gin.tables.push import load_keys  # noqa: E402
from hollywood_gin.tables.registry import Registry  # noqa: E402
from hollywood_gin.tables.store import SeatRecord, TableRecord  # noqa: E402
from hollywood_gin.tables.table import Table, rebuild_table  # noqa: E402
from tests.postgres import pg_url, postgres  # noqa: E402, F401 (fixtures)
from tests.tables.helpers import registry_on  # noqa: E402

SUBJECT = "mailto:ops@example.org"


async def test_every_worker_gets_the_one_key(pg_url: str, tmp_path: Path) -> None:  # noqa: F811
    one, two = PostgresStore(pg_url, owner="w1"), PostgresStore(pg_url, owner="w2")
    await one.open()
    await two.open()
    try:
        first = await load_keys(SUBJECT, None, one, tmp_path / "unused.sqlite3")
        second = await load_keys(SUBJECT, None, two, tmp_path / "unused.sqlite3")
        assert first is not None and second is not None
        assert first.key == second.key
        assert not (tmp_path / "unused.sqlite3.vapid").exists()  # in the database only
    finally:
        await one.close()
        await two.close()


async def test_a_deadline_and_subscriptions_move_with_the_table(pg_url: str) -> None:  # noqa: F811
    one, two = PostgresStore(pg_url, owner="w1"), PostgresStore(pg_url, owner="w2")
    await one.open()
    await two.open()
    try:
        sub = {"endpoint": "https://fcm.googleapis.com/x", "p256dh": "k", "auth": "a"}
        seats = [
            SeatRecord("Ann", "h0", deadline=1_800_000_123.5, push=[sub]),
            SeatRecord("Bob", "h1"),
        ]
        record = TableRecord("T" * 22, {"move_days": 3}, seats, 1.0, 1.0)
        await one.create(record)
        claimed = await two.claim(record.table_id, "w2")
        assert claimed is not None
        _epoch, moved = claimed
        assert moved.seats[0].deadline == 1_800_000_123.5
        assert moved.seats[0].push == [sub]
        assert moved.seats[1].deadline is None
        assert moved.options["move_days"] == 3
    finally:
        await one.close()
        await two.close()


async def test_the_record_between_friends_moves_with_the_table(pg_url: str) -> None:  # noqa: F811
    """The matches each seat won are in the table's log (its deals' snapshots): the
    worker that claims the table, compacted or not, has them
    (docs/protocol-guide.md "A record between friends")."""
    options = Options("standard", "hand", 100)
    match = Match(options)
    match.endings = True
    match.start()
    for loser in (1, 0, 1):  # Ann, Bob, Ann win: 2-1
        match.apply(loser, Action.of("resign"))
        match.apply(0, Action.of("new_match"))
        match.apply(1, Action.of("new_match"))
    assert match.matches_won == (2, 1)
    one, two = PostgresStore(pg_url, owner="w1"), PostgresStore(pg_url, owner="w2")
    await one.open()
    await two.open()
    try:
        seats = [SeatRecord("Ann", "h0"), SeatRecord("Bob", "h1")]
        log = [e.to_json() for e in match.log]
        record = TableRecord("R" * 22, options.to_dict(), seats, 1.0, 1.0, log=log)
        await one.create(record)
        claimed = await two.claim(record.table_id, "w2")
        assert claimed is not None
        _epoch, moved = claimed
        assert rebuild_table(moved, rng=None).match.matches_won == (2, 1)
        dropped, hands = match.compaction()
        match.compact()
        await two.compact(record.table_id, dropped, hands)
        claimed = await one.claim(record.table_id, "w1")
        assert claimed is not None
        _epoch, moved = claimed
        assert moved.base == dropped
        table = rebuild_table(moved, rng=None)
        assert table.match.matches_won == (2, 1)
        assert table.public([])["matches_won"] == [2, 1]
    finally:
        await one.close()
        await two.close()


DAY = 100.0  # seconds of a short day (`seconds_per_day`, as HOLLYWOOD_GIN_SECONDS_PER_DAY)


async def days_worker(url: str, name: str, now: list[float]) -> Registry:
    store = PostgresStore(url, owner=name)
    await store.open()
    return registry_on(
        store, expiry_seconds=10 * DAY, owner=name, clock=lambda: now[0], seconds_per_day=DAY
    )


async def released_days_table(registry: Registry, now: list[float]) -> Table:
    """A table played over days (a day each move), both seated, let go when idle."""
    table, _ = await registry.create({"move_days": 1}, "Ann")
    await registry.join(table.id, "Bob")
    ownership = registry.ownership
    assert isinstance(ownership, Shared)
    ownership.release_seconds = DAY / 10  # let go well before the day is out
    now[0] += ownership.release_seconds + 1
    assert ownership.release_idle() == 1
    assert registry.get(table.id) is None
    return table


async def test_a_deadline_of_a_table_a_worker_let_go_passes(pg_url: str) -> None:  # noqa: F811
    """A worker of a shared store lets an idle table go: its deadline still passes
    with nobody connected (claimed back for it), the seat asked is away."""
    now = [1_000.0]
    a = await days_worker(pg_url, "a", now)
    try:
        table = await released_days_table(a, now)
        deadline = min(h.deadline for h in table.seats if h.deadline is not None)
        await a.presence.tick(wait=True)
        assert a.get(table.id) is None  # nothing due yet: not claimed
        now[0] = deadline
        await a.presence.tick(wait=True)
        back = a.get(table.id)
        assert back is not None and [h.deadline for h in back.seats] == [
            h.deadline for h in table.seats
        ]
        await a.presence.tick(wait=True)
        assert any(back.match.presence.absent)
    finally:
        await a.close()
        await a.store.close()


async def test_a_table_claimed_elsewhere_is_not_claimed_back_for_its_deadline(
    pg_url: str,  # noqa: F811
) -> None:
    """Another worker claimed the table after it was let go: that worker's clock has
    it; the one that let it go does not take it back when the look falls due."""
    now = [1_000.0]
    a, b = await days_worker(pg_url, "a", now), await days_worker(pg_url, "b", now)
    try:
        table = await released_days_table(a, now)
        elsewhere = await b.find(table.id)
        assert elsewhere is not None
        claimed = b.writer.ledger(elsewhere).epoch
        now[0] = min(h.deadline for h in table.seats if h.deadline is not None)
        await a.presence.tick(wait=True)
        assert a.get(table.id) is None
        assert (await a.store.owners([table.id]))[table.id] == claimed
        assert a.presence.next_look(table.id) is None  # nothing kept of it at a
    finally:
        for r in (a, b):
            await r.close()
            await r.store.close()
