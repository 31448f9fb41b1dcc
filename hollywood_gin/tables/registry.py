"""The tables of this process by id: create, join, act; the one writer of each match.

Every change follows ARCHITECTURE.md's path: take the table's lock, let the
engine apply it (a refusal raises a `RuleError` and changes nothing), store
the new `match.log` entries, and only then let the hub send each connection
its own view, and the computer (`hollywood_gin.tables.computer`) its news. A restart
rebuilds every table with `Match.replay`. A table itself is `hollywood_gin.tables.table`.
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
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from hollywood_gin.bots.coach import CoachBudget
from hollywood_gin.config import Settings
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.dealer import Dealer, check_entropy
from hollywood_gin.engine.errors import RuleError
from hollywood_gin.engine.match import Match, Options
from hollywood_gin.engine.vocabulary import STRENGTHS
from hollywood_gin.tables.computer import Computer, Policy
from hollywood_gin.tables.hub import CLOSE_GONE, CLOSE_RESTART, Hub
from hollywood_gin.tables.reviews import Reviews
from hollywood_gin.tables.sqlite_store import SqliteStore
from hollywood_gin.tables.store import (
    Damaged,
    FailureEpisode,
    NotOwner,
    TableRecord,
    TableStore,
)
from hollywood_gin.tables.table import (
    Moved,
    NoBots,
    SeatHolder,
    StoreUnavailable,
    Table,
    TableError,
    TableFull,
    UnknownHand,
    UnknownTable,
    hash_token,
    new_table_id,
    new_token,
    possible_table_id,
    rebuild_match,
    short,
)
from hollywood_gin.tables.thinking import Thinkers
from hollywood_gin.tables.turns import Clockwork

log = logging.getLogger("hollywood_gin.tables")

T = TypeVar("T")

DEFAULT_NAMES = ("Player 1", "Player 2")

Clock = Callable[[], float]


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a given-up store call's outcome as seen (it concerns nobody now)."""
    if not task.cancelled():
        task.exception()


class Observer:
    """What the registry reports as it works (metrics hang here); nothing by default."""

    def action(self, kind: str, seconds: float) -> None:
        """An action applied, stored and sent, `seconds` after it was asked for."""

    def commit(self, seconds: float) -> None:
        """A store write of a table's new log entries."""

    def think(self, strength: str, seconds: float) -> None:
        """The computer chose a move."""


class Registry:
    """All live tables of this process, by id."""

    def __init__(
        self,
        store: TableStore,
        hub: Hub,
        *,
        expiry_seconds: float,
        clock: Clock = time.time,
        rng: random.Random | None = None,
        policy: Policy | None = None,
        computer_delay: float = 0.8,
        computer_rng: random.Random | None = None,
        thinkers: Thinkers | None = None,
        owner: str | None = None,
        watch_seconds: float = 2.0,
        claim_after: float = 120.0,
    ) -> None:
        self.store = store
        self.hub = hub
        self.expiry_seconds = expiry_seconds
        self.clock = clock
        self.rng = rng
        # The computer seats: told of every change, as the hub is.
        self.computer = Computer(
            self, policy=policy, delay=computer_delay, rng=computer_rng, thinkers=thinkers
        )
        self.thinkers = thinkers
        # The coach's reviews of finished hands, computed where the computer thinks.
        self.reviews = Reviews(store, thinkers)
        self._tables: dict[str, Table] = {}
        self._expiry_task: asyncio.Task[None] | None = None
        # This worker's name in the store's rows (a shared store): host, pid, a nonce.
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.watch_seconds = watch_seconds
        self._watch_task: asyncio.Task[None] | None = None
        # When the watch last heard from the store (monotonic): a worker that was
        # paused (SIGSTOP, a VM freeze) looks again before serving what it holds.
        self._watched_at = time.monotonic()
        # A shared store's tables nobody has looked at for this long leave memory
        # (they are claimed again when asked for): memory does not grow with history.
        self.release_seconds = 600.0
        # A shared store's write or claim unanswered for this long is given up: the
        # table is doubtful (settled before its next write) and its lock free again.
        # asyncpg can wait without end (a pool acquire; the clean-up of a query cut
        # off by a database restart), which held one table's lock, so its players
        # waited, for as long as the worker lived. Not with a single-owner store:
        # there a write given up may still land, and nothing would settle it.
        self.store_seconds = 15.0
        # Claims under way, so two requests for one table make one claim.
        self._claims: dict[str, asyncio.Task[Table | None]] = {}
        self.claims = 0
        self.dropped = 0
        # Locked sections still running: each runs to its end, even once its caller
        # is gone (`_locked`), and closing waits for them.
        self._sections: set[asyncio.Task[Any]] = set()
        self.store_episode = FailureEpisode(log, "storing a change")
        self.observer = Observer()
        # A seat with no connection for this long is away (PROTOCOL.md "Around the match").
        self.claim_after = claim_after
        # The turn clocks and away times, by `clock` (`tick` in tests).
        self.clockwork = Clockwork(self)
        # Called after every change (tests, benchmarks); must not raise.
        self.on_change: list[Callable[[Table], Awaitable[None] | None]] = []

    def _now(self) -> float:
        """The registry's clock as it is now (tests replace `clock`)."""
        return self.clock()

    # --- look-ups (the pages layer uses these) -------------------------------------
    def get(self, table_id: str) -> Table | None:
        """The table if this worker holds it (it never claims: see `find`)."""
        return self._tables.get(table_id)

    @property
    def shared(self) -> bool:
        return bool(getattr(self.store, "shared", False))

    async def find(self, table_id: str) -> Table | None:
        """The table, claimed from a shared store on its first request; None: no such table.

        Raises `StoreUnavailable` when the store cannot be asked (nothing is known).
        """
        if not possible_table_id(table_id):
            return None  # never asked of the store: a NUL byte made PostgreSQL fail
        table = self._tables.get(table_id)
        if not self.shared:
            return table
        if table is not None:
            if self._watch_task is None or not self._stale_watch():
                return table
            # Paused past the watch: another worker may own it now. Look first.
            with contextlib.suppress(Exception):
                await self.watch_once()
            table = self._tables.get(table_id)
            if table is not None:
                return table
        claim = self._claims.get(table_id)
        if claim is None:
            claim = asyncio.get_running_loop().create_task(self._claim(table_id))
            self._claims[table_id] = claim
            claim.add_done_callback(lambda _t: self._claims.pop(table_id, None))
        return await asyncio.shield(claim)

    async def _claim(self, table_id: str) -> Table | None:
        try:
            claimed = await self._bounded(self.store.claim(table_id, self.owner))
        except Exception as exc:
            self.store_episode.failed(exc)
            raise StoreUnavailable("the server could not read this table; try again") from exc
        self.store_episode.succeeded()
        if claimed is None:
            return None
        epoch, record = claimed
        try:
            table = self._rebuild(record)
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}"[:300]
            log.error("table %s could not be rebuilt (%s): set aside", short(table_id), reason)
            with contextlib.suppress(Exception):
                await self.store.set_aside(table_id, reason)
            return None
        table.epoch = epoch
        self.claims += 1
        self._tables[table_id] = table
        log.info("table %s claimed at epoch %d", short(table_id), epoch)
        self.computer.changed(table)
        self.clockwork.schedule(table)
        return table

    def drop(self, table: Table, code: int = CLOSE_RESTART, reason: str = "table moved") -> None:
        """Let go of a table another worker owns now: no broadcast, no computer move;
        its sockets close with 1012 and reconnect through the proxy to the owner."""
        if self._tables.get(table.id) is not table:
            return
        del self._tables[table.id]
        self.computer.forget(table)
        self.clockwork.forget(table.id)
        self.hub.close_table(table.id, code, reason)
        self.dropped += 1
        log.warning("table %s dropped: %s", short(table.id), reason)

    def release_idle(self) -> int:
        """Let go of tables idle for `release_seconds` with nobody connected (shared
        store only): nothing is lost, the next request claims them again."""
        before = self.clock() - self.release_seconds
        idle = [
            t
            for t in self._tables.values()
            if t.last_active < before
            and not self.hub.count(t.id)
            and not t.lock.locked()
            and (t.computer_task is None or t.computer_task.done())
            and all(task.done() for task in t.stand_in_tasks.values())
        ]
        for table in idle:
            del self._tables[table.id]
            self.clockwork.forget(table.id)
        return len(idle)

    def start_watch(self) -> None:
        """Every `watch_seconds`, one query for the epochs of the tables held here:
        drop those another worker has claimed (or that are gone), moves or not."""

        async def watch() -> None:
            while True:
                await asyncio.sleep(self.watch_seconds)
                try:
                    await self.watch_once()
                except Exception as exc:  # the database is away: the next round looks again
                    log.debug("ownership watch failed: %r", exc)
                self.release_idle()

        self._watch_task = asyncio.get_running_loop().create_task(watch())

    def _stale_watch(self) -> bool:
        return time.monotonic() - self._watched_at > 3 * self.watch_seconds

    async def watch_once(self) -> int:
        held = dict(self._tables)
        if not held:
            self._watched_at = time.monotonic()
            return 0
        epochs = await self._bounded(self.store.owners(list(held)))
        self._watched_at = time.monotonic()
        moved = 0
        for table_id, table in held.items():
            epoch = epochs.get(table_id)
            if epoch is None:
                self.drop(table, CLOSE_GONE, "table gone")
                moved += 1
            elif epoch != table.epoch:
                self.drop(table)
                moved += 1
        return moved

    def seat_for_token(self, table_id: str, token: str) -> int | None:
        table = self._tables.get(table_id)
        return table.seat_for_token(token) if table else None

    def __len__(self) -> int:
        return len(self._tables)

    # --- start-up and shut-down -----------------------------------------------------
    async def load(self) -> int:
        """Rebuild every stored table by replaying its log; return how many.

        One table that cannot be rebuilt must not keep every other one offline: it is
        reported and set aside, kept in the store for a person to look at.
        """
        for record in await self.store.load_all():
            try:
                table = self._rebuild(record)
            except Exception as exc:
                reason = f"{type(exc).__name__}: {exc}"[:300]
                log.error(
                    "table %s could not be rebuilt (%s): set aside, kept in the store",
                    short(record.table_id),
                    reason,
                )
                await self.store.set_aside(record.table_id, reason)
                continue
            self._tables[table.id] = table
        for table in self._tables.values():
            self.computer.changed(table)
            self.clockwork.schedule(table)
        return len(self._tables)

    def _rebuild(self, record: TableRecord) -> Table:
        options, match = rebuild_match(record, self.rng)
        seats = [
            SeatHolder(s.name, s.token_hash, s.computer, s.lang, s.order, s.bot, s.no_bots)
            for s in record.seats
        ]
        if len(seats) == 2 and match.status == "waiting":
            seats = seats[:1]  # its seat was stored, its deal was not: nobody sat down
        table = Table(
            record.table_id,
            options,
            match,
            seats,
            hub=self.hub,
            created=record.created,
            last_active=record.last_active,
            logged=len(record.log),
            base=record.base,
            clock=self._now,
        )
        table.set_deadline()  # a fresh deadline after a restart (see `turns`)
        return table

    def start_expiry(self, interval: float) -> None:
        async def sweep() -> None:
            while True:
                await asyncio.sleep(interval)
                try:
                    await self.expire()
                    await self.store.drop_compacted()
                except Exception:  # a failed sweep must not end the sweeping
                    log.exception("expiry sweep failed")

        self._expiry_task = asyncio.get_running_loop().create_task(sweep())

    async def close(self) -> None:
        await self.clockwork.close()
        tasks = [t.computer_task for t in self._tables.values() if t.computer_task]
        tasks += [task for t in self._tables.values() for task in t.stand_in_tasks.values()]
        if self._expiry_task:
            tasks.append(self._expiry_task)
        if self._watch_task:
            tasks.append(self._watch_task)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        # The changes under way end as they would have (their callers may be gone).
        while self._sections:
            await asyncio.gather(*self._sections, return_exceptions=True)

    # --- creating and seating -------------------------------------------------------
    def _new_match(
        self,
        options: Options,
        test_decks: Sequence[Sequence[str]] | None,
        first_dealer: int | None,
        test_secrets: Sequence[bytes] = (),
    ) -> Match:
        # Fair: every deal after the test decks is derived from a fresh secret and the
        # seats' entropy (PROTOCOL.md "Deals nobody can choose").
        dealer = Dealer(
            self.rng, test_decks or (), first_dealer, fair=True, chosen_secrets=test_secrets
        )
        match = Match(options, dealer=dealer)
        match.endings = True
        return match

    async def create(
        self,
        options: Mapping[str, Any],
        name: str | None,
        *,
        computer: str | None = None,
        test_decks: Sequence[Sequence[str]] | None = None,
        first_dealer: int | None = None,
        lang: str | None = None,
        entropy: str | None = None,
        test_secrets: Sequence[bytes] = (),
        bot: bool = False,
        bots: bool = True,
    ) -> tuple[Table, str]:
        """A new table with its creator at seat 0; returns it and the creator's token.
        `lang` is the creator's page language, kept for the link preview; `entropy` the
        creator's part of the first deal (`table.next_deal` its commitment); `bot`: the
        creator is a program; `bots` False: the table refuses a bot's join."""
        opts = Options.from_dict(dict(options))
        if computer is not None and computer not in STRENGTHS:
            raise TableError(f"computer strength must be one of {', '.join(STRENGTHS)}")
        token = new_token()
        now = self.clock()
        seats = [
            SeatHolder(
                name or DEFAULT_NAMES[0], hash_token(token), lang=lang, bot=bot, no_bots=not bots
            )
        ]
        if computer is not None:
            seats.append(SeatHolder(f"Computer ({computer})", hash_token(new_token()), computer))
        table_id = new_table_id()
        match = self._new_match(opts, test_decks, first_dealer, test_secrets)
        first_deal = match.next_deal
        if entropy is not None:
            match.contribute(0, entropy)
        if computer is not None:
            match.start()  # the computer's seat adds nothing
        table = Table(
            table_id,
            opts,
            match,
            seats,
            hub=self.hub,
            created=now,
            last_active=now,
            clock=self._now,
        )
        table.next_deal = first_deal
        table.set_deadline()
        await self._stored(self.store.create(table.record()))
        table.logged = len(match.log)
        self._tables[table_id] = table
        log.info(
            "table %s created: %s/%s/%d%s",
            short(table_id),
            opts.rules,
            opts.scoring,
            opts.target,
            f", computer {computer}" if computer else "",
        )
        self.computer.changed(table)
        self.clockwork.schedule(table)
        return table, token

    async def join(
        self,
        table_id: str,
        name: str | None,
        *,
        entropy: str | None = None,
        bot: bool = False,
    ) -> tuple[int, str]:
        """Seat a person (or, `bot`, a program) in the free seat and start the match;
        return (seat, token). `entropy`: the joiner's part of the first deal.

        :raises NoBots: a bot at a table that refuses bots.
        """
        if entropy is not None:
            check_entropy(entropy)  # refused before anything changes
        table = await self._require(table_id)
        if bot and not table.bots_welcome:
            raise NoBots("this table does not take bots")
        token = new_token()
        holder = SeatHolder(name or DEFAULT_NAMES[1], hash_token(token), bot=bot)
        await self._take_seat(table, holder, entropy)
        return 1, token

    async def seat_computer(self, table_id: str, strength: str) -> int:
        if strength not in STRENGTHS:
            raise TableError(f"computer strength must be one of {', '.join(STRENGTHS)}")
        table = await self._require(table_id)
        holder = SeatHolder(f"Computer ({strength})", hash_token(new_token()), strength)
        await self._take_seat(table, holder)
        return 1

    async def _take_seat(
        self, table: Table, holder: SeatHolder, entropy: str | None = None
    ) -> None:
        async def section() -> None:
            if len(table.seats) >= 2:
                raise TableFull("both seats are taken")
            await self._settle(table)
            with self._unstored(table):
                table.seats.append(holder)
                # Away counts from the moment the seat is taken, not from the table's
                # creation: a friend who joins late is not away before their page opens.
                table.left_at[len(table.seats) - 1] = self.clock()
                try:
                    await self._save_seats(table)
                except BaseException:
                    table.seats.pop()
                    raise
                if entropy is not None:
                    table.match.contribute(len(table.seats) - 1, entropy)
                table.match.start()
                try:
                    await self._commit(table)
                except BaseException:
                    # The deal is not stored, so nobody sat down: the seat is free again
                    # (the next one to sit writes the stored seats anew; see `_rebuild`).
                    table.seats.pop()
                    raise
            log.info(
                "table %s seat %d taken%s",
                short(table.id),
                len(table.seats) - 1,
                f" by the computer ({holder.computer})" if holder.computer else "",
            )
            await self._changed(table)

        await self._locked(table, section)

    async def _require(self, table_id: str) -> Table:
        table = await self.find(table_id)
        if table is None:
            raise UnknownTable("no such table")
        return table

    # --- playing --------------------------------------------------------------------
    async def act(
        self,
        table: Table,
        seat: int,
        action: Action,
        version: int | None,
        *,
        by: str | None = None,
        entropy: str | None = None,
    ) -> None:
        """Apply one action for `seat`; raise `RuleError` (nothing changed) when refused.
        `by`: who moves for the seat (`timeout`, `stand_in`; None: the seat itself).
        `entropy` goes with `next_hand` / `new_match` (the seat's part of the next deal)."""
        began = time.perf_counter()

        async def section() -> None:
            await self._settle(table)
            # A claim is judged by the presence of this moment, not of the last tick.
            self.refresh_away(table, broadcast=False)
            with self._unstored(table):
                self._apply(
                    table,
                    lambda: table.match.apply(seat, action, version, by=by, entropy=entropy),
                )
                await self._commit(table)
            await self._changed(table)

        await self._locked(table, section)
        self.observer.action(action.kind, time.perf_counter() - began)

    async def arrange(self, table: Table, seat: int, cards: Sequence[str]) -> None:
        """Store the seat's card order; only that seat's connections get a new state.

        The order is kept with the seat, overwritten (`save_seats`), not appended to the
        log: a table's stored size does not grow with arranging, however often.
        """

        async def section() -> None:
            await self._settle(table)
            holder = table.seats[seat]
            before = holder.order
            with self._unstored(table):
                table.match.arrange(seat, list(cards))
                holder.order = table.match.orders.get(seat)
                try:
                    await self._save_seats(table)
                except BaseException:
                    holder.order = before
                    raise
            self.hub.broadcast(table, seats=[seat])

        await self._locked(table, section)

    async def _save_seats(self, table: Table) -> None:
        """Store the table's seats as they are in memory (fenced with a shared store)."""
        seats = [h.record() for h in table.seats]
        write = (
            self.store.save_seats(table.id, seats, table.epoch)
            if self.shared
            else self.store.save_seats(table.id, seats)
        )
        await self._stored(write, table)

    @contextlib.contextmanager
    def _unstored(self, table: Table) -> Iterator[None]:
        """A change made in memory and then stored: nobody sees it before it is stored.

        The hub withholds every state of the table meanwhile (a player arriving or
        leaving would show everybody the change that may yet be undone) and, when
        the change is not stored after all, sends those withheld the present.
        """
        self.hub.hold(table)
        stored = False
        try:
            yield
            stored = True
        finally:
            self.hub.release(table, changed=stored)

    async def _locked(self, table: Table, section: Callable[[], Awaitable[T]]) -> T:
        """Run `section` under the table's lock, to its end whatever befalls the caller.

        A socket that closes while its own action commits cancels the task awaiting
        here. Were the section cancelled with it, memory would roll back while the
        store's queued write still commits: memory and disk would disagree and every
        later move of the table fail. So the section is a task of its own, shielded;
        the caller's cancellation ends only the caller's wait.
        """

        async def run() -> T:
            async with table.lock:
                return await section()

        task = asyncio.get_running_loop().create_task(run())
        self._sections.add(task)
        task.add_done_callback(self._section_done)
        return await asyncio.shield(task)

    def _section_done(self, task: asyncio.Task[Any]) -> None:
        self._sections.discard(task)
        # Whoever awaited it has seen the outcome; a caller gone before the end has
        # not, and a refusal then concerns nobody, but a failure is worth a line.
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None and not isinstance(exc, RuleError | TableError):
            log.error("a table change failed: %r", exc)

    async def _stored(self, write: Awaitable[None], table: Table | None = None) -> None:
        """Await a store write; a failure becomes `StoreUnavailable`, logged once per run.

        A fenced write refused (`NotOwner`) means another worker holds `table` now:
        it is dropped here, and the caller's change was never acknowledged.
        """
        try:
            await self._bounded(write)
        except NotOwner as exc:
            if table is not None:
                self.drop(table)
            raise Moved("this table moved to another server; reconnect") from exc
        except Exception as exc:
            if table is not None and self.shared:
                if not table.doubtful:
                    log.info("table %s doubtful: a write unconfirmed (%r)", short(table.id), exc)
                table.doubtful = True
            self.store_episode.failed(exc)
            raise StoreUnavailable(
                "the server could not store this change; nothing changed, try again"
            ) from exc
        self.store_episode.succeeded()

    async def _bounded(self, call: Awaitable[T]) -> T:
        """Await a store call, within `store_seconds` with a shared store.

        Given up at the bound without waiting for the call to end: `asyncio.wait_for`
        cancels and then waits for the cancelled call, and asyncpg's clean-up of a
        query cut off by a database restart (a rollback waiting for the answer to a
        cancel request that never comes) can wait for ever. One table of the outage
        test stayed locked that way, every later move of it unanswered (issue 30).
        A call given up and finishing later changes nothing that matters: its table
        is doubtful, so its next write claims it again first.
        """
        if not self.shared:
            return await call
        task = asyncio.ensure_future(call)
        try:
            done, _ = await asyncio.wait({task}, timeout=self.store_seconds)
        except BaseException:  # the caller is cancelled: so is the call, not waited on
            task.cancel()
            task.add_done_callback(_retrieve)
            raise
        if task in done:
            return task.result()
        task.cancel()
        task.add_done_callback(_retrieve)
        log.warning("a store call given up after %.0f s", self.store_seconds)
        raise TimeoutError(f"the store did not answer within {self.store_seconds:.0f} s")

    def _apply(self, table: Table, change: Callable[[], object]) -> None:
        before = table.status
        change()
        after = table.status
        if after != before and after in ("hand_over", "match_over"):
            number = None if table.match.hand is None else table.match.hand.number
            log.info(
                "table %s hand %s over%s",
                short(table.id),
                number,
                ", match over" if after == "match_over" else "",
            )

    async def _commit(self, table: Table) -> None:
        """Make the new log entries durable, before anybody sees their effect."""
        entries = table.match.log[table.logged :]
        now = self.clock()
        if entries:
            first = table.base + table.logged
            began = time.perf_counter()
            try:
                # Fenced by the epoch with a shared store; the single owner needs no fence.
                write = (
                    self.store.append(table.id, first, entries, now, table.epoch)
                    if self.shared
                    else self.store.append(table.id, first, entries, now)
                )
                await self._stored(write, table)
            except BaseException:
                # Not durable, so it did not happen: rebuild from the durable prefix.
                absent = table.match.absent
                table.match = Match.replay(
                    table.options,
                    table.match.log[: table.logged],
                    rng=self.rng,
                    orders=table.match.orders,
                    endings=True,
                    fair=True,
                )
                table.match.absent = absent
                raise
            self.observer.commit(time.perf_counter() - began)
            table.logged += len(entries)
            if any(e.get("event") == "snapshot" for e in entries):
                await self._compact(table)
        table.last_active = now

    async def _compact(self, table: Table) -> None:
        """A hand was dealt: the log before its snapshot goes (its hands' records kept).

        The move is stored already: a failure here only leaves the log longer.
        """
        cut, hands = table.match.compaction()
        if not hands:  # the first deal: nothing before it but the start
            return
        try:
            await self._stored(self.store.compact(table.id, table.base + cut, hands))
        except StoreUnavailable:
            return
        table.match.compact()
        table.base += cut
        table.logged -= cut

    async def _settle(self, table: Table) -> None:
        """Before writing to a doubtful table, learn from the store what it holds.

        Claimed again (a new epoch, so any write still in flight from before is
        refused); a log longer than ours means the write we could not confirm did
        commit: the table is rebuilt from the store and everyone gets the new state.
        """
        if not table.doubtful:
            return
        try:
            claimed = await self._bounded(self.store.claim(table.id, self.owner))
        except Exception as exc:
            self.store_episode.failed(exc)
            raise StoreUnavailable(
                "the server could not store this change; nothing changed, try again"
            ) from exc
        self.store_episode.succeeded()
        if claimed is None:
            self.drop(table, CLOSE_GONE, "table gone")
            raise UnknownTable("no such table")
        epoch, record = claimed
        table.doubtful = False
        table.epoch = epoch
        stored, held = record.base + len(record.log), table.base + table.logged
        log.info(
            "table %s settled at epoch %d: %d entries stored, %d in memory",
            short(table.id),
            epoch,
            stored,
            held,
        )
        if stored != held:
            absent = table.match.absent
            table.match = rebuild_match(record, self.rng)[1]
            table.match.absent = absent
            table.base = record.base
            table.logged = len(record.log)
            self.hub.broadcast(table)

    async def _changed(self, table: Table) -> None:
        table.set_deadline()
        self.hub.broadcast(table)
        self.computer.changed(table)
        self.clockwork.schedule(table)
        for hook in self.on_change:
            result = hook(table)
            if result is not None:
                await result

    # --- presence, away and reactions (PROTOCOL.md "Around the match") ----------------
    def refresh_away(self, table: Table, *, broadcast: bool = True) -> bool:
        """Tell the match which seats are away by absence now; True when that changed
        (and then, with `broadcast`, everybody gets the state: claim may be open)."""
        absent = table.absent_now(self.claim_after)
        if absent == table.match.absent:
            return False
        table.match.absent = absent
        if broadcast:
            self.hub.broadcast(table)
        return True

    def presence(self, table: Table) -> None:
        """A connection of `table` opened or closed (the socket endpoint calls this after
        the hub's attach or detach): note when each seat left, who is away, and end the
        stand-in of a seat whose connection said hello again."""
        if self._tables.get(table.id) is not table:
            return
        now = self.clock()
        for seat in range(len(table.seats)):
            if self.hub.connected(table.id, seat):
                table.left_at[seat] = None
            elif table.left_at[seat] is None:
                table.left_at[seat] = now
        self.refresh_away(table)
        for seat in range(len(table.seats)):
            if table.match.stand_in[seat] and self.hub.connected(table.id, seat):
                task = asyncio.get_running_loop().create_task(self.back(table, seat))
                self._sections.add(task)
                task.add_done_callback(self._section_done)
        self.clockwork.schedule(table)

    async def back(self, table: Table, seat: int) -> None:
        """The seat is back: the computer stops standing in for it (stored in the log)."""

        async def section() -> None:
            await self._settle(table)
            if not table.match.stand_in[seat]:
                return
            with self._unstored(table):
                table.match.back(seat)
                await self._commit(table)
            log.info("table %s seat %d is back; the stand-in stops", short(table.id), seat)
            await self._changed(table)

        await self._locked(table, section)

    async def touch(self, table: Table) -> None:
        """Mark the table as looked at; a failure to store that only makes it look older."""
        table.last_active = self.clock()
        with contextlib.suppress(StoreUnavailable):
            await self._stored(self.store.touch(table.id, table.last_active))

    # --- finished hands and expiry ----------------------------------------------------
    async def hand_record(self, table_id: str, number: int) -> dict[str, Any]:
        """A finished hand's record: from the match while its hand is in the log, else
        from the store, which keeps the records of the hands compacted away."""
        table = await self._require(table_id)
        record = table.match.hand_record(number) if number >= 1 else None
        dealt = 0 if table.match.hand is None else table.match.hand.number
        if record is None and 1 <= number < dealt:
            try:
                record = await self.store.hand(table_id, number)
            except Damaged as exc:
                # Reported; the record stays in the store for a person to look at (the
                # next start-up sets its table aside, as `check` says).
                log.error("table %s: %s; answered as unknown", short(table_id), exc)
                raise UnknownHand("that hand's record cannot be read") from None
        if record is None:
            raise UnknownHand("that hand is not finished (or does not exist)")
        return dict(record)

    async def expire(self, now: float | None = None) -> list[str]:
        """Remove tables idle longer than the expiry, from memory and from disk."""
        now = self.clock() if now is None else now
        before = now - self.expiry_seconds
        for table in list(self._tables.values()):
            # Somebody is looking at it: not idle, whatever the last move's age.
            if table.last_active < before and self.hub.count(table.id):
                await self.touch(table)
        if self.shared:
            # One worker at a time, by the database's clock (SCALE.md).
            gone = await self.store.expire(before, idle_seconds=self.expiry_seconds)
        else:
            gone = await self.store.expire(before)
        for table_id in gone:
            gone_table = self._tables.pop(table_id, None)
            self.clockwork.forget(table_id)
            if gone_table is not None:
                self.computer.forget(gone_table)
            self.hub.close_table(table_id, CLOSE_GONE, "table expired")
            log.info("table %s expired", short(table_id))
        return gone


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
        return PostgresStore(
            settings.database_url, owner=owner, gather_seconds=settings.database_gather_seconds
        )
    return SqliteStore(settings.data_file)


@asynccontextmanager
async def open_tables(settings: Settings) -> AsyncIterator[Registry]:
    """The lifespan's part: open the store, load every live table, sweep; close all at the end.

    With a shared store (`database_url`) nothing is loaded: tables are claimed as
    they are asked for, and the ownership watch runs.
    """
    owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
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
    registry.clockwork.start()
    registry.reviews.budget = CoachBudget(samples=settings.review_samples)
    try:
        if registry.shared:
            log.info("tables in a shared store, claimed as they are asked for (%s)", owner)
            registry.start_watch()
            registry.start_expiry(min(3600.0, max(1.0, settings.table_expiry_seconds / 10)))
            yield registry
            return
        count = await registry.load()
        aside = await store.set_aside_tables()
        log.info(
            "loaded %d live tables from %s%s",
            count,
            settings.data_file,
            f"; {len(aside)} damaged tables set aside" if aside else "",
        )
        registry.start_expiry(min(3600.0, max(1.0, settings.table_expiry_seconds / 10)))
        yield registry
    finally:
        # Browsers reconnect by themselves after 1012 (service restart).
        hub.close_all(CLOSE_RESTART, "server restart")
        await registry.reviews.close()
        await registry.close()
        if registry.thinkers is not None:
            registry.thinkers.close()
        await store.close()
