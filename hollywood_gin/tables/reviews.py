"""Finished hands: their records (`hand_record`), and the coach's reviews of them
(docs/protocol-guide.md "Hand review"): computed once per hand and seat, in a pool of worker
processes of their own, kept in the store.

`Reviews.review(table_id, record, seat, address)` answers the review when it is
known (in memory, else in the store), and otherwise its `Progress` (decisions
priced so far, of all: the `202`), admitting it when it is new. Nothing heavy runs
on the event loop: the hand's replay is one job of the pool and each decision's
playouts another (`coach.step` until its label is clear).

Fair to everyone (one client must not starve the coach for the whole server):

- a new review is admitted at once, or refused with `Busy` (`429 rate_limited`)
  when its table or its address (an IPv4 address or IPv6 /64, of whoever asked
  first) already has `per_table` / `per_address` reviews under way, or the server
  `max_running`; it never waits outside in a race for a free place;
- a free worker takes the next decision of the review whose address, then whose
  table, was served least recently (round robin), the first asked first among
  equals: one table's review never waits behind another's while a worker is free,
  and a lone review spreads its decisions over every worker;
- a review nobody has asked about for `abandon_after` seconds is dropped (the
  page asks every second while it waits; a page closed takes its work with it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hollywood_gin.bots.coach import (
    DECISION_KINDS,
    CoachPolicy,
    Point,
    Replay,
    Tally,
    assemble,
    entry,
    replay,
    seed_of,
    step,
)
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.tables.errors import UnknownHand
from hollywood_gin.tables.store import Damaged, TableStore
from hollywood_gin.tables.table import Table, short
from hollywood_gin.tables.thinking import worker_pool

log = logging.getLogger("hollywood_gin.tables")

T = TypeVar("T")

Key = tuple[str, int, int]


async def hand_record(table: Table, store: TableStore, number: int) -> JsonObject:
    """A finished hand's record: from the match while its hand is in the log, else
    from the store, which keeps the records of the hands compacted away."""
    record = table.match.hand_record(number) if number >= 1 else None
    dealt = 0 if table.match.hand is None else table.match.hand.number
    if record is None and 1 <= number < dealt:
        try:
            record = await store.hand(table.id, number)
        except Damaged as exc:
            # Reported; the record stays in the store for a person to look at (the
            # next start-up sets its table aside, as `check` says).
            log.error("table %s: %s; answered as unknown", short(table.id), exc)
            raise UnknownHand("that hand's record cannot be read") from None
    if record is None:
        raise UnknownHand("that hand is not finished (or does not exist)")
    return dict(record)


class ReviewFailed(RuntimeError):
    """The review of this hand could not be computed (logged); asking again retries."""


class Busy(RuntimeError):
    """Too many reviews under way for this table, this address or the server."""


@dataclass(frozen=True, slots=True)
class Progress:
    """A review under way: decisions priced so far, of all (the `202`'s body)."""

    done: int
    of: int


def _replay(record: JsonObject, seat: int) -> Replay:
    return replay(record, seat)


def _judge(point: Point, seed: int, budget: CoachPolicy) -> JsonObject:
    """One decision's entry of the review: its batches of playouts until it is clear."""
    tally = Tally(seed=seed)
    while not tally.finished:
        step(point, tally, budget)
    return entry(point, tally)


def decision_count(record: JsonObject, seat: int) -> int:
    """The seat's decisions in a record, counted without replaying it (the `of` of the
    first `202`; the replay corrects it should the record end early)."""
    count = 0
    actions = record.get("actions")
    for item in actions if isinstance(actions, list) else ():
        if not isinstance(item, dict):
            continue
        action = item.get("action")
        if (
            item.get("seat") == seat
            and isinstance(action, dict)
            and action.get("kind") in DECISION_KINDS
        ):
            count += 1
    return count


@dataclass(slots=True)
class _Work:
    """One review under way."""

    key: Key
    address: str
    order: int  # when it was first asked for (the first asked is the first served)
    record: JsonObject
    of: int
    asked: float  # the last time anyone asked for it
    played: Replay | None = None
    replaying: bool = False
    next: int = 0  # the next decision to hand to a worker
    entries: dict[int, JsonObject] = field(default_factory=dict)
    dropped: bool = False

    def startable(self) -> bool:
        if self.played is None:
            return not self.replaying
        return self.next < len(self.played.points)


class Reviews:
    """One registry's reviews: a small memory of recent ones, the store for the rest,
    and the pool of worker processes that computes the others."""

    def __init__(
        self,
        store: TableStore,
        *,
        budget: CoachPolicy | None = None,
        processes: int = 2,
        per_table: int = 2,
        per_address: int = 2,
        max_running: int = 64,
        abandon_after: float = 30.0,
        remember: int = 256,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.budget = budget if budget is not None else CoachPolicy()
        self.processes = processes
        self.per_table = per_table
        self.per_address = per_address
        self.max_running = max_running
        self.abandon_after = abandon_after
        self.remember = remember
        self.clock = clock
        self._known: OrderedDict[Key, JsonObject] = OrderedDict()
        self._work: dict[Key, _Work] = {}
        self._failed: set[Key] = set()
        self._pool: Executor | None = None
        self._busy = 0  # jobs in the pool
        self._jobs: set[asyncio.Task[None]] = set()
        self._order = 0
        # Round robin: when each address and each table was last given a worker.
        self._tick = 0
        self._served_address: dict[str, int] = {}
        self._served_table: dict[str, int] = {}
        self.computed = 0  # reviews computed by this process (tests, benchmarks)
        self.dropped = 0  # reviews dropped because nobody asked any more
        self.pids: set[int] = set()

    # -- answers -------------------------------------------------------------------

    def _keep(self, key: Key, review: JsonObject) -> None:
        self._known[key] = review
        self._known.move_to_end(key)
        while len(self._known) > self.remember:
            self._known.popitem(last=False)

    async def review(
        self, table_id: str, record: JsonObject, seat: int, address: str = ""
    ) -> JsonObject | Progress:
        """The review of finished hand `record` for `seat`, or its progress while it is
        computed; `address` (the asker's, as per-address limits count it) is charged
        with it when it is new.

        :raises ReviewFailed: its computation failed (the next request tries again).
        :raises Busy: a new review past the caps of its table, its address or the server.
        """
        number = record["number"]
        if not isinstance(number, int):
            raise TypeError("a hand record's number is an integer")
        key = (table_id, number, seat)
        known = self._known.get(key)
        if known is not None:
            self._known.move_to_end(key)
            return known
        if key in self._failed:
            self._failed.discard(key)
            raise ReviewFailed("the review of this hand could not be computed")
        now = self.clock()
        work = self._work.get(key)
        if work is not None:
            work.asked = now
            return self._progress(work)
        stored = await self.store.review(table_id, number, seat)
        if stored is not None and _current(stored, self.budget):
            self._keep(key, stored)
            return stored
        work = self._work.get(key)  # asked for meanwhile, by another request
        if work is not None:
            work.asked = now
            return self._progress(work)
        self._forget_abandoned(now)
        if len(self._work) >= self.max_running:
            raise Busy("the coach has as many reviews under way as it can; later")
        if sum(1 for k in self._work if k[0] == table_id) >= self.per_table:
            raise Busy("this table already has reviews under way; ask again when one is done")
        if sum(1 for w in self._work.values() if w.address == address) >= self.per_address:
            raise Busy("this address already has reviews under way; ask again when one is done")
        self._order += 1
        work = _Work(key, address, self._order, record, decision_count(record, seat), now)
        self._work[key] = work
        self._pump()
        return self._progress(work)

    @staticmethod
    def _progress(work: _Work) -> Progress:
        return Progress(len(work.entries), work.of)

    def _forget_abandoned(self, now: float) -> None:
        for key, work in list(self._work.items()):
            if now - work.asked > self.abandon_after:
                self._drop(key, work)

    def _drop(self, key: Key, work: _Work) -> None:
        work.dropped = True  # its jobs in the pool end; their answers are not used
        self._work.pop(key, None)
        self.dropped += 1
        log.info("table %s: review of hand %d dropped: nobody asks", short(key[0]), key[1])

    # -- the pool --------------------------------------------------------------------

    def _executor(self) -> Executor:
        if self._pool is None:
            self._pool = worker_pool(self.processes)
        return self._pool

    def _next(self) -> _Work | None:
        """The review served next: its address, then its table, served least recently;
        the first asked for among equals."""
        now = self.clock()
        best: _Work | None = None
        best_rank: tuple[int, int, int] | None = None
        for key, work in list(self._work.items()):
            if now - work.asked > self.abandon_after:
                self._drop(key, work)
                continue
            if not work.startable():
                continue
            rank = (
                self._served_address.get(work.address, -1),
                self._served_table.get(key[0], -1),
                work.order,
            )
            if best_rank is None or rank < best_rank:
                best, best_rank = work, rank
        return best

    def _pump(self) -> None:
        """Give every free worker a job."""
        while self._busy < self.processes:
            work = self._next()
            if work is None:
                return
            self._tick += 1
            self._served_address[work.address] = self._tick
            self._served_table[work.key[0]] = self._tick
            if len(self._served_address) + len(self._served_table) > 8 * self.max_running:
                self._forget_served()
            if work.played is None:
                work.replaying = True
                self._start(work, -1, _replay, work.record, work.key[2])
            else:
                position = work.next
                work.next += 1
                point = work.played.points[position]
                seed = seed_of(work.record, work.key[2], point.index)
                self._start(work, position, _judge, point, seed, self.budget)

    def _forget_served(self) -> None:
        """Keep the round robin's memory to the reviews under way (a newcomer is served
        first once, as one that was never served)."""
        addresses = {w.address for w in self._work.values()}
        tables = {k[0] for k in self._work}
        self._served_address = {a: t for a, t in self._served_address.items() if a in addresses}
        self._served_table = {a: t for a, t in self._served_table.items() if a in tables}

    def _start(self, work: _Work, position: int, fn: Callable[..., Any], *args: Any) -> None:
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor(), _in_worker, fn, *args)
        self._busy += 1
        task = loop.create_task(self._finish(work, position, future))
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    async def _finish(self, work: _Work, position: int, future: asyncio.Future[Any]) -> None:
        try:
            result, pid = await future
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._busy -= 1
            if isinstance(exc, BrokenProcessPool):
                log.error("review worker process died; starting a new one")
                self._discard_pool()
            if not work.dropped:
                log.exception("table %s: reviewing hand %d failed", short(work.key[0]), work.key[1])
                self._failed.add(work.key)
                self._work.pop(work.key, None)
            self._pump()
            return
        self._busy -= 1
        self.pids.add(pid)
        if not work.dropped:
            if position < 0:
                work.played = result
                work.of = len(result.points)
            else:
                work.entries[position] = result
            if work.played is not None and len(work.entries) == len(work.played.points):
                await self._complete(work)
        self._pump()

    async def _complete(self, work: _Work) -> None:
        key = work.key
        table_id, number, seat = key
        played = work.played
        assert played is not None
        decisions = [work.entries[k] for k in range(len(played.points))]
        review = assemble(work.record, seat, played, decisions, self.budget)
        self._work.pop(key, None)
        self._keep(key, review)
        self.computed += 1
        try:
            await self.store.save_review(table_id, number, seat, review)
        except Exception as exc:  # kept in memory; a restart computes it again
            log.warning("table %s: a review was not stored (%r)", short(table_id), exc)

    def _discard_pool(self, wait: bool = False) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=True)

    async def close(self) -> None:
        """Stop the reviews under way (they are computed again when asked for)."""
        for work in self._work.values():
            work.dropped = True
        self._work.clear()
        tasks = list(self._jobs)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await asyncio.to_thread(self._discard_pool, True)

    async def wait(self) -> None:
        """Until no review is under way (tests, benchmarks)."""
        while self._work or self._jobs:
            await asyncio.sleep(0.02)

    def under_way(self) -> int:
        return len(self._work)


def _in_worker(fn: Callable[..., T], *args: Any) -> tuple[T, int]:
    """In a worker: `fn(*args)`, and this process's id."""
    return fn(*args), os.getpid()


def _current(review: JsonObject, budget: CoachPolicy) -> bool:
    """Was a stored review made by this coach (its version), with this budget?"""
    coach = review.get("coach")
    return (
        isinstance(coach, dict)
        and coach.get("version") == budget.version
        and coach.get("samples") == budget.samples
    )
