"""`hollywood-gin migrate --to URL`: the SQLite file into an empty PostgreSQL database
(docs/scale-out.md), on a real file and a real throwaway cluster."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path

import pytest

from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.lifecycle import assemble
from hollywood_gin.tables.migrate import MigrationError, migrate
from hollywood_gin.tables.postgres_store import PostgresStore
from hollywood_gin.tables.push import keep_in_file, key_file, new_private_key
from hollywood_gin.tables.sqlite_file import open_for_reading, read_tables
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.table import rebuild_match
from tests.conftest import run_gin
from tests.postgres import pg_url, postgres  # noqa: F401 (fixtures)
from tests.tables.test_compaction import play, views


async def a_site(path: Path) -> tuple[dict[str, bytes], dict[str, object]]:
    """A data file with a long Hollywood match (hands compacted), a waiting table and a
    set-aside one; each table's views and the first hand's record, as the site served them."""
    store = SqliteStore(path)
    await store.open()
    registry = assemble(store, Hub(max_tabs_per_seat=5, max_spectators=5), expiry_seconds=1e9)
    long, _ = await registry.create({"scoring": "hollywood"}, "Ann")
    await registry.join(long.id, "Bob")
    await play(registry, long, 900, random.Random(4))
    assert registry.writer.ledger(long).base > 0  # some hands compacted into `hands`
    waiting, _ = await registry.create({"rules": "oklahoma"}, "Cleo")
    aside, _ = await registry.create({}, "Dan")
    await store.set_aside(aside.id, "a test's damage")
    await store.save_review(long.id, 1, 0, {"hand": 1, "seat": 0, "decisions": []})
    seen = {t.id: views(t.match) for t in (long, waiting)}
    first = {long.id: await registry.hand_record(long.id, 1)}
    await registry.close()
    await store.close()
    return seen, first


@pytest.mark.anyio
async def test_every_table_moves_and_plays_the_same(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    path = tmp_path / "tables.sqlite3"

    seen, first = await a_site(path)
    with sqlite3.connect(path) as db:
        counts = {
            n: db.execute(f"SELECT count(*) FROM {n}").fetchone()[0]
            for n in ("tables", "events", "hands", "set_aside", "reviews")
        }
        rows = dict(db.execute("SELECT id, last_active FROM tables"))
    reader = open_for_reading(path)
    active = {r.table_id: r.last_active for r in read_tables(reader)[0]}
    reader.close()
    # The long match's last activity is its latest append's (`events.at`), not its row's.
    assert any(active[t] > rows[t] for t in seen)
    done = await migrate(path, pg_url)
    assert done.rows == counts and done.verified == 2

    # Read back the way a worker does: claim each table and replay it.
    store = PostgresStore(pg_url)
    await store.open()
    try:
        for table_id, before in seen.items():
            claimed = await store.claim(table_id, "test")
            assert claimed is not None and claimed[1].last_active == active[table_id]
            _, match = rebuild_match(claimed[1])
            assert views(match) == before
        (table_id,) = first
        assert await store.hand(table_id, 1) == first[table_id]
        review = {"hand": 1, "seat": 0, "decisions": []}
        assert await store.review(table_id, 1, 0) == review
        assert set((await store.set_aside_tables()).values()) == {"a test's damage"}
    finally:
        await store.close()

    # A second copy into the same database is refused and changes nothing.
    with pytest.raises(MigrationError, match="not empty"):
        await migrate(path, pg_url)
    store = PostgresStore(pg_url)
    await store.open()
    try:
        (tables,) = await store.pool.fetchrow("SELECT count(*) FROM tables")
        assert tables == counts["tables"]
    finally:
        await store.close()


def test_the_command_copies_and_says_so(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    path = tmp_path / "tables.sqlite3"
    asyncio.run(a_site(path))
    vapid = keep_in_file(key_file(path), new_private_key())  # the Web Push key goes too
    env = {"HOLLYWOOD_GIN_DATA_FILE": str(path), "PATH": "/usr/bin:/bin"}
    done = run_gin("migrate", "--to", pg_url, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "3 tables verified" not in done.stdout  # the set-aside one is not replayed
    assert "2 tables verified" in done.stdout and "tables 3" in done.stdout
    again = run_gin("migrate", "--to", pg_url, env=env, timeout=120)
    assert again.returncode == 1 and "not empty" in again.stderr
    assert asyncio.run(kept_key(pg_url)) == vapid


async def kept_key(url: str) -> str:
    store = PostgresStore(url, owner="check")
    await store.open()
    try:
        return await store.keep_secret("vapid_private_key", "not this one")
    finally:
        await store.close()


@pytest.mark.anyio
async def test_an_unreachable_database_is_a_clear_refusal(tmp_path: Path) -> None:
    path = tmp_path / "tables.sqlite3"
    await a_site(path)
    with pytest.raises(MigrationError, match="cannot open the database"):
        await migrate(path, "postgresql://gin@127.0.0.1:1/none")
    with sqlite3.connect(path) as db:  # the data file is untouched
        assert db.execute("SELECT count(*) FROM tables").fetchone() == (3,)
