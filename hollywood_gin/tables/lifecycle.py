"""Start-up and shut-down of the tables: open the store, load, sweep, close.

`open_tables` is the lifespan's part: it opens the store (SQLite, or PostgreSQL
when `database_url` is set), makes the registry (which chooses its `Ownership`
from the store), loads what the ownership holds from the start (every table of a
store this worker alone writes; nothing of a shared store, whose tables are
claimed as they are asked for), starts the background work (the turn clocks, the
ownership watch, the expiry sweep) and, at the end, closes all of it in order.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from hollywood_gin.bots.coach import CoachBudget
from hollywood_gin.config import Settings
from hollywood_gin.tables.hub import CLOSE_GONE, CLOSE_RESTART, Hub
from hollywood_gin.tables.ownership import worker_name
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.store import TableStore
from hollywood_gin.tables.table import short
from hollywood_gin.tables.thinking import Thinkers

log = logging.getLogger("hollywood_gin.tables")


def open_store(settings: Settings, owner: str) -> TableStore:
    """The SQLite file (the default), or PostgreSQL when `database_url` is set."""
    if settings.database_url:
        try:
            from hollywood_gin.tables.postgres_store import PostgresStore
        except ImportError as exc:  # pragma: no cover - the extra is not installed
            raise RuntimeError(
                "HOLLYWOOD_GIN_DATABASE_URL needs the postgres extra:"
                " pip install 'hollywood-gin[postgres]'"
            ) from exc
        # GATHER_SECONDS=0 is "0: none" (README): no gathering at all, so no wait for
        # GATHER_APPENDS either (a lone move would still wait GATHER_MAX_SECONDS).
        gathering = settings.database_gather_seconds > 0
        return PostgresStore(
            settings.database_url,
            owner=owner,
            gather_seconds=settings.database_gather_seconds,
            gather_appends=settings.database_gather_appends if gathering else 1,
            gather_max_seconds=settings.database_gather_max_seconds,
        )
    return SqliteStore(settings.data_file)


async def expire(registry: Registry, now: float | None = None) -> list[str]:
    """Remove tables idle longer than the expiry, from memory and from disk."""
    now = registry.clock() if now is None else now
    before = now - registry.expiry_seconds
    for table in list(registry.tables.values()):
        # Somebody is looking at it: not idle, whatever the last move's age.
        if table.last_active < before and registry.hub.count(table.id):
            await registry.touch(table)
    gone = await registry.ownership.expired(before)
    for table_id in gone:
        held = registry.tables.pop(table_id, None)
        registry.presence.forget(table_id)
        if held is not None:
            registry.computer.forget(held)
        registry.hub.close_table(table_id, CLOSE_GONE, "table expired")
        log.info("table %s expired", short(table_id))
    return gone


def start_expiry(registry: Registry, interval: float) -> asyncio.Task[None]:
    """Every `interval` seconds, expire the idle tables and drop what compaction left."""

    async def sweep() -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                await expire(registry)
                await registry.store.drop_compacted()
            except Exception:  # a failed sweep must not end the sweeping
                log.exception("expiry sweep failed")

    return asyncio.get_running_loop().create_task(sweep())


@asynccontextmanager
async def open_tables(settings: Settings) -> AsyncIterator[Registry]:
    """Open the store, load every live table, sweep; close all at the end."""
    owner = worker_name()
    store = open_store(settings, owner)
    await store.open()
    hub = Hub(max_tabs_per_seat=settings.max_tabs_per_seat, max_spectators=settings.max_spectators)
    registry = Registry(
        store,
        hub,
        expiry_seconds=settings.table_expiry_seconds,
        computer_delay=settings.bot_delay_seconds,
        thinkers=Thinkers(settings.computer_processes),
        owner=owner,
        claim_after=settings.claim_after_seconds,
    )
    registry.presence.start()
    registry.reviews.budget = CoachBudget(samples=settings.review_samples)
    registry.reviews.processes = settings.review_processes
    sweep: asyncio.Task[None] | None = None
    try:
        await registry.ownership.start(str(settings.data_file))
        sweep = start_expiry(registry, min(3600.0, max(1.0, settings.table_expiry_seconds / 10)))
        yield registry
    finally:
        # Browsers reconnect by themselves after 1012 (service restart).
        hub.close_all(CLOSE_RESTART, "server restart")
        await registry.reviews.close()
        if sweep is not None:
            sweep.cancel()
            await asyncio.gather(sweep, return_exceptions=True)
        await registry.close()
        if registry.thinkers is not None:
            registry.thinkers.close()
        await store.close()
