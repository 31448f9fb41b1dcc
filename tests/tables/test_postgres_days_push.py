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
from hollywood_gin.tables.postgres_store import PostgresStore  # noqa: E402
from hollywood_gin.tables.push import load_keys  # noqa: E402
from hollywood_gin.tables.store import SeatRecord, TableRecord  # noqa: E402
from hollywood_gin.tables.table import rebuild_table  # noqa: E402
from tests.postgres import pg_url, postgres  # noqa: E402, F401 (fixtures)

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
