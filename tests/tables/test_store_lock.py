"""One writer per data file, and one row per seq: the store's lock on the file and the
events' primary key (schema 7). The servers in processes of their own, and `kill -9`:
tests/test_one_server.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hollywood_gin.tables.sqlite_file import (
    SCHEMA_VERSION,
    DataFileLock,
    FileInUse,
    file_holder,
    lock_path,
)
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.store import FIRST_EPOCH
from tests.tables.stores import opened, record


@pytest.mark.anyio
async def test_a_second_store_on_the_file_is_refused_until_the_first_closes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tables.sqlite3"
    async with opened(SqliteStore(path)) as first:
        await first.create(record("t1"))
        assert file_holder(path) is not None
        with pytest.raises(FileInUse) as refused:
            await SqliteStore(path).open()
        assert str(path) in str(refused.value)
        # The first goes on as if nothing happened.
        await first.append("t1", 1, [{"event": "action"}], 120.0, FIRST_EPOCH)
    assert file_holder(path) is None
    async with opened(SqliteStore(path)) as again:
        (loaded,) = await again.load_all()
        assert len(loaded.log) == 2


def test_the_lock_names_its_holder_and_lets_go_when_released(tmp_path: Path) -> None:
    path = tmp_path / "tables.sqlite3"
    with DataFileLock.acquire(path, "migrates", "stop it first"):
        said = file_holder(path)
        assert said is not None and "hollywood-gin migrate (process" in said
        with pytest.raises(FileInUse):
            DataFileLock.acquire(path)
    assert file_holder(path) is None
    assert lock_path(path).exists()  # kept: removing it would let two processes lock two files


@pytest.mark.anyio
async def test_no_file_holds_two_rows_for_one_seq(tmp_path: Path) -> None:
    path = tmp_path / "tables.sqlite3"
    async with opened(SqliteStore(path)) as store:
        await store.create(record("t1"))
    with sqlite3.connect(path) as db, pytest.raises(sqlite3.IntegrityError):
        db.execute("INSERT INTO events (table_id, seq, entry) VALUES ('t1', 0, '{}')")
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM events").fetchone() == (1,)


def as_schema_6(path: Path) -> None:
    """`events` as schema 6 had it: no key."""
    with sqlite3.connect(path) as db:
        db.executescript(
            """
            CREATE TABLE events_v6 (
                table_id TEXT NOT NULL, seq INTEGER NOT NULL, entry TEXT NOT NULL, at REAL
            );
            INSERT INTO events_v6 (rowid, table_id, seq, entry, at)
                SELECT rowid, table_id, seq, entry, at FROM events;
            DROP TABLE events;
            ALTER TABLE events_v6 RENAME TO events;
            PRAGMA user_version = 6;
            """
        )


@pytest.mark.anyio
async def test_a_schema_6_file_is_keyed_and_a_forked_log_set_aside_with_every_row_kept(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tables.sqlite3"
    async with opened(SqliteStore(path)) as store:
        for table_id in ("calm", "forked"):
            await store.create(record(table_id))
            await store.append(table_id, 1, [{"event": "mine"}], 120.0, FIRST_EPOCH)
    as_schema_6(path)
    with sqlite3.connect(path) as db:
        # A second server's moves under the same seqs, as two servers on one file left it.
        db.execute(
            "INSERT INTO events (table_id, seq, entry, at) VALUES"
            " ('forked', 1, '{\"event\": \"theirs\"}', 121.0),"
            " ('forked', 2, '{\"event\": \"theirs too\"}', 122.0)"
        )
        db.execute("INSERT INTO events (table_id, seq, entry) VALUES ('calm', 2, '{\"n\": 2}')")

    async with opened(SqliteStore(path)) as store:
        loaded = {r.table_id: r for r in await store.load_all()}
        aside = await store.set_aside_tables()
        await store.append("calm", 3, [{"event": "more"}], 130.0, FIRST_EPOCH)
    assert set(loaded) == {"calm"} and len(loaded["calm"].log) == 3
    assert set(aside) == {"forked"} and "forked: two rows for seq 1" in aside["forked"]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (7,)
        keys = [r for r in db.execute("PRAGMA index_list(events)") if r[3] == "pk"]
        assert len(keys) == 1
        # Nothing lost: the first history in events, in the order appended, the other's
        # rows beside it.
        assert db.execute(
            "SELECT seq, entry FROM events WHERE table_id = 'forked' ORDER BY rowid"
        ).fetchall() == [
            (0, '{"event":"start"}'),
            (1, '{"event":"mine"}'),
            (2, '{"event": "theirs too"}'),
        ]
        assert db.execute("SELECT seq, entry FROM events_forked").fetchall() == [
            (1, '{"event": "theirs"}')
        ]
