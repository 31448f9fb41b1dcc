"""The stores: SQLite on a real file (reopened to prove durability) and memory."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from hollywood_gin.tables.sqlite_file import SCHEMA_VERSION
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.store import FIRST_EPOCH, SeatRecord, TableRecord, TableStore
from tests.tables.faults import refuse_writes
from tests.tables.stores import make_store, opened, pg_url, postgres, record, store_kind

__all__ = ["pg_url", "postgres", "store_kind"]  # fixtures


async def roundtrip(store: TableStore) -> list[TableRecord]:
    await store.create(record("t1"))
    await store.create(record("t2", last_active=10.0))
    seats = [SeatRecord("Ann", "a" * 64), SeatRecord("Bob", "b" * 64, None)]
    await store.save_seats("t1", seats, FIRST_EPOCH)
    deal = [{"event": "deal", "deck": ["AC"]}, {"event": "action"}]
    await store.append("t1", 1, deal, 120.0, FIRST_EPOCH)
    await store.append("t1", 3, [{"event": "arrange"}], 130.0, FIRST_EPOCH)
    await store.touch("t2", 20.0)
    return await store.load_all()


@pytest.mark.anyio
async def test_create_seats_append_load(store_kind: str, tmp_path: Path) -> None:
    async with opened(make_store(store_kind, tmp_path / "s.sqlite3")) as store:
        loaded = {r.table_id: r for r in await roundtrip(store)}
    t1 = loaded["t1"]
    assert [e["event"] for e in t1.log] == ["start", "deal", "action", "arrange"]
    assert [s.name for s in t1.seats] == ["Ann", "Bob"]
    assert t1.last_active == 130.0 and t1.created == 50.0
    assert loaded["t2"].last_active == 20.0


@pytest.mark.anyio
async def test_sqlite_survives_reopening_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "s.sqlite3"  # the folder is made on open

    async with opened(SqliteStore(path)) as store:
        await roundtrip(store)
    async with opened(SqliteStore(path)) as store:
        loaded = {r.table_id: r for r in await store.load_all()}
    assert len(loaded["t1"].log) == 4
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.anyio
async def test_a_gap_or_a_repeat_in_the_log_is_refused(store_kind: str, tmp_path: Path) -> None:
    store = make_store(store_kind, tmp_path / "s.sqlite3")
    await store.open()
    try:
        await store.create(record("t1"))
        with pytest.raises(RuntimeError):
            await store.append("t1", 0, [{"event": "again"}], 1.0, 1)  # seq 0 exists
        with pytest.raises(RuntimeError):
            await store.append("t1", 2, [{"event": "gap"}], 1.0, 1)  # seq 1 is missing
        # The failed write left nothing behind; the next one goes through.
        await store.append("t1", 1, [{"event": "next"}], 1.0, 1)
        (loaded,) = await store.load_all()
        assert [e["event"] for e in loaded.log] == ["start", "next"]
    finally:
        await store.close()


@pytest.mark.anyio
async def test_expire_removes_idle_tables_and_their_events(store_kind: str, tmp_path: Path) -> None:
    async with opened(make_store(store_kind, tmp_path / "s.sqlite3")) as store:
        await store.create(record("old", last_active=10.0))
        await store.create(record("new", last_active=100.0))
        gone = await store.expire(before=50.0)
        left = [r.table_id for r in await store.load_all()]
    assert gone == ["old"] and left == ["new"]
    if store_kind == "sqlite":
        with sqlite3.connect(tmp_path / "s.sqlite3") as db:
            assert db.execute("SELECT COUNT(*) FROM events WHERE table_id='old'").fetchone() == (0,)


@pytest.mark.anyio
async def test_an_append_makes_its_table_active_for_expiry_and_after_reopening(
    store_kind: str, tmp_path: Path
) -> None:
    path = tmp_path / "s.sqlite3"
    async with opened(make_store(store_kind, path)) as store:
        await store.create(record("played", last_active=10.0))
        await store.create(record("idle", last_active=10.0))
        await store.append("played", 1, [{"event": "action"}], 100.0, FIRST_EPOCH)
        if store_kind == "sqlite":  # committed once acknowledged: another connection sees it
            with sqlite3.connect(path) as db:
                rows = db.execute("SELECT seq, at FROM events WHERE table_id = 'played'")
                assert rows.fetchall() == [(0, None), (1, 100.0)]
        assert await store.expire(before=50.0) == ["idle"]
        (loaded,) = await store.load_all()
        assert loaded.last_active == 100.0
    if store_kind != "sqlite":
        return
    # Read back by another connection while the store still holds the file (so as a
    # killed process leaves it), then by the store reopened: the append's time is kept.
    async with opened(SqliteStore(path)) as store:
        with sqlite3.connect(path) as db:
            (row,) = db.execute("SELECT last_active FROM tables WHERE id = 'played'")
            assert row == (10.0,)  # the row is not rewritten by an append: `events.at` is
        assert [r.last_active for r in await store.load_all()] == [100.0]
        claimed = await store.claim("played", "me")
        assert claimed is not None and claimed[1].last_active == 100.0
        assert await store.expire(before=99.0) == []
        await store.append("played", 2, [{"event": "action"}], 150.0, claimed[0])
        assert await store.expire(before=120.0) == []
        assert await store.expire(before=151.0) == ["played"]
        assert await store.load_all() == []


@pytest.mark.anyio
async def test_a_schema_5_file_gains_append_times_and_keeps_each_last_activity(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v5.sqlite3"
    async with opened(SqliteStore(path)) as store:
        await store.create(record("t1", last_active=40.0))
        await store.create(record("t2", last_active=60.0))
        await store.append("t1", 1, [{"event": "action"}], 70.0, FIRST_EPOCH)
    with sqlite3.connect(path) as db:  # as version 5 left it: no `at`, the row's time
        db.execute("ALTER TABLE events DROP COLUMN at")
        db.execute("UPDATE tables SET last_active = 70.0 WHERE id = 't1'")
        db.execute("PRAGMA user_version = 5")

    async with opened(SqliteStore(path)) as store:
        assert {r.table_id: r.last_active for r in await store.load_all()} == {
            "t1": 70.0,
            "t2": 60.0,
        }
        assert await store.expire(before=65.0) == ["t2"]
        await store.append("t1", 2, [{"event": "action"}], 80.0, FIRST_EPOCH)
        (loaded,) = await store.load_all()
        assert ([e["event"] for e in loaded.log], loaded.last_active) == (
            ["start", "action", "action"],
            80.0,
        )
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (7,)
        assert db.execute("SELECT seq, at FROM events WHERE table_id = 't1'").fetchall() == [
            (0, None),
            (1, None),
            (2, 80.0),
        ]


@pytest.mark.anyio
async def test_concurrent_writes_are_grouped_into_fewer_commits(tmp_path: Path) -> None:
    async with opened(SqliteStore(tmp_path / "s.sqlite3")) as store:
        for i in range(20):
            await store.create(record(f"t{i}"))
        base_commits, base_writes = store.commits, store.writes
        await asyncio.gather(
            *(store.append(f"t{i}", 1, [{"event": "action", "n": i}], 1.0, 1) for i in range(20))
        )
        loaded = await store.load_all()
        assert all(len(r.log) == 2 for r in loaded)
        commits, writes, tables = (
            store.commits - base_commits,
            store.writes - base_writes,
            len(loaded),
        )
    assert writes == 20 and tables == 20
    # The first append commits alone; the 19 queued behind it share one transaction.
    assert commits < writes, (commits, writes)


@pytest.mark.anyio
async def test_a_failed_write_fails_alone_within_its_batch(tmp_path: Path) -> None:
    async with opened(SqliteStore(tmp_path / "s.sqlite3")) as store:
        await store.create(record("t1"))
        await store.create(record("t2"))
        first, second, third = await asyncio.gather(
            store.append("t1", 1, [{"event": "a"}], 1.0, 1),
            store.append("t1", 1, [{"event": "b"}], 1.0, 1),  # same seq: refused
            store.append("t2", 1, [{"event": "x"}], 1.0, 1),  # another table: unaffected
            return_exceptions=True,
        )
        loaded = {r.table_id: [e["event"] for e in r.log] for r in await store.load_all()}
    assert first is None and third is None
    assert isinstance(second, RuntimeError)
    assert loaded == {"t1": ["start", "a"], "t2": ["start", "x"]}


@pytest.mark.anyio
@pytest.mark.parametrize("batch", ["one statement", "several statements", "a transaction"])
async def test_a_batch_of_appends_with_one_sqlite_refuses_fails_that_one_alone(
    tmp_path: Path, batch: str
) -> None:
    """The batched insert falls back to one append at a time when SQLite refuses one:
    a batch of a few appends (one INSERT, its own transaction), of more rows than one
    statement takes (a savepoint around them), or with another write (a transaction)."""
    path = tmp_path / "s.sqlite3"
    more = [f"m{i}" for i in range(70)] if batch == "several statements" else []

    async with opened(SqliteStore(path)) as store:
        for name in ("t1", "t2", "t3", *more):
            await store.create(record(name))
        # SQLite itself refuses t3's events from now on (as a full disk would).
        refuse_writes(path, ["events"], when="NEW.table_id = 't3'", message="refused")
        others = [store.append(m, 1, [{"event": "m"}], 1.0, 1) for m in more]
        if batch == "a transaction":
            others.append(store.touch("t2", 5.0))
        a, nowhere, refused, x, b, *rest = await asyncio.gather(
            store.append("t1", 1, [{"event": "a"}], 1.0, 1),
            store.append("nowhere", 0, [{"event": "z"}], 1.0, 1),  # no such table: refused
            store.append("t3", 1, [{"event": "q"}], 1.0, 1),  # refused by SQLite
            store.append("t2", 1, [{"event": "x"}, {"event": "y"}], 1.0, 1),
            store.append("t1", 2, [{"event": "b"}], 1.0, 1),  # follows the first one
            *others,
            return_exceptions=True,
        )
        # t3's log still ends at 0: the refused append left nothing behind.
        with pytest.raises(RuntimeError):
            await store.append("t3", 2, [{"event": "after"}], 1.0, 1)
        loaded = {r.table_id: [e["event"] for e in r.log] for r in await store.load_all()}
    assert a is None and x is None and b is None and rest == [None] * len(others)
    assert isinstance(nowhere, RuntimeError) and "nowhere" in str(nowhere)
    assert isinstance(refused, sqlite3.IntegrityError) and "refused" in str(refused)
    assert loaded == {
        "t1": ["start", "a", "b"],
        "t2": ["start", "x", "y"],
        "t3": ["start"],
        **{m: ["start", "m"] for m in more},
    }


@pytest.mark.anyio
async def test_a_table_deleted_and_created_again_starts_its_log_afresh(tmp_path: Path) -> None:
    async with opened(SqliteStore(tmp_path / "s.sqlite3")) as store:
        await store.create(record("t1"))
        await store.append("t1", 1, [{"event": "a"}, {"event": "b"}], 1.0, 1)  # ends at 2
        await store.delete("t1")
        await store.create(record("t1"))  # ends at 0 again
        with pytest.raises(RuntimeError):
            await store.append("t1", 3, [{"event": "stale"}], 1.0, 1)
        await store.append("t1", 1, [{"event": "fresh"}], 1.0, 1)
        (loaded,) = await store.load_all()
    assert [e["event"] for e in loaded.log] == ["start", "fresh"]


# The layout of the first releases (schema version 1, no user_version set), as it was.
V1_SCHEMA = """
CREATE TABLE tables (
    id TEXT PRIMARY KEY, options TEXT NOT NULL, seats TEXT NOT NULL, hooks TEXT NOT NULL,
    created REAL NOT NULL, last_active REAL NOT NULL
);
CREATE TABLE events (
    table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE INDEX tables_last_active ON tables(last_active);
"""


@pytest.mark.anyio
async def test_a_file_of_the_first_layout_is_migrated_and_plays_on(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(V1_SCHEMA)
        for name in ("b", "a"):
            db.execute(
                "INSERT INTO tables VALUES (?, ?, ?, ?, 1.0, 2.0)",
                (name, '{"rules": "standard"}', '[{"name": "Ann", "token_hash": "h"}]', "{}"),
            )
        # Written out of order: the old layout's key, not the insertion, gave the order.
        for table_id, seq in [("a", 2), ("b", 0), ("a", 0), ("a", 1)]:
            db.execute("INSERT INTO events VALUES (?, ?, ?)", (table_id, seq, f'{{"n": {seq}}}'))

    async with opened(SqliteStore(path)) as store:
        with pytest.raises(RuntimeError):
            await store.append("a", 2, [{"n": "again"}], 3.0, 1)  # seq 2 is stored
        await store.append("a", 3, [{"n": 3}], 3.0, 1)
        await store.append("b", 1, [{"n": 1}], 3.0, 1)
        loaded = {r.table_id: r for r in await store.load_all()}
    assert [e["n"] for e in loaded["a"].log] == [0, 1, 2, 3]
    assert [e["n"] for e in loaded["b"].log] == [0, 1]
    assert loaded["a"].last_active == 3.0 and loaded["a"].seats[0].name == "Ann"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE name = 'events'").fetchone()
        assert "WITHOUT ROWID" not in sql.upper()
        # Schema 4 dropped the test hooks' column, which nothing read after a restart.
        columns = {row[1] for row in db.execute("PRAGMA table_info(tables)")}
        assert "hooks" not in columns and "base_seq" in columns


@pytest.mark.anyio
async def test_reviews_are_kept_per_hand_and_seat_and_go_with_their_table(
    store_kind: str, tmp_path: Path
) -> None:
    review = {"hand": 1, "seat": 0, "decisions": [], "summary": {"decisions": 0}}

    async with opened(make_store(store_kind, tmp_path / "s.sqlite3")) as store:
        await store.create(record("t1"))
        await store.create(record("old", last_active=10.0))
        seen: list[object] = [await store.review("t1", 1, 0)]
        await store.save_review("t1", 1, 0, review)
        await store.save_review("old", 1, 0, review)
        await store.save_review("gone", 1, 0, review)  # no such table: nothing kept
        seen += [
            await store.review("t1", 1, 0),
            await store.review("t1", 1, 1),
            await store.review("t1", 2, 0),
            await store.review("gone", 1, 0),
        ]
        await store.save_review("t1", 1, 0, {**review, "again": True})  # the same key
        seen.append(await store.review("t1", 1, 0))
        await store.expire(before=50.0)
        seen.append(await store.review("old", 1, 0))
        await store.delete("t1")
        seen.append(await store.review("t1", 1, 0))
    assert seen == [None, review, None, None, None, {**review, "again": True}, None, None]


@pytest.mark.anyio
async def test_a_schema_4_file_gains_the_reviews_and_keeps_its_tables(tmp_path: Path) -> None:
    path = tmp_path / "v4.sqlite3"

    async with opened(SqliteStore(path)) as store:
        await store.create(record("t1"))
    with sqlite3.connect(path) as db:  # as version 4 left it: no reviews
        db.execute("DROP TABLE reviews")
        db.execute("PRAGMA user_version = 4")

    async with opened(SqliteStore(path)) as store:
        await store.save_review("t1", 1, 1, {"hand": 1})
        tables = [r.table_id for r in await store.load_all()]
        assert (tables, await store.review("t1", 1, 1)) == (["t1"], {"hand": 1})
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (7,)
