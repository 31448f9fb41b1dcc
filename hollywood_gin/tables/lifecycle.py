"""Start-up and shut-down of the tables, and the one place they are put together.

`assemble` is the composition root (docs/architecture.md "The composition"): it
makes each collaborator of the tables layer and hands it exactly what it needs,
as plain values and callables, so none of them reaches back into the registry.

`open_tables` is the lifespan's part: it opens the store (SQLite, or PostgreSQL
when `database_url` is set), assembles the tables, loads what the ownership holds
from the start (every table of a store this worker alone writes; nothing of a
shared store, whose tables are claimed as they are asked for), starts the
background work (the turn clocks, the ownership watch, the expiry sweep) and, at
the end, closes all of it in order.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from hollywood_gin.bots.coach import CoachPolicy
from hollywood_gin.config import Settings
from hollywood_gin.tables.computer import Computer, Policy
from hollywood_gin.tables.held import Held
from hollywood_gin.tables.hub import CLOSE_GONE, CLOSE_RESTART, Hub
from hollywood_gin.tables.idle import Idle
from hollywood_gin.tables.moves import Moves
from hollywood_gin.tables.orders import Orders
from hollywood_gin.tables.ownership import Shared, Sole, ownership_for, worker_name
from hollywood_gin.tables.presence import Presence
from hollywood_gin.tables.registry import Registry
from hollywood_gin.tables.reviews import Reviews
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.store import FailureEpisode, TableStore
from hollywood_gin.tables.table import Table, short
from hollywood_gin.tables.thinking import Thinkers
from hollywood_gin.tables.writer import Ledgers, Writer

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
            seconds_per_day=settings.seconds_per_day,
        )
    return SqliteStore(settings.data_file, gather_seconds=settings.data_file_gather_seconds)


def assemble(
    store: TableStore,
    hub: Hub,
    *,
    expiry_seconds: float,
    clock: Callable[[], float] = time.time,
    rng: random.Random | None = None,
    policy: Policy | None = None,
    computer_delay: float = 0.8,
    computer_rng: random.Random | None = None,
    thinkers: Thinkers | None = None,
    owner: str | None = None,
    watch_seconds: float = 2.0,
    claim_after: float = 120.0,
    seconds_per_day: float = 86400.0,
    idle_seconds: float = 0.0,
    sweep_seconds: float = 30.0,
) -> Registry:
    """The tables layer over `store` and `hub`, wired one way: each collaborator gets
    what it uses and keeps its own state per table, dropped when the table goes.

    `claim_after`: a seat with no connection for this long is away
    (docs/protocol-guide.md "Around the match"). `idle_seconds`: a table of a store
    this worker writes alone leaves memory after that long with nothing of it due
    (`hollywood_gin.tables.idle`; 0: every table stays, all are loaded at start-up), a
    table of a shared store after that long idle (0: the ownership's own time).
    `sweep_seconds`: how often a worker of a shared store looks for the tables nobody
    holds whose clock fell due (`hollywood_gin.tables.looks`)."""
    owner = owner or worker_name()
    episode = FailureEpisode(log, "storing a change")

    def now() -> float:  # the registry's clock as it is now: tests replace it
        return registry.clock()

    async def fetch(table_id: str) -> Table | None:  # a table out of memory, loaded
        return await registry.find(table_id)

    # The tables held here, told to each collaborator as they come and go.
    held = Held()
    ledgers: Ledgers = {}
    # Who is there, who is away, the turn clocks: what the hub's states say of the
    # players, told of the hub's comings and goings.
    presence = Presence(
        clock=now,
        claim_after=claim_after,
        broadcast=hub.broadcast,
        held=held.get,
        seconds_per_day=seconds_per_day,
    )
    hub.seating = presence
    # Chosen once: this worker writes its store alone, or shares it
    # (docs/architecture.md "One owner per table").
    ownership = ownership_for(
        store,
        held,
        ledgers,
        hub,
        episode=episode,
        clock=now,
        rng=rng,
        owner=owner,
        expiry_seconds=expiry_seconds,
        watch_seconds=watch_seconds,
        sweep_seconds=sweep_seconds,
    )
    writer = Writer(store, hub, ownership, episode, ledgers, clock=now, rng=rng)
    # A table played over days: its seats' deadlines are stored with the change.
    writer.seats_due = presence.deadlines
    moves = Moves(writer, presence)
    computer = Computer(
        moves.act,
        held.get,
        lambda strength, seconds: writer.observer.think(strength, seconds),
        policy=policy,
        delay=computer_delay,
        rng=computer_rng,
        thinkers=thinkers,
    )
    # The clock moves for a seat the way everybody moves, and ends a stand-in by a change.
    presence.hands(
        act=moves.act, choose=computer.choose_for, change=writer.change, start=writer.start
    )
    # Told of every stored change, in this order: the presence first (the deadline of
    # the action due is in the hub's states), the hub, the computer seats.
    writer.listeners += [presence, hub, computer]
    held.arrived += [presence.hold, writer.tell]
    held.left += [writer.forget, presence.forget, computer.forget, lambda t: store.forget(t.id)]
    held.keepers.append(computer.busy)
    idle: Idle | None = None
    if idle_seconds > 0 and isinstance(ownership, Sole):
        ownership.recent = set()
        idle = Idle(
            held=held,
            hub=hub,
            writer=writer,
            presence=presence,
            recent=ownership.recent,
            clock=now,
            seconds=idle_seconds,
        )
        ownership.keep = lambda record: idle.keep(record, seconds_per_day)
        # A table out of memory whose clock falls due is loaded as a request loads it.
        presence.fetch = fetch
    if isinstance(ownership, Shared):
        # A table let go when idle keeps its next look by the clock (a correspondence
        # deadline passes with nobody connected), claimed back when it falls due.

        def release(table: Table) -> bool:
            if not presence.sleep(table, held.drop):
                return False
            if presence.next_look(table.id) is None:
                presence.gone(table.id)  # nothing due: nothing of it is kept here
            return True

        ownership.release = release
        ownership.next_look = presence.next_look
        presence.fetch = ownership.wake
        if idle_seconds > 0:
            ownership.release_seconds = idle_seconds
        if ownership.stored is not None:
            # A table played over days keeps its next look in the store, for when
            # nobody holds it (`hollywood_gin.tables.looks`).
            presence.looked = ownership.stored.note
            held.left.append(ownership.stored.forget)
            # A "deadline soon" its last holder told is not told again.
            ownership.arriving = lambda table, record: presence.told_before(table, record.look)
    registry = Registry(
        store=store,
        hub=hub,
        held=held,
        writer=writer,
        ownership=ownership,
        presence=presence,
        computer=computer,
        moves=moves,
        # Card orders are written with the next change, or within seconds.
        orders=Orders(writer, held.holds),
        # The coach's reviews of finished hands, computed in a pool of their own.
        reviews=Reviews(store),
        episode=episode,
        thinkers=thinkers,
        expiry_seconds=expiry_seconds,
        owner=owner,
        clock=clock,
        rng=rng,
    )
    registry.idle = idle
    return registry


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
        registry.presence.gone(table_id)
        held = registry.get(table_id)
        if held is not None:
            registry.held.drop(held)
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
    registry = assemble(
        store,
        hub,
        expiry_seconds=settings.table_expiry_seconds,
        computer_delay=settings.bot_delay_seconds,
        thinkers=Thinkers(settings.computer_processes),
        owner=owner,
        claim_after=settings.claim_after_seconds,
        seconds_per_day=settings.seconds_per_day,
        idle_seconds=settings.idle_table_seconds,
        sweep_seconds=settings.deadline_sweep_seconds,
    )
    registry.presence.start()
    registry.reviews.budget = CoachPolicy(samples=settings.review_samples)
    registry.reviews.processes = settings.review_processes
    sweep: asyncio.Task[None] | None = None
    try:
        await registry.ownership.start(str(settings.data_file))
        sweep = start_expiry(registry, min(3600.0, max(1.0, settings.table_expiry_seconds / 10)))
        if registry.idle is not None:
            registry.idle.start(min(60.0, max(0.2, settings.idle_table_seconds / 4)))
        yield registry
    finally:
        # Browsers reconnect by themselves after 1012 (service restart).
        hub.close_all(CLOSE_RESTART, "server restart")
        await registry.reviews.close()
        if registry.idle is not None:
            await registry.idle.close()
        if sweep is not None:
            sweep.cancel()
            await asyncio.gather(sweep, return_exceptions=True)
        await registry.close()
        if registry.thinkers is not None:
            registry.thinkers.close()
        await store.close()
