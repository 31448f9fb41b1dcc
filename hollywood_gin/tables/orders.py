"""Card orders kept in memory, written later (issue 41, item 4).

The order in which a seat keeps its cards (`arrange`) is only how they are shown
until the seat's next action, yet every `arrange` was a store write: 40 sockets from
one address at 8 a second made 310 writes a second, and every other table's moves
waited behind them (p99 from 14 to 82 ms). Now an `arrange` changes the table in
memory and shows the seat its cards (no store write, no version); the seats, with
their latest orders, are written with the table's next stored change (the seat's
next action: `Writer.change`), or `ORDER_SECONDS` after the first order not yet
written, whichever comes first, and when the server shuts down (`close`). A flood
then costs one pending order per seat in memory and at most one write per table
every `ORDER_SECONDS`. What a crash can lose: the orders of the last few seconds,
which are cosmetic (a restart shows the cards in an order the seat had before).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from hollywood_gin.tables.table import Moved, StoreUnavailable, Table, short
from hollywood_gin.tables.writer import Writer

log = logging.getLogger("hollywood_gin.tables")

# At most one write of a table's card orders this often (seconds).
ORDER_SECONDS = 3.0


class Orders:
    """The card orders of one registry's tables not yet written, and their timers."""

    def __init__(
        self, writer: Writer, holds: Callable[[Table], bool], delay: float = ORDER_SECONDS
    ) -> None:
        self.writer = writer
        self.holds = holds  # is the table still held here (not expired, not moved)?
        self.delay = delay
        self._timers: dict[str, tuple[asyncio.TimerHandle, Table]] = {}

    def later(self, table: Table) -> None:
        """`table` has an order not written: write it within `delay` seconds (one
        timer per table: orders arranged meanwhile go with the same write)."""
        if table.id in self._timers:
            return
        handle = asyncio.get_running_loop().call_later(self.delay, self._due, table)
        self._timers[table.id] = (handle, table)

    def _due(self, table: Table) -> None:
        self._timers.pop(table.id, None)
        self.writer.start(self.flush(table))

    async def flush(self, table: Table) -> None:
        """Write `table`'s orders if some are not written (the next action may have)."""
        if not self.writer.unsaved(table) or not self.holds(table):
            return
        try:
            await self.writer.save_orders(table)
        except Moved:
            log.info("table %s moved before its card orders were written", short(table.id))
        except StoreUnavailable:
            self.later(table)  # the store is away: try again later (logged once by the writer)

    def pending(self) -> int:
        return len(self._timers)

    async def close(self) -> None:
        """Shutting down: every order not written yet is written now."""
        timers = list(self._timers.values())
        self._timers.clear()
        for handle, _table in timers:
            handle.cancel()
        for _handle, table in timers:
            with contextlib.suppress(Exception):
                await self.flush(table)
