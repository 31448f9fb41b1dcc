"""Finished hands: their records (`hand_record`), and the coach's reviews of them
(docs/protocol-guide.md "Hand review"): computed once per hand and seat, in the computer's
worker processes, kept in the store.

`Reviews.review(table_id, record, seat)` answers the review when it is known (in
memory, else in the store) and otherwise starts computing it and answers None
("computing": the client asks again a second later). The work never runs on the
event loop: the hand's replay is one job of the worker pool (`Thinkers.run`) and
each batch of a decision's playouts another (`coach.step`); one review computes at
a time (one fewer than the pool's workers when it has several), one job at a time,
so a computer opponent's move waits behind at most one batch of playouts
(`CoachBudget.batch` deals), never behind whole reviews, and the reviews asked for
meanwhile wait their turn in order. At most `max_running` reviews are under way
(computing or waiting); a request beyond that is answered "computing" and starts
its review when asked again after one has ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from hollywood_gin.bots.coach import (
    COACH_VERSION,
    CoachBudget,
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
from hollywood_gin.tables.thinking import Thinkers

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


def _replay(record: JsonObject, seat: int) -> Replay:
    return replay(record, seat)


def _step(point: Point, tally: Tally, budget: CoachBudget) -> Tally:
    return step(point, tally, budget)


class Reviews:
    """One registry's reviews: a small memory of recent ones, the store for the rest."""

    def __init__(
        self,
        store: TableStore,
        thinkers: Thinkers | None,
        *,
        budget: CoachBudget | None = None,
        max_running: int = 16,
        remember: int = 256,
    ) -> None:
        self.store = store
        self.thinkers = thinkers
        self.budget = budget if budget is not None else CoachBudget()
        self.max_running = max_running
        self.remember = remember
        self._known: OrderedDict[Key, JsonObject] = OrderedDict()
        self._running: dict[Key, asyncio.Task[None]] = {}
        self._failed: set[Key] = set()
        # Reviews computing at once, each with one job in the pool at a time: one short
        # of the pool's workers, so the computer's moves always find one (one when there
        # is only one). The others wait their turn in the order they were asked for, so
        # the first asked is the first done.
        workers = thinkers.processes if thinkers is not None else 1
        self._slots = asyncio.Semaphore(max(1, workers - 1))
        self.computed = 0  # reviews computed by this process (tests, benchmarks)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        if self.thinkers is not None:
            return await self.thinkers.run(fn, *args)
        return await asyncio.to_thread(fn, *args)

    def _keep(self, key: Key, review: JsonObject) -> None:
        self._known[key] = review
        self._known.move_to_end(key)
        while len(self._known) > self.remember:
            self._known.popitem(last=False)

    async def review(self, table_id: str, record: JsonObject, seat: int) -> JsonObject | None:
        """The review of finished hand `record` for `seat`; None while it computes.

        :raises ReviewFailed: its computation failed (the next request tries again).
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
        if key in self._running:
            return None
        stored = await self.store.review(table_id, number, seat)
        if stored is not None and _current(stored, self.budget):
            self._keep(key, stored)
            return stored
        if len(self._running) >= self.max_running:
            return None
        task = asyncio.get_running_loop().create_task(self._compute(key, record))
        self._running[key] = task
        task.add_done_callback(lambda _t: self._running.pop(key, None))
        return None

    async def _compute(self, key: Key, record: JsonObject) -> None:
        table_id, _number, seat = key
        try:
            async with self._slots:
                played = await self._run(_replay, record, seat)
                decisions = []
                for point in played.points:
                    tally = Tally(seed=seed_of(record, seat, point.index))
                    while not tally.finished:
                        tally = await self._run(_step, point, tally, self.budget)
                    decisions.append(entry(point, tally))
            review = assemble(record, seat, played, decisions, self.budget)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: reviewing hand %d failed", short(table_id), key[1])
            self._failed.add(key)
            return
        self._keep(key, review)
        self.computed += 1
        try:
            await self.store.save_review(table_id, key[1], seat, review)
        except Exception as exc:  # kept in memory; a restart computes it again
            log.warning("table %s: a review was not stored (%r)", short(table_id), exc)

    async def close(self) -> None:
        """Stop the reviews under way (they are computed again when asked for)."""
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def wait(self) -> None:
        """Until no review is computing (tests, benchmarks)."""
        while self._running:
            await asyncio.gather(*self._running.values(), return_exceptions=True)


def _current(review: JsonObject, budget: CoachBudget) -> bool:
    """Was a stored review made by this coach, with this budget?"""
    coach = review.get("coach")
    return (
        isinstance(coach, dict)
        and coach.get("version") == COACH_VERSION
        and coach.get("samples") == budget.samples
    )
