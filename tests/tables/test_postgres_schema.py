"""The PostgreSQL store's schema version (issue 45): a one-row `schema_version` table,
read at every start as the SQLite file's `user_version` is. A database of an earlier
layout is brought up to this one; a worker refuses a newer one, untouched, in one line
(`serve` exits 2 as for a newer SQLite file; `check` says the same)."""

from __future__ import annotations

from pathlib import Path

import pytest

asyncpg = pytest.importorskip("asyncpg")
pytestmark = pytest.mark.anyio

from hollywood_gin.tables.postgres_store import (  # noqa: E402
    SCHEMA_VERSION,
    NewerDatabase,
    PostgresStore,
)
from tests.postgres import pg_url, postgres  # noqa: E402, F401 (fixtures)
from tests.test_startup import clean_env, refused_in_one_line  # noqa: E402


async def version_of(url: str) -> list[tuple[bool, int]]:
    con = await asyncpg.connect(url)
    try:
        return [tuple(r) for r in await con.fetch("SELECT one, version FROM schema_version")]
    finally:
        await con.close()


async def run(url: str, sql: str) -> None:
    con = await asyncpg.connect(url)
    try:
        await con.execute(sql)
    finally:
        await con.close()


async def test_a_new_database_gets_this_version(pg_url: str) -> None:  # noqa: F811
    store = PostgresStore(pg_url)
    await store.open()
    await store.close()
    assert await version_of(pg_url) == [(True, SCHEMA_VERSION)]
    store = PostgresStore(pg_url)  # a second start changes nothing
    await store.open()
    await store.close()
    assert await version_of(pg_url) == [(True, SCHEMA_VERSION)]


async def test_a_database_from_before_the_version_table_is_brought_up(pg_url: str) -> None:  # noqa: F811
    store = PostgresStore(pg_url)
    await store.open()
    await store.close()
    await run(pg_url, "DROP TABLE schema_version")
    store = PostgresStore(pg_url)
    await store.open()
    await store.close()
    assert await version_of(pg_url) == [(True, SCHEMA_VERSION)]


async def test_an_older_worker_refuses_a_newer_database_untouched(pg_url: str) -> None:  # noqa: F811
    store = PostgresStore(pg_url)
    await store.open()
    await store.close()
    newer = SCHEMA_VERSION + 1
    # A newer layout, with a column this version's schema statements would drop.
    await run(pg_url, f"UPDATE schema_version SET version = {newer}")
    await run(pg_url, "ALTER TABLE tables ADD COLUMN hooks text")
    store = PostgresStore(pg_url)
    with pytest.raises(NewerDatabase, match=f"schema {newer}"):
        await store.open()
    await store.close()
    assert await version_of(pg_url) == [(True, newer)]
    con = await asyncpg.connect(pg_url)
    try:
        assert await con.fetchval(
            "SELECT count(*) FROM information_schema.columns WHERE column_name = 'hooks'"
        )
    finally:
        await con.close()


def test_serve_and_check_refuse_a_newer_database_in_one_line(
    tmp_path: Path,
    pg_url: str,  # noqa: F811
) -> None:
    import asyncio

    async def newer() -> None:
        store = PostgresStore(pg_url)
        await store.open()
        await store.close()
        await run(pg_url, f"UPDATE schema_version SET version = {SCHEMA_VERSION + 1}")

    asyncio.run(newer())
    env = clean_env(tmp_path, database_url=pg_url)
    refused_in_one_line(tmp_path, env, 2, "newer Hollywood Gin", "left untouched")
