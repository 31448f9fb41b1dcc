"""The clocks of tables no worker holds, kept in a shared store
(docs/architecture.md "Deadlines nobody holds").

A worker of a shared store lets idle tables go, and may stop or die; the deadline of
a table played over days must still pass then, and its "deadline soon" push still go
out, with nobody asking for the table. So the worker holding such a table keeps the
table's next look by the clock (what its presence would wake for) in the table's row,
`next_look`: written when it changes (a move, a push told, a deadline passed), each
write fenced by the holder's epoch. Letting the table go, or a clean shut-down, also
says nobody holds it (`owner` NULL).

Every worker then sweeps (`Shared.sweep_once`, every `deadline_sweep_seconds`): one
statement claims a batch of the tables whose look is due and that nobody holds, or
whose holder let the look pass unhandled for a while (it stopped: killed, its machine
gone), passing over the rows another claim is taking (`claim_due`, `SKIP LOCKED`):
workers sweeping at once take disjoint batches, and a full batch is followed by the
next at once (a few rounds at most). Claimed, the table's presence does what is due as
for any table held here, and its next look moves on (or becomes none), so a passed
look is handled once. There is no timer per table: a statement or a few per interval
per worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from hollywood_gin.tables.bounded import within
from hollywood_gin.tables.store import FailureEpisode, LookStore
from hollywood_gin.tables.table import Table, short

log = logging.getLogger("hollywood_gin.tables")

# A write that failed (the database away) is tried again after this long.
RETRY_SECONDS = 1.0
# A failure that comes again every round (a sweep, a look written) while the database
# is away is logged at warning the first time, then at most once this often.
FAILURES_EVERY = 60.0
_UNKNOWN = object()


class StoredLooks:
    """The next looks of the tables played over days held here, written to the store
    in the background, one table at a time, latest value only."""

    def __init__(
        self,
        store: LookStore,
        epoch_of: Callable[[Table], int | None],
        *,
        store_seconds: float = 15.0,
    ) -> None:
        self.store = store
        self.epoch_of = epoch_of
        self.store_seconds = store_seconds
        # What is to be written: table -> (epoch, look, released).
        self.pending: dict[str, tuple[int, float | None, bool]] = {}
        # What the store holds of each table held here (written by this worker).
        self.written: dict[str, float | None] = {}
        self.writes = 0
        self.failures = FailureEpisode(
            log, "writing a table's next look", level=logging.WARNING, every=FAILURES_EVERY
        )
        self._task: asyncio.Task[None] | None = None

    def note(self, table: Table, look: float | None) -> None:
        """The presence worked out `table`'s next look (`Presence.looked`)."""
        latest = self.pending.get(table.id)
        known = latest[1] if latest is not None else self.written.get(table.id, _UNKNOWN)
        if known == look:
            return
        epoch = self.epoch_of(table)
        if epoch is None:  # not held (any more): nothing of it is ours to write
            return
        self.pending[table.id] = (epoch, look, False)
        self._kick()

    def claimed_again(self, table: Table, look: float | None) -> None:
        """The table held here was claimed again (`Shared.settle`: a new epoch): its look
        is written at that epoch, for one noted at the epoch before is refused (and the
        row would keep a look long past, which another worker's sweep takes for its
        holder gone)."""
        self.written.pop(table.id, None)
        self.pending.pop(table.id, None)
        self.note(table, look)

    def release(self, table_id: str, epoch: int, look: float | None) -> None:
        """The table left memory here at `epoch`: its look, and that nobody holds it."""
        self.written.pop(table_id, None)
        self.pending[table_id] = (epoch, look, True)
        self._kick()

    def forget(self, table: Table) -> None:
        """The table is no longer held here."""
        self.written.pop(table.id, None)

    def _kick(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        while self.pending:
            table_id = next(iter(self.pending))
            epoch, look, release = self.pending.pop(table_id)
            try:
                kept = await within(
                    self.store.save_look(table_id, epoch, look, release=release),
                    self.store_seconds,
                )
            except Exception as exc:  # the database is away: again, unless a newer one came
                log.debug("table %s: its next look not written (%r)", short(table_id), exc)
                self.failures.failed(exc)
                self.pending.setdefault(table_id, (epoch, look, release))
                await asyncio.sleep(RETRY_SECONDS)
                continue
            self.writes += 1
            if kept and not release and table_id not in self.pending:
                self.written[table_id] = look

    async def close(self, seconds: float) -> None:
        """Write what is pending, for at most `seconds`."""
        task = self._task
        if task is None or task.done():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(task), seconds)
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
