"""WAL checkpoints run beside the commits, never inside one."""

from __future__ import annotations

import asyncio
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
