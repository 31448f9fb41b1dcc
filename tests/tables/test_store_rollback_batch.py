"""A batch of appends alone whose fallback (one append at a time) meets an error that
makes SQLite roll the whole transaction back: an append already committed by then
must not be reported as failed (its caller would undo a move the file keeps)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from hollywood_gin.tables.sqlite_store import SqliteStore
from tests.tables.stores import opened, record


def rollback_on(path: Path, table_id: str) -> None:
    """SQLite rolls the transaction back on a new event of `table_id` (as an I/O error
    or a full disk may: "SQLite may roll back the whole transaction")."""
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TRIGGER gone_events BEFORE INSERT ON events"
            f" WHEN NEW.table_id = '{table_id}'"
            " BEGIN SELECT RAISE(ROLLBACK, 'rolled back'); END"
        )


@pytest.mark.anyio
async def test_an_append_committed_in_the_fallback_is_acknowledged(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    async with opened(SqliteStore(path)) as store:
        for name in ("t1", "t3"):
            await store.create(record(name))
        rollback_on(path, "t3")
        a, refused = await asyncio.gather(
            store.append("t1", 1, [{"event": "a"}], 1.0, 1),
            store.append("t3", 1, [{"event": "q"}], 1.0, 1),
            return_exceptions=True,
        )
        loaded = {r.table_id: [e["event"] for e in r.log] for r in await store.load_all()}
    # What the caller heard and what the file holds agree, for each append.
    t1_stored = loaded["t1"] == ["start", "a"]
    assert (a is None) == t1_stored, (a, loaded)
    assert isinstance(refused, Exception)
    assert loaded["t3"] == ["start"]
