"""WAL checkpoints run beside the commits, never inside one."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

import pytest

from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.store import FIRST_EPOCH
from tests.tables.stores import record


@pytest.mark.anyio
async def test_commits_never_checkpoint_and_the_checkpointer_copies_the_wal(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "t.sqlite3", checkpoint_seconds=0.02)
    await store.open()
    for i in range(20):
        await store.create(record(f"t{i}"))
        await store.append(f"t{i}", 1, [{"event": "action", "n": i}], 2.0, FIRST_EPOCH)
    autocheckpoint = await store._run(
        lambda db: db.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    )
    # Bounded wait for the background checkpointer's first round after the writes.
    seen = store.wal.checkpoints
    for _ in range(250):
        if store.wal.checkpoints > seen:
            break
        await asyncio.sleep(0.02)
    ran = store.wal.checkpoints - seen
    # With no writer in between, a checkpoint now finds every WAL frame copied.
    busy, wal_frames, copied = await store.wal.checkpoint_now()
    await store.close()
    assert autocheckpoint == 0
    assert ran >= 1
    assert busy == 0 and wal_frames > 0 and copied == wal_frames
    # Durable and whole after close: a fresh connection reads every write.
    db = sqlite3.connect(tmp_path / "t.sqlite3")
    assert db.execute("SELECT COUNT(*) FROM events").fetchone() == (40,)
    db.close()


@pytest.mark.anyio
async def test_the_wal_is_synced_between_checkpoints_after_commits_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The checkpoint's copy can wait (it only bounds the WAL); the WAL's sync, what a
    # power cut keeps, still goes every `sync_seconds` once something was committed.
    synced: list[str] = []
    fdatasync = os.fdatasync

    def spy(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        fdatasync(fd)

    monkeypatch.setattr(os, "fdatasync", spy)
    path = tmp_path / "t.sqlite3"
    wal = str(path.with_name(path.name + "-wal"))
    store = SqliteStore(path, checkpoint_seconds=3600, sync_seconds=0.02)
    await store.open()

    async def synced_once_more(before: int) -> bool:
        for _ in range(250):  # bounded wait for the checkpointer's next rounds
            if len(synced) > before:
                return True
            await asyncio.sleep(0.02)
        return False

    try:
        await store.create(record("t0"))
        await store.append("t0", 1, [{"event": "action", "n": 0}], 2.0, FIRST_EPOCH)
        first = await synced_once_more(0)
        # Idle: rounds go by (a sync would show within one), nothing is synced again.
        quiet = len(synced)
        await asyncio.sleep(0.2)
        idle = len(synced) - quiet
        await store.append("t0", 2, [{"event": "action", "n": 1}], 2.0, FIRST_EPOCH)
        again = await synced_once_more(len(synced))
        checkpoints = store.wal.checkpoints
    finally:
        await store.close()
    assert first and again
    assert set(synced) == {wal}
    assert idle == 0
    assert checkpoints == 0  # nothing copied: the WAL alone was synced
