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
@pytest.mark.parametrize("batch", ["one statement", "several statements", "a transaction"])
async def test_an_append_committed_in_the_fallback_is_acknowledged(
    tmp_path: Path, batch: str
) -> None:
    path = tmp_path / "s.sqlite3"
    more = [f"m{i}" for i in range(70)] if batch == "several statements" else []
    async with opened(SqliteStore(path)) as store:
        for name in ("t1", "t2", "t3", *more):
            await store.create(record(name))
        rollback_on(path, "t3")
        others = [store.append(m, 1, [{"event": "m"}], 1.0, 1) for m in more]
        if batch == "a transaction":
            others.append(store.touch("t2", 5.0))
        a, refused, *rest = await asyncio.gather(
            store.append("t1", 1, [{"event": "a"}], 1.0, 1),
            store.append("t3", 1, [{"event": "q"}], 1.0, 1),
            *others,
            return_exceptions=True,
        )
        loaded = {r.table_id: [e["event"] for e in r.log] for r in await store.load_all()}
        # The store's own idea of each log's end is the file's: t1 goes on from there.
        following = 2 if loaded["t1"] == ["start", "a"] else 1
        await store.append("t1", following, [{"event": "next"}], 2.0, 1)
    # What each caller heard and what the file holds agree.
    assert (a is None) == (loaded["t1"] == ["start", "a"]), (a, loaded)
    assert isinstance(refused, Exception)
    assert loaded["t3"] == ["start"]
    for m, outcome in zip(more, rest, strict=False):
        assert (outcome is None) == (loaded[m] == ["start", "m"]), (m, outcome)
