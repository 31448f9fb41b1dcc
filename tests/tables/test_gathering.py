"""The shared store's gathering of appends as the settings make it
(docs/architecture.md "Group commit"): what
`HOLLYWOOD_GIN_DATABASE_GATHER_SECONDS=0` turns off, and a batch still gathering when
the store closes. Real PostgreSQL (`tests/postgres.py`); no wall-clock assertion: the
first test stops the event loop's clock instead."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from hollywood_gin.config import Settings
from hollywood_gin.tables.lifecycle import open_store
from hollywood_gin.tables.store import FIRST_EPOCH
from tests.tables.stores import pg_url, postgres, record

__all__ = ["pg_url", "postgres"]  # fixtures


@pytest.mark.anyio
async def test_no_gathering_delay_means_a_lone_append_waits_for_nothing(
    pg_url: str, tmp_path: Path
) -> None:
    """`HOLLYWOOD_GIN_DATABASE_GATHER_SECONDS=0` is documented as "0: none": no wait
    for other moves to join a commit. So a lone append must commit with no timer of
    the event loop ever firing: here the loop's clock stands still while it commits.
    (It used to wait `GATHER_MAX_SECONDS` anyway, for `GATHER_APPENDS`' default 4.)"""
    settings = Settings(data_file=tmp_path / "unused.sqlite3", database_url=pg_url)
    settings = settings.model_copy(update={"database_gather_seconds": 0.0})
    store = open_store(settings, "a")
    await store.open()
    loop = asyncio.get_running_loop()
    try:
        await store.create(record("z0"))
        frozen = loop.time()
        # The clock given back after 10 s whatever happens, so a waiting append
        # still ends (and the test fails instead of hanging).
        thaw = threading.Timer(10, loop.call_soon_threadsafe, args=(vars(loop).pop, "time", None))
        loop.time = lambda: frozen  # type: ignore[method-assign]
        thaw.start()
        try:
            await store.append("z0", 1, [{"event": "x"}], 1.0, FIRST_EPOCH)
            committed_on_a_still_clock = "time" in vars(loop)
        finally:
            thaw.cancel()
            vars(loop).pop("time", None)
        assert committed_on_a_still_clock, "the lone append waited for a timer"
        claimed = await store.claim("z0", "reader")
        assert claimed is not None and [e["event"] for e in claimed[1].log] == ["start", "x"]
    finally:
        await store.close()


@pytest.mark.anyio
async def test_a_batch_gathering_when_the_store_closes_is_committed(
    pg_url: str, tmp_path: Path
) -> None:
    """Shut down while a lone append waits for more to join it (the settings' rule: up
    to `GATHER_MAX_SECONDS`): closing the store commits it, its caller hears so, and it
    is in the database; nothing gathered is dropped."""
    settings = Settings(data_file=tmp_path / "unused.sqlite3", database_url=pg_url)
    settings = settings.model_copy(
        update={"database_gather_appends": 4, "database_gather_max_seconds": 0.1}
    )
    store = open_store(settings, "a")
    await store.open()
    await store.create(record("c0"))
    waiting = asyncio.ensure_future(store.append("c0", 1, [{"event": "x"}], 1.0, FIRST_EPOCH))
    await asyncio.sleep(0)
    assert not waiting.done()  # gathering
    await store.close()
    assert waiting.done() and waiting.exception() is None
    again = open_store(settings, "b")
    await again.open()
    try:
        claimed = await again.claim("c0", "reader")
        assert claimed is not None and [e["event"] for e in claimed[1].log] == ["start", "x"]
    finally:
        await again.close()
