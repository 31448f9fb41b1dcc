"""Which tables this worker holds and may write: alone (`Sole`) or shared (`Shared`).

Chosen once, when the registry is made, from the store (`ownership_for`):

- `Sole`: a store only this process writes (SQLite). The live tables are loaded
  at start-up, any other is claimed from the store on its first request, and an
  idle one leaves memory (`hollywood_gin.tables.idle`); a write is awaited however
  long it takes (one given up could still land, and nothing would settle it).
- `Shared`: PostgreSQL shared by several workers behind HAProxy
  (docs/architecture.md "One owner per table"). A table is claimed on its first
  request (a new epoch, which fences every write of the worker before); a watch
  lets go of the tables another worker has claimed and of those idle here (their
  next look by the clock kept, `wake` claims them back for it); a sweep claims the
  tables nobody holds whose look by the clock fell due (`tables.looks`); a write
  unanswered for `store_seconds` is given up and makes its table doubtful, and
  `settle` asks the store before the next one.

Both fence every write by the table's epoch (the single-owner stores in memory).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from hollywood_gin.tables.bounded import within
from hollywood_gin.tables.held import Held
from hollywood_gin.tables.hub import CLOSE_GONE, CLOSE_RESTART, Hub
from hollywood_gin.tables.looks import FAILURES_EVERY, StoredLooks
from hollywood_gin.tables.store import (
    FIRST_EPOCH,
    FailureEpisode,
    LookStore,
    TableRecord,
    TableStore,
)
from hollywood_gin.tables.table import (
    StoreUnavailable,
    Table,
    UnknownTable,
    rebuild_match,
    rebuild_table,
    short,
)
from hollywood_gin.tables.writer import Ledger, Ledgers

log = logging.getLogger("hollywood_gin.tables")

T = TypeVar("T")


class Ownership(Protocol):
    """How this worker comes to hold a table, and on what terms it writes it."""

    async def load(self) -> int:
        """The tables held from the start; how many."""
        ...

    async def start(self, where: str) -> None:
        """At start-up: what is held from the start (`load`), the background work (the
        shared store's watch), and a log line saying so (`where`: the store's file)."""

    def tasks(self) -> list[asyncio.Task[None]]:
        """That work's tasks, for closing."""
        ...

    async def find(self, table_id: str) -> Table | None:
        """The table held here, or claimed now; None: no such table."""
        ...

    def created(self, table: Table) -> None:
        """A table made here, its log stored: held from now."""

    def drop(self, table: Table, code: int = CLOSE_RESTART, reason: str = "table moved") -> None:
        """Let go of `table` and close its sockets (`code`, `reason`)."""

    async def expired(self, before: float) -> list[str]:
        """Remove the tables idle since `before` from the store; their ids."""
        ...

    async def settle(self, table: Table, ledger: Ledger) -> None:
        """Before a write to a doubtful table (the writer asks only for those): learn
        what the store holds of it."""

    def bound(self, call: Awaitable[None]) -> Awaitable[None]:
        """A store write to await, bounded by as long as this ownership waits for one
        (`call` itself when it waits to the end: no coroutine of its own per write)."""
        ...

    def doubt(self, table: Table, ledger: Ledger, exc: Exception) -> None:
        """A write failed without a verdict: the store may hold more than memory."""

    def lost(self, table: Table) -> None:
        """A write was refused: another worker holds the table now."""

    async def close(self) -> None:
        """At the end, once nothing changes any more: what the store must know of the
        tables held here (a shared store: their looks, and that nobody holds them)."""


def worker_name() -> str:
    """This worker's name in a shared store's rows: host, pid, a nonce."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def ownership_for(
    store: TableStore,
    held: Held,
    ledgers: Ledgers,
    hub: Hub,
    *,
    episode: FailureEpisode,
    clock: Callable[[], float],
    rng: random.Random | None,
    owner: str,
    expiry_seconds: float,
    watch_seconds: float,
    sweep_seconds: float = 30.0,
) -> Ownership:
    """`Shared` when several workers share the store, else `Sole`."""
    terms = Terms(store, held, ledgers, hub, episode, clock, rng, owner, expiry_seconds)
    if store.shared:
        return Shared(terms, watch_seconds, sweep_seconds)
    return Sole(terms)


@dataclass(frozen=True)
class Terms:
    """What an ownership works with: the store, the tables held here and their
    ledgers, the hub (to close a table's sockets when it goes), and its settings."""

    store: TableStore
    held: Held
    ledgers: Ledgers
    hub: Hub
    episode: FailureEpisode
    clock: Callable[[], float]
    rng: random.Random | None
    owner: str
    expiry_seconds: float


async def _rebuilt(terms: Terms, record: TableRecord, *, shared: bool = False) -> Table | None:
    """The table of `record`; None when it cannot be rebuilt: one such table must not
    keep every other one offline, so it is reported and set aside, kept in the store
    for a person to look at (`shared`: a failure to set it aside is not raised)."""
    try:
        return rebuild_table(record, rng=terms.rng)
    except Exception as exc:  # whatever the damage: set aside, never raised
        reason = f"{type(exc).__name__}: {exc}"[:300]
        log.error(
            "table %s could not be rebuilt (%s): set aside, kept in the store",
            short(record.table_id),
            reason,
        )
    try:
        await terms.store.set_aside(record.table_id, reason)
    except Exception:  # the store is away too
        if not shared:
            raise  # at start-up: nothing is served from a store in that state
        # a claim: answered as no such table, and the next claim tries again
    return None


class _Ownership:
    """What both ownerships do alike: hold a table, claim one from the store on its
    first request (`_claimed`), and let go of one."""

    def __init__(self, terms: Terms) -> None:
        self.terms = terms
        self.dropped = 0
        # A write or claim unanswered for this long is given up (`Shared`; a claim of
        # `Sole`, a read only, is bounded alike).
        self.store_seconds = 15.0
        # Claims under way, so two requests for one table make one claim.
        self._claims: dict[str, asyncio.Task[Table | None]] = {}
        # Those of them made only at an epoch (`at`): a request does not settle for
        # their None.
        self._claims_at: set[asyncio.Task[Table | None]] = set()
        self.claims = 0
        # Told of each table claimed, with its record, before it is held.
        self.arriving: Callable[[Table, TableRecord], None] = lambda _table, _record: None

    def _claimed(self, table_id: str, at: int | None = None) -> Awaitable[Table | None]:
        """The table read from the store and held from now; one claim per table at once
        (`at`: only while its epoch is still that, `LookStore.claim_at`)."""
        claim = self._claims.get(table_id)
        if claim is None:
            claim = asyncio.get_running_loop().create_task(self._claim(table_id, at))
            self._claims[table_id] = claim
            claim.add_done_callback(lambda _t: self._claims.pop(table_id, None))
            if at is not None:
                self._claims_at.add(claim)
                claim.add_done_callback(self._claims_at.discard)
        elif at is None and claim in self._claims_at:
            return self._claimed_anyway(table_id, claim)
        return asyncio.shield(claim)

    async def _claimed_anyway(
        self, table_id: str, claim: asyncio.Task[Table | None]
    ) -> Table | None:
        """A request joined a claim at an epoch (a sweep's, a wake's): another worker may
        have claimed the table first, and the request wants it all the same (else it
        would answer "no such table" for a table that is there)."""
        table = await asyncio.shield(claim)
        if table is not None:
            return table
        return await self._claimed(table_id)

    async def _claim(self, table_id: str, at: int | None = None) -> Table | None:
        store = self.terms.store
        if at is not None and isinstance(store, LookStore):
            call = store.claim_at(table_id, self.terms.owner, at)
        else:
            call = store.claim(table_id, self.terms.owner)
        claimed = await self._ask(call, "the server could not read this table; try again")
        if claimed is None:
            return None
        return await self._hold(*claimed)

    async def _hold(self, epoch: int, record: TableRecord) -> Table | None:
        """The table of `record`, claimed at `epoch`, held from now."""
        table = await _rebuilt(self.terms, record, shared=True)
        if table is None:
            return None
        self._ledger(record, table, epoch)
        self.arriving(table, record)
        self.claims += 1
        self._claimed_again(table.id)
        log.info("table %s claimed at epoch %d", short(table.id), epoch)
        self.terms.held.add(table)
        return table

    async def _ask(self, call: Awaitable[T], refusal: str) -> T:
        """A store call within `store_seconds`; a failure is `StoreUnavailable(refusal)`."""
        episode = self.terms.episode
        try:
            answer = await within(call, self.store_seconds)
        except Exception as exc:  # whatever the store raises: a database away, a timeout
            episode.failed(exc)
            raise StoreUnavailable(refusal) from exc
        episode.succeeded()
        return answer

    def _claimed_again(self, table_id: str) -> None:
        """A table claimed (asked for, or its look due): nothing let go of it is kept."""

    def _ledger(self, record: TableRecord, table: Table, epoch: int = FIRST_EPOCH) -> None:
        """The ledger of a table rebuilt from `record`, before it is held."""
        self.terms.ledgers[table] = Ledger(logged=len(record.log), base=record.base, epoch=epoch)

    def created(self, table: Table) -> None:
        self.terms.ledgers[table] = Ledger(logged=len(table.match.log))
        self.terms.held.add(table)

    def drop(self, table: Table, code: int = CLOSE_RESTART, reason: str = "table moved") -> None:
        """Let go of a table another worker owns now: no broadcast, no computer move;
        its sockets close with 1012 and reconnect through the proxy to the owner."""
        if not self.terms.held.drop(table):
            return
        self.terms.hub.close_table(table.id, code, reason)
        self.dropped += 1
        log.warning("table %s dropped: %s", short(table.id), reason)

    def lost(self, table: Table) -> None:
        self.drop(table)

    async def close(self) -> None:
        return None


class Sole(_Ownership):
    """This process alone writes the store (SQLite). The tables live at start-up are
    loaded then (`keep`: all of them unless told otherwise); any other is read from
    the store on its first request or timer (`find`), by the same claim as a shared
    store's, and an idle one leaves memory again (`hollywood_gin.tables.idle`)."""

    def __init__(self, terms: Terms) -> None:
        super().__init__(terms)
        # Which stored tables are loaded at start-up (None: all). Those left out are
        # claimed as they are asked for.
        self.keep: Callable[[TableRecord], bool] | None = None
        # Tables asked for since the idle sweep last looked: not let go under a
        # request that found them a moment ago (None: no sweep, nothing noted).
        self.recent: set[str] | None = None

    async def load(self) -> int:
        """Rebuild every stored table kept (`keep`) by replaying its log; how many."""
        tables = []
        for record in await self.terms.store.load_all(self.keep):
            table = await _rebuilt(self.terms, record)
            if table is not None:
                self._ledger(record, table)
                tables.append(table)
        self.terms.held.add(*tables)
        return len(self.terms.held)

    async def start(self, where: str) -> None:
        count = await self.load()
        aside = await self.terms.store.set_aside_tables()
        damaged = f"; {len(aside)} damaged tables set aside" if aside else ""
        log.info("loaded %d live tables from %s%s", count, where, damaged)

    def tasks(self) -> list[asyncio.Task[None]]:
        return []

    async def find(self, table_id: str) -> Table | None:
        if self.recent is not None:
            self.recent.add(table_id)
        table = self.terms.held.get(table_id)
        if table is not None:
            return table
        return await self._claimed(table_id)

    async def expired(self, before: float) -> list[str]:
        return await self.terms.store.expire(before)

    async def settle(self, table: Table, ledger: Ledger) -> None:
        return None  # never doubtful: every write is awaited to its end

    def bound(self, call: Awaitable[None]) -> Awaitable[None]:
        return call  # awaited to its end

    def doubt(self, table: Table, ledger: Ledger, exc: Exception) -> None:
        return None


class Shared(_Ownership):
    """Several workers share the store: tables claimed lazily, writes fenced by epoch."""

    def __init__(self, terms: Terms, watch_seconds: float, sweep_seconds: float = 30.0) -> None:
        super().__init__(terms)
        self.watch_seconds = watch_seconds
        self._watch_task: asyncio.Task[None] | None = None
        # The clocks of the tables nobody holds (`tables.looks`), when the store keeps
        # them: every `sweep_seconds`, one query for those due, at most `sweep_limit` of
        # them a round; a look its holder has let pass for `sweep_stale` seconds is
        # taken as one nobody holds (the holder stopped without letting go).
        store = terms.store
        self.look_store: LookStore | None = store if isinstance(store, LookStore) else None
        self.stored: StoredLooks | None = None
        if self.look_store is not None:
            self.stored = StoredLooks(
                self.look_store, self._epoch, store_seconds=self.store_seconds
            )
        self.sweep_seconds = sweep_seconds
        self.sweep_stale = max(10.0, 3 * sweep_seconds)
        self.sweep_limit = 100
        # A round that found a full batch is followed by the next at once, at most this
        # many rounds an interval: a backlog (every worker back after an outage) drains
        # at up to `sweep_limit * sweep_rounds` tables an interval a worker, bounded so
        # one sweep neither holds the loop nor fills memory with tables at once.
        self.sweep_rounds = 5
        self.swept = 0  # tables claimed for their look (tests, logs)
        self.sweep_queries = 0  # rounds run: one claiming statement each (tests)
        self.sweep_failures = FailureEpisode(
            log, "deadline sweep", level=logging.WARNING, every=FAILURES_EVERY
        )
        self._sweep_task: asyncio.Task[None] | None = None
        # The round's claim under way: its own task, so closing waits for it to end
        # before saying this worker holds nothing (else it could name a worker gone).
        self._sweeping: asyncio.Task[list[tuple[int, TableRecord]]] | None = None
        # When the watch last heard from the store (monotonic): a worker that was
        # paused (SIGSTOP, a VM freeze) looks again before serving what it holds.
        self._watched_at = time.monotonic()
        # Tables nobody has looked at for this long leave memory (they are claimed
        # again when asked for): memory does not grow with history.
        self.release_seconds = 600.0
        # How an idle table is let go: `assemble` makes it the presence's `sleep`, which
        # keeps the table's next look by the clock (a correspondence deadline, a
        # "deadline soon" push), and `looks` says whether one was kept. The epoch each
        # such table was let go at: its look claims it back only if no other worker
        # has claimed it since (`wake`).
        self.release: Callable[[Table], bool] = terms.held.drop
        self.next_look: Callable[[str], float | None] = lambda _table_id: None
        self.released: dict[str, int] = {}
        # `store_seconds` (the base's): a write or claim unanswered for that long is
        # given up: the table is doubtful (settled before its next write) and its lock
        # free again. asyncpg can wait without end (a pool acquire; the clean-up of a
        # query cut off by a database restart), which held one table's lock, so its
        # players waited, for as long as the worker lived.

    async def load(self) -> int:
        return 0  # claimed as they are asked for

    async def start(self, where: str) -> None:
        """Every `watch_seconds`, one query for the epochs of the tables held here:
        drop those another worker has claimed (or that are gone), moves or not."""
        log.info("tables in a shared store, claimed as they are asked for (%s)", self.terms.owner)

        async def watch() -> None:
            while True:
                await asyncio.sleep(self.watch_seconds)
                try:
                    await self.watch_once()
                except Exception as exc:  # the database is away: the next round looks again
                    log.debug("ownership watch failed: %r", exc)
                self.release_idle()

        self._watch_task = asyncio.get_running_loop().create_task(watch())
        if self.look_store is not None:
            self._sweep_task = asyncio.get_running_loop().create_task(self._sweep())

    async def _sweep(self) -> None:
        while True:
            await self.sweep_logged()
            await asyncio.sleep(self.sweep_seconds)

    async def sweep_logged(self) -> int:
        """`sweep_once`, a failure logged (rate-limited, `FailureEpisode`) and counted: the
        database is away, and the next interval looks again."""
        try:
            return await self.sweep_once()
        except Exception as exc:
            self.sweep_failures.failed(exc)
            return 0

    async def sweep_once(self) -> int:
        """Claim the tables nobody holds whose look by the clock is due, a batch a
        round, and the next round at once while a batch was full (at most
        `sweep_rounds`); how many were claimed here. Held, a table's presence does what
        is due and its look moves on."""
        claimed = 0
        for _ in range(self.sweep_rounds):
            found, held = await self.sweep_round()
            claimed += held
            if found < self.sweep_limit:
                break
        return claimed

    async def sweep_round(self) -> tuple[int, int]:
        """One claiming statement (`LookStore.claim_due`): the due tables no other
        claim is taking this moment, so workers sweeping at once take disjoint ones;
        (how many the store gave, how many are held here now)."""
        if self.look_store is None:
            return 0, 0
        now = self.terms.clock()
        # This worker's own tables (held, or a request's claim under way) are never
        # its sweep's: claiming one again would fence off the copy in memory.
        mine = [*self.terms.held.ids(), *self._claims]
        self.sweep_queries += 1
        task = asyncio.get_running_loop().create_task(
            within(
                self.look_store.claim_due(
                    now, now - self.sweep_stale, self.sweep_limit, self.terms.owner, mine
                ),
                self.store_seconds,
            )
        )
        self._sweeping = task
        due = await asyncio.shield(task)
        claimed = 0
        for epoch, record in due:
            table_id = record.table_id
            if self.terms.held.get(table_id) is not None or table_id in self._claims:
                continue  # claimed here meanwhile: that claim holds it (fenced by epoch)
            self.released.pop(table_id, None)
            if await self._hold(epoch, record) is not None:
                claimed += 1
                log.info("table %s claimed for its clock", short(table_id))
        self.swept += claimed
        return len(due), claimed

    def tasks(self) -> list[asyncio.Task[None]]:
        return [t for t in (self._watch_task, self._sweep_task) if t is not None]

    async def close(self) -> None:
        """The looks not yet written go, then nobody holds this worker's tables: the
        other workers' sweeps find their looks at once, not after `sweep_stale`."""
        if self.stored is None or self.look_store is None:
            return
        # A claim under way (a sweep's goes on when its loop is cancelled) ends first:
        # ending after `leave`, it would leave its table named after a worker gone, which
        # other workers' sweeps take only after `sweep_stale`.
        claims: list[asyncio.Task[Any]] = [*self._claims.values()]
        if self._sweeping is not None and not self._sweeping.done():
            claims.append(self._sweeping)
        if claims:
            await asyncio.wait(claims, timeout=self.store_seconds)
        await self.stored.close(self.store_seconds)
        with contextlib.suppress(Exception):  # the database is away: `sweep_stale` then
            left = await within(self.look_store.leave(self.terms.owner), self.store_seconds)
            log.info("%d tables left for the other workers", left)

    async def find(self, table_id: str) -> Table | None:
        table = self.terms.held.get(table_id)
        if table is not None:
            if self._watch_task is None or not self._stale_watch():
                return table
            # Paused past the watch: another worker may own it now. Look first.
            with contextlib.suppress(Exception):
                await self.watch_once()
            table = self.terms.held.get(table_id)
            if table is not None:
                return table
        return await self._claimed(table_id)

    def _claimed_again(self, table_id: str) -> None:
        self.released.pop(table_id, None)

    def _stale_watch(self) -> bool:
        return time.monotonic() - self._watched_at > 3 * self.watch_seconds

    async def watch_once(self) -> int:
        held = dict(self.terms.held.items())
        if not held:
            self._watched_at = time.monotonic()
            return 0
        epochs = await within(self.terms.store.owners(list(held)), self.store_seconds)
        self._watched_at = time.monotonic()
        moved = 0
        for table_id, table in held.items():
            epoch = epochs.get(table_id)
            if epoch is None:
                self.drop(table, CLOSE_GONE, "table gone")
                moved += 1
            elif epoch != self._epoch(table):
                self.drop(table)
                moved += 1
        return moved

    def release_idle(self) -> int:
        """Let go of tables idle for `release_seconds` with nobody connected: nothing
        is lost, the next request claims them again."""
        held = self.terms.held
        now = self.terms.clock()
        before = now - self.release_seconds
        idle = [
            t
            for t in held.values()
            if t.last_active < before
            and not self.terms.hub.count(t.id)
            and not t.lock.locked()
            and not held.kept(t.id)
            and not self._look_due(t, now)
        ]
        for table in idle:
            epoch = self._epoch(table)
            if not self.release(table) or epoch is None:
                continue
            look = self.next_look(table.id)
            if look is not None:
                self.released[table.id] = epoch
            if self.stored is not None and table.options.move_days is not None:
                self.stored.release(table.id, epoch, look)
        return len(idle)

    def _look_due(self, table: Table, now: float) -> bool:
        """Whether a table played over days has its look by the clock due this moment
        (kept until its presence has done it: a deadline soon told, a seat away)."""
        look = self.next_look(table.id)
        return table.options.move_days is not None and look is not None and look <= now

    async def wake(self, table_id: str) -> Table | None:
        """The look by the clock of a table let go here fell due (the presence's
        `fetch`): claimed back, unless another worker claimed it since (its presence
        looks then); None: not claimed, nothing of it is kept here."""
        table = self.terms.held.get(table_id)
        if table is not None:
            return table
        epoch = self.released.get(table_id)
        if epoch is None:
            return None
        if self.look_store is not None:
            # Only at the epoch it was let go at: a sweep of another worker (or one
            # asked for it) claims it at most once with this.
            del self.released[table_id]
            return await self._claimed(table_id, at=epoch)
        epochs = await self._ask(
            self.terms.store.owners([table_id]), "the server could not read this table"
        )
        del self.released[table_id]
        if epochs.get(table_id) != epoch:
            return None
        return await self.find(table_id)

    async def expired(self, before: float) -> list[str]:
        # One worker at a time, by the database's clock
        # (docs/architecture.md "One owner per table").
        return await self.terms.store.expire(before, idle_seconds=self.terms.expiry_seconds)

    async def settle(self, table: Table, ledger: Ledger) -> None:
        """Claimed again (a new epoch, so any write still in flight from before is
        refused); a log longer than ours means the write we could not confirm did
        commit: the table is rebuilt from the store and everyone gets the new state."""
        if not ledger.doubtful:
            return
        claimed = await self._ask(
            self.terms.store.claim(table.id, self.terms.owner),
            "the server could not store this change; nothing changed, try again",
        )
        if claimed is None:
            self.drop(table, CLOSE_GONE, "table gone")
            raise UnknownTable("no such table")
        epoch, record = claimed
        ledger.doubtful = False
        ledger.epoch = epoch
        if self.stored is not None and table.options.move_days is not None:
            self.stored.claimed_again(table, self.next_look(table.id))
        stored, held = record.base + len(record.log), ledger.base + ledger.logged
        log.info(
            "table %s settled at epoch %d: %d entries stored, %d in memory",
            short(table.id),
            epoch,
            stored,
            held,
        )
        if stored != held:
            absent = table.match.presence.absent
            table.match = rebuild_match(record, self.terms.rng)[1]
            table.match.presence.absent = absent
            ledger.base = record.base
            ledger.logged = len(record.log)
            self.terms.hub.broadcast(table)

    def bound(self, call: Awaitable[None]) -> Awaitable[None]:
        return within(call, self.store_seconds)

    def doubt(self, table: Table, ledger: Ledger, exc: Exception) -> None:
        if not ledger.doubtful:
            log.info("table %s doubtful: a write unconfirmed (%r)", short(table.id), exc)
        ledger.doubtful = True

    def _epoch(self, table: Table) -> int | None:
        ledger = self.terms.ledgers.get(table)
        return None if ledger is None else ledger.epoch
