"""Idle tables leave memory (issue 46): a table nobody is at is only its stored rows.

Correspondence tables sit for days with nobody connected. A table held by a worker
that writes its store alone (`ownership.Sole`) is let go when nothing of it lives
only in memory or is about to happen: no connection, no change under way (its
lock), no computer at work, no card order waiting to be written, no turn-clock
deadline (that one starts afresh on a load), nothing of the clock due within
`seconds`, and no move or look for `seconds`. Its next look by the clock (a
correspondence deadline, a "deadline soon" push) stays with the presence, which
loads it again when due; a connection or a page loads it by the same claim a
shared store's worker makes (`Sole.find`). At start-up only what is live is loaded:
a table active within `seconds`, or with a look due within them (`keep`); the
others' next looks are noted, nothing more.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from hollywood_gin.tables.held import Held
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.presence import Presence
from hollywood_gin.tables.store import TableRecord
from hollywood_gin.tables.table import Table
from hollywood_gin.tables.writer import Writer

log = logging.getLogger("hollywood_gin.tables")


def first_look(record: TableRecord, seconds_per_day: float) -> float | None:
    """When a stored table played over days first needs the clock: a quarter of a seat's
    time before its deadline (the "deadline soon" push), else None."""
    deadlines = [s.deadline for s in record.seats if s.deadline is not None]
    if not deadlines:
        return None
    days = record.options.get("move_days")
    early = float(days) * seconds_per_day / 4 if isinstance(days, int | float) else 0.0
    return min(deadlines) - early


class Idle:
    """Lets idle tables go (`sweep`) and chooses what a start-up loads (`keep`)."""

    def __init__(
        self,
        *,
        held: Held,
        hub: Hub,
        writer: Writer,
        presence: Presence,
        recent: set[str],
        clock: Callable[[], float],
        seconds: float,
    ) -> None:
        self.held = held
        self.hub = hub
        self.writer = writer
        self.presence = presence
        self.recent = recent  # asked for since the last sweep (`Sole.find`)
        self.clock = clock
        self.seconds = seconds
        self.let_go = 0  # tables let go so far (tests, metrics)
        self._task: asyncio.Task[None] | None = None

    def idle(self, table: Table, now: float) -> bool:
        """Whether `table` may leave memory now: nothing of it is only here."""
        if self.hub.count(table.id) or table.lock.locked() or table.id in self.recent:
            return False
        if table.last_active > now - self.seconds:
            return False
        if self.held.kept(table.id) or self.writer.unsaved(table):
            return False
        if not self.presence.idle(table):
            return False
        look = self.presence.next_look(table.id)
        return look is None or look > now + self.seconds

    def sweep(self) -> int:
        """Let go of every idle table; how many."""
        now = self.clock()
        idle = [t for t in self.held.values() if self.idle(t, now)]
        self.recent.clear()
        gone = sum(1 for t in idle if self.presence.sleep(t, self.held.drop))
        self.let_go += gone
        if gone:
            log.info("%d idle tables left memory; %d held", gone, len(self.held))
        return gone

    def keep(self, record: TableRecord, seconds_per_day: float) -> bool:
        """At start-up: load `record`'s table if live (active within `seconds`, or its
        clock due within them); else note its first look, if any."""
        now = self.clock()
        if record.last_active > now - self.seconds:
            return True
        look = first_look(record, seconds_per_day)
        if look is None:
            return False
        if look <= now + self.seconds:
            return True
        self.presence.asleep(record.table_id, look)
        return False

    def start(self, interval: float) -> None:
        async def run() -> None:
            while True:
                await asyncio.sleep(interval)
                try:
                    self.sweep()
                except Exception:  # a failed sweep must not end the sweeping
                    log.exception("idle sweep failed")

        self._task = asyncio.get_running_loop().create_task(run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
