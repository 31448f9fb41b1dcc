"""The one way a table changes: `Writer.change`, in one screen
(docs/architecture.md "The path of a move").

Under the table's lock, in a task of its own (a caller that goes away cannot cut a
change in half), with the hub holding back every state of the table: `mutate`
changes the table in memory and returns how to undo what the log does not hold
(seats, a card order); the seats (when asked) and the new log entries are stored;
a failure undoes the change (the match replayed from its stored prefix, then the
undo) and nobody ever saw it; a stored change is told to the listeners (the hub,
which sends every connection its view; the computer; the turn clocks).
Which writes are fenced, bounded in time or settled is the `Ownership`'s part.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Protocol

from hollywood_gin.engine.errors import Refusal
from hollywood_gin.engine.events import Snapshot
from hollywood_gin.engine.match import Match
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.store import FIRST_EPOCH, FailureEpisode, NotOwner, TableStore
from hollywood_gin.tables.table import Moved, StoreUnavailable, Table

log = logging.getLogger("hollywood_gin.tables")

# What `mutate` returns: how to put back what it changed outside the log (None: nothing).
Undo = Callable[[], object] | None


@dataclass(slots=True)
class Ledger:
    """What the writer knows of one held table's stored form (kept in `Writer.ledgers`,
    by the table itself, and dropped when the table is let go)."""

    # How many `match.log` entries are durable in the store.
    logged: int = 0
    # The store's seq of `match.log[0]`: what came before was compacted away.
    base: int = 0
    # The ownership epoch this worker writes under (a shared store fences by it).
    epoch: int = FIRST_EPOCH
    # A write failed without a verdict (the database went away mid-commit): the
    # store may hold more than `logged`. Settled from the store before the next one.
    doubtful: bool = False
    # A seat's card order changed in memory and is not in the store yet: it goes
    # with the next change of the table, or within seconds (`tables.orders`).
    unsaved: bool = False


# The ledgers of the held tables: made by the ownership (which sets and reads the
# epoch, and settles a doubtful table), kept up by the writer.
Ledgers = dict[Table, Ledger]


class Listener(Protocol):
    """Told of every stored change (and of a table newly held here), in order."""

    def changed(self, table: Table, seats: Sequence[int] | None = None) -> None:
        """`seats`: only those seats' views changed (a card order); None: anything may."""


class Writes(Protocol):
    """What the writer asks of the table's ownership (`hollywood_gin.tables.ownership`)."""

    async def settle(self, table: Table, ledger: Ledger) -> None: ...

    def bound(self, call: Awaitable[None]) -> Awaitable[None]: ...

    def doubt(self, table: Table, ledger: Ledger, exc: Exception) -> None: ...

    def lost(self, table: Table) -> None: ...


class Observer:
    """What the tables report as they work (metrics hang here); nothing by default."""

    def action(self, kind: str, seconds: float) -> None:
        """An action applied, stored and sent, `seconds` after it was asked for."""

    def commit(self, seconds: float) -> None:
        """A store write of a table's new log entries."""

    def think(self, strength: str, seconds: float) -> None:
        """The computer chose a move."""

    def seats_written(self) -> None:
        """A store write of a table's seats (a seat taken, the seats' card orders)."""


class Writer:
    """The one writer of every table held here."""

    def __init__(
        self,
        store: TableStore,
        hub: Hub,
        ownership: Writes,
        episode: FailureEpisode,
        ledgers: Ledgers,
        *,
        clock: Callable[[], float],
        rng: random.Random | None,
    ) -> None:
        self.ledgers = ledgers
        self.store = store
        self.hub = hub
        self.ownership = ownership
        self.episode = episode
        self.clock = clock
        self.rng = rng
        self.listeners: list[Listener] = []
        # After each change, before it is stored: a seat's kept fact that follows the
        # match (the deadlines of a table played over days). Returns how to undo it
        # when it changed the seats (then stored with the change), else None.
        self.seats_due: Callable[[Table], Callable[[], None] | None] | None = None
        self.observer = Observer()
        # Changes still running: each runs to its end, even once its caller is gone.
        self._sections: set[asyncio.Task[Any]] = set()
        # Changes running in their callers' tasks (`change(in_caller=True)`), and set
        # whenever none is: what `close` waits on, as it cannot await their tasks.
        self._in_callers = 0
        self._no_callers = asyncio.Event()
        self._no_callers.set()

    async def change(
        self,
        table: Table,
        mutate: Callable[[], Undo],
        *,
        seats: bool = False,
        only: int | None = None,
        in_caller: bool = False,
    ) -> None:
        """Make `mutate`'s change durable, then show it; `seats`: store the seats too;
        `only`: nothing changed but that seat's view (its listeners are told so);
        `in_caller`: run in the caller's own task, whose caller promises that nothing
        cancels it before this returns (see `run`; a socket's reader keeps that
        promise: `web.socket.endpoint.Session`)."""

        async def section() -> None:
            async with table.lock:
                ledger = self.ledger(table)
                if ledger.doubtful:  # (settling a table that is not is nothing: a frame less)
                    await self.ownership.settle(table, ledger)
                self.hub.hold(table)
                stored, undo, undo_seats = False, None, None
                try:
                    undo = mutate()
                    if self.seats_due is not None:
                        undo_seats = self.seats_due(table)
                    # Card orders not yet written go with the seat's next change.
                    if seats or ledger.unsaved or undo_seats is not None:
                        await self._save_seats(table, ledger)
                    stored = await self._append(table, ledger) or seats
                except BaseException:
                    if undo_seats is not None:
                        undo_seats()
                    self._undo(table, ledger, undo)
                    raise
                finally:
                    self.hub.release(table, changed=stored)
                if not stored:
                    return  # nothing to store, so nothing changed (a seat already back)
                self.tell(table, None if only is None else [only])

        if not in_caller:
            await self.run(section())
            return
        # No task of its own and no shield: a tenth of a move's instructions
        # (docs/performance.md). `close` waits for these too.
        self._in_callers += 1
        self._no_callers.clear()
        try:
            await section()
        except Exception as exc:
            self._failed(exc)
            raise
        finally:
            self._in_callers -= 1
            if not self._in_callers:
                self._no_callers.set()

    def ledger(self, table: Table) -> Ledger:
        """The table's ledger; `Moved` when it is not held here (any more)."""
        ledger = self.ledgers.get(table)
        if ledger is None:
            raise Moved("this table moved to another server; reconnect")
        return ledger

    def forget(self, table: Table) -> None:
        """The table is let go: its ledger goes."""
        self.ledgers.pop(table, None)

    def unsaved(self, table: Table) -> bool:
        """Whether a card order of `table` waits to be written."""
        ledger = self.ledgers.get(table)
        return ledger is not None and ledger.unsaved

    def arranged(self, table: Table) -> None:
        """A card order changed in memory only: it goes with the next write."""
        self.ledger(table).unsaved = True

    async def _save_seats(self, table: Table, ledger: Ledger) -> None:
        """The seats as they are now (their card orders too) into the store."""
        records = [h.record() for h in table.seats]
        unsaved = ledger.unsaved
        ledger.unsaved = False
        try:
            await self.stored(self.store.save_seats(table.id, records, ledger.epoch), table)
        except BaseException:
            ledger.unsaved = unsaved or ledger.unsaved
            raise
        self.observer.seats_written()

    async def change_seats(self, table: Table, mutate: Callable[[], Callable[[], None]]) -> None:
        """A change of the seats alone (not the match: nobody is shown anything), stored
        under the table's lock; undone when it cannot be stored."""
        async with table.lock:
            ledger = self.ledger(table)
            if ledger.doubtful:
                await self.ownership.settle(table, ledger)
            undo = mutate()
            try:
                await self._save_seats(table, ledger)
            except BaseException:
                undo()
                raise

    async def save_orders(self, table: Table) -> None:
        """Write the card orders kept in memory only (`tables.orders`), if any are."""
        async with table.lock:
            ledger = self.ledgers.get(table)
            if ledger is None or not ledger.unsaved:
                return
            if ledger.doubtful:
                await self.ownership.settle(table, ledger)
            await self._save_seats(table, ledger)

    def tell(self, table: Table, seats: Sequence[int] | None = None) -> None:
        for listener in self.listeners:
            listener.changed(table, seats)

    async def _append(self, table: Table, ledger: Ledger) -> bool:
        """The new log entries into the store, before anybody sees their effect;
        False: there were none."""
        events = table.match.log[ledger.logged :]
        if not events:
            return False
        now = self.clock()
        began = time.perf_counter()
        first = ledger.base + ledger.logged
        entries = [e.to_json() for e in events]  # the stored form (engine/events.py)
        await self.stored(self.store.append(table.id, first, entries, now, ledger.epoch), table)
        self.observer.commit(time.perf_counter() - began)
        ledger.logged += len(entries)
        if any(map(isinstance, events, repeat(Snapshot))):  # (no generator's frame)
            await self._compact(table, ledger)
        table.last_active = now
        return True

    def _undo(self, table: Table, ledger: Ledger, undo: Undo) -> None:
        """Not durable, so it did not happen: the match rebuilt from the stored prefix."""
        match = table.match
        if len(match.log) > ledger.logged:
            table.match = Match.replay(
                table.options,
                match.log[: ledger.logged],
                rng=self.rng,
                orders=match.orders,
                endings=True,
                fair=True,
            )
            table.match.presence.absent = match.presence.absent
        if undo is not None:
            undo()

    async def _compact(self, table: Table, ledger: Ledger) -> None:
        """A hand was dealt: the log before its snapshot goes (its hands' records kept).

        The move is stored already: a failure here only leaves the log longer.
        """
        cut, hands = table.match.compaction()
        if not hands:  # the first deal: nothing before it but the start
            return
        try:
            await self.stored(self.store.compact(table.id, ledger.base + cut, hands))
        except StoreUnavailable:
            return
        table.match.compact()
        ledger.base += cut
        ledger.logged -= cut

    async def stored(self, write: Awaitable[None], table: Table | None = None) -> None:
        """Await a store write; a failure becomes `StoreUnavailable`, logged once per run.

        A fenced write refused (`NotOwner`) means another worker holds `table` now:
        it is let go here, and the caller's change was never acknowledged.
        """
        try:
            await self.ownership.bound(write)
        except NotOwner as exc:
            if table is not None:
                self.ownership.lost(table)
            raise Moved("this table moved to another server; reconnect") from exc
        except Exception as exc:  # whatever the store raises: a full disk, a database away
            ledger = None if table is None else self.ledgers.get(table)
            if table is not None and ledger is not None:
                self.ownership.doubt(table, ledger, exc)
            self.episode.failed(exc)
            raise StoreUnavailable(
                "the server could not store this change; nothing changed, try again"
            ) from exc
        self.episode.succeeded()

    async def run(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` to its end whatever befalls the caller.

        A socket that closes while its own action commits cancels the task awaiting
        here. Were the change cancelled with it, memory would roll back while the
        store's queued write still commits: memory and disk would disagree and every
        later move of the table fail. So the change is a task of its own, shielded;
        the caller's cancellation ends only the caller's wait. (A caller that is
        never cancelled meanwhile runs the change in its own task instead:
        `change(in_caller=True)`.)
        """
        task = self.start(work)
        await asyncio.shield(task)

    def start(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """`work` as a task that `close` waits for."""
        task = asyncio.get_running_loop().create_task(work)
        self._sections.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._sections.discard(task)
        # Whoever awaited it has seen the outcome; a caller gone before the end has
        # not, and a refusal then concerns nobody, but a failure is worth a line.
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self._failed(exc)

    @staticmethod
    def _failed(exc: BaseException) -> None:
        if not isinstance(exc, Refusal):
            log.error("a table change failed: %r", exc)

    async def close(self) -> None:
        """The changes under way end as they would have (their callers may be gone)."""
        while self._sections or self._in_callers:
            if self._sections:
                await asyncio.gather(*self._sections, return_exceptions=True)
            else:  # in their callers' tasks, which this cannot await
                await self._no_callers.wait()
