"""The shared store's appends: group commit, one fenced statement per batch
(docs/architecture.md "Group commit").

Appends that arrive while a commit is under way go in together with the next one,
and no batch is committed before its oldest append has waited `gather_seconds` (nor,
with `gather_appends`, while it holds fewer than that many appends and its oldest has
waited less than `gather_max_seconds`). Each
batch is one statement, fenced by each table's epoch, `synchronous_commit = on`: an
append returns only once its entries are on disk, or raises.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.tables.postgres_pool import Held, Sessions
from hollywood_gin.tables.rows import entry_rows, gap_error
from hollywood_gin.tables.store import NotOwner

# One statement for a batch of appends. The update of each table's row (`last_active`)
# is the fence: it matches only while the epoch is still the writer's, and it locks
# the row, so a claim that bumps the epoch waits for this statement's commit, or this
# statement for the claim's and then sees the new epoch (READ COMMITTED re-checks an
# updated row). Its RETURNING reads the log's end; the entries go in only where the
# batch's first seq follows it. Only the tables written to come back: one missing is
# not the writer's (or gone). The gap check is a courtesy; the primary key is what
# makes two writers of one seq impossible. A batch holds at most one append per table
# (a table's next write waits for the last one's answer). The arrays go as text in
# PostgreSQL's array syntax (`text_array`, `number_array`): asyncpg's encoder of a
# list checks the list and each element against abstract base classes, 17 % of a
# commit's instructions in the worker (docs/performance.md). `t.id = ANY(…)` only repeats the
# join's condition, so that a plan made without the values (the generic plan) finds
# the rows by the primary key: expecting 100 rows of `unnest`, it read the whole of
# `tables` (a hash join), and with a few thousand tables stored PostgreSQL took a
# new plan on every call instead (190-260 µs of planning a call at 2,000 tables,
# against 5 µs now).
FENCED_APPEND = """
WITH owned AS (
    UPDATE tables t SET last_active = greatest(t.last_active, b.now)
    FROM unnest($1::text::text[], $2::text::bigint[], $3::text::integer[],
        $4::text::double precision[])
        WITH ORDINALITY AS b(table_id, epoch, first_seq, now, i)
    WHERE t.id = ANY($1::text::text[]) AND t.id = b.table_id AND t.owner_epoch = b.epoch
    RETURNING b.i, b.table_id, b.first_seq,
        (SELECT coalesce(max(e.seq), -1) FROM events e WHERE e.table_id = t.id) AS last
),
written AS (
    INSERT INTO events (table_id, seq, entry)
    SELECT owned.table_id, r.seq, r.entry
    FROM unnest($5::text::bigint[], $6::text::integer[], $7::text::text[]) AS r(i, seq, entry)
    JOIN owned ON owned.i = r.i
    WHERE owned.last + 1 = owned.first_seq
)
SELECT i, true AS owned, last, last + 1 = first_seq AS written FROM owned
"""


def text_array(values: Iterable[str]) -> str:
    """PostgreSQL's literal of a text array, each element quoted: `{"a","b\\"c"}`.
    Inside double quotes only a double quote and a backslash need a backslash (the
    server reads any other character as it is, commas, braces and spaces too)."""
    return (
        "{"
        + ",".join(['"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values])
        + "}"
    )


def number_array(values: Iterable[float]) -> str:
    """PostgreSQL's literal of a number array (a float's `str` reads back exactly)."""
    return "{" + ",".join(map(str, values)) + "}"


def _done(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _Answer(asyncio.Future[None]):
    """An append's answer, which tells its writer when it is given up (cancelled)."""

    def __init__(self, appends: FencedAppends, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop=loop)
        self._appends = appends

    def cancel(self, msg: object = None) -> bool:
        if not super().cancel(msg):
            return False
        self._appends._given_up(self)
        return True


@dataclass(slots=True)
class _Append:
    table_id: str
    epoch: int
    first_seq: int
    rows: list[tuple[str, int, str]]
    now: float
    future: asyncio.Future[None]
    arrived: float  # the loop's clock


class FencedAppends:
    """Every table's appends of this worker, written in batches."""

    def __init__(
        self,
        sessions: Sessions,
        gather_seconds: float = 0.0,
        gather_appends: int = 1,
        gather_max_seconds: float = 0.0,
    ) -> None:
        self.sessions = sessions
        # One connection kept for the batches, one at a time (no pool round per commit).
        self.connection = Held(sessions)
        # How long the oldest append of a batch waits for others to join it before the
        # batch is committed (0: none; a batch that gathered during the commit before
        # it has waited already). At low load a commit carries one or two appends and
        # its cost (the WAL flush, the round trip) is paid per move; waiting before
        # every commit, not only when the writer was idle, makes the batches grow
        # (docs/performance.md), for at most this much more latency per move.
        self.gather_seconds = gather_seconds
        # Then, a batch of fewer than `gather_appends` waits on for more, until its
        # oldest append has waited `gather_max_seconds`: a worker's commit rate no
        # longer follows the cycle of the delay and the flush whatever its share of the
        # load, so N workers make about the commits of one for the same moves (issue
        # 30). 1: no such wait.
        self.gather_appends = gather_appends
        self.gather_max_seconds = gather_max_seconds
        self._filled: asyncio.Future[None] | None = None
        self._pending: list[_Append] = []
        self._flushing: asyncio.Task[None] | None = None
        # The statement under way and its batch: an append given up while in it cuts it off.
        self._statement: asyncio.Task[list[Exception | None]] | None = None
        self._batch: list[_Append] = []
        self.commits = 0
        self.writes = 0

    @property
    def busy(self) -> bool:
        """A commit is gathering or under way."""
        return self._flushing is not None and not self._flushing.done()

    async def close(self) -> None:
        while self.busy:
            await asyncio.sleep(0.005)
        await self.connection.close()

    def append(
        self,
        table_id: str,
        first_seq: int,
        entries: Sequence[JsonObject],
        now: float,
        epoch: int,
    ) -> asyncio.Future[None]:
        """Its answer: done once durable; `NotOwner` when the table's epoch moved on.
        A future, not a coroutine: awaited within a bound (`bounded.within`), it needs
        no task of its own. Cancelled (given up: the ownership's bound, or its caller
        cancelled), it cuts off the statement holding it (`_given_up`)."""
        loop = asyncio.get_running_loop()
        future = _Answer(self, loop)
        rows = entry_rows(table_id, first_seq, entries)
        self._pending.append(_Append(table_id, epoch, first_seq, rows, now, future, loop.time()))
        filled = self._filled
        if filled is not None and len(self._pending) >= self.gather_appends and not filled.done():
            filled.set_result(None)
        if not self.busy:
            self._flushing = loop.create_task(self._flush())
        return future

    def _given_up(self, future: asyncio.Future[None]) -> None:
        """A statement stuck on a connection that no longer answers must not hold every
        later append of this worker: its batch fails (each table doubtful, settled
        before its next write) and its connection is closed; the appends behind it go on
        a new one."""
        statement = self._statement
        held = any(a.future is future for a in self._batch)
        if held and statement is not None and not statement.done():
            statement.cancel()

    async def _flush(self) -> None:
        this = asyncio.current_task()
        assert this is not None
        loop = asyncio.get_running_loop()
        while self._pending:
            oldest = self._pending[0].arrived
            wait = oldest + self.gather_seconds - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if len(self._pending) < self.gather_appends:
                await self._fill(oldest + self.gather_max_seconds)
            batch, self._pending = self._pending, []
            self._batch = batch
            statement = loop.create_task(self._write_batch(batch))
            self._statement = statement
            outcomes: list[Exception | None]
            try:
                outcomes = await statement
            except asyncio.CancelledError:
                if this.cancelling():  # this task is cancelled (the loop closing): so is the write
                    raise
                outcomes = [TimeoutError("the store write was given up")] * len(batch)
            except Exception as exc:  # the statement failed whole: nothing of it is stored
                outcomes = [exc] * len(batch)
            finally:
                self._batch, self._statement = [], None
            for a, outcome in zip(batch, outcomes, strict=True):
                if a.future.done():
                    continue
                if outcome is None:
                    a.future.set_result(None)
                else:
                    a.future.set_exception(outcome)

    async def _fill(self, deadline: float) -> None:
        """Until the batch holds `gather_appends` (`append` says so) or `deadline`."""
        loop = asyncio.get_running_loop()
        if loop.time() >= deadline:
            return
        filled = self._filled = loop.create_future()
        timer = loop.call_at(deadline, _done, filled)
        try:
            await filled
        finally:
            timer.cancel()
            self._filled = None

    async def _write_batch(self, batch: list[_Append]) -> list[Exception | None]:
        rows_i: list[int] = []
        rows_seq: list[int] = []
        rows_entry: list[str] = []
        for i, a in enumerate(batch, start=1):
            for _, seq, entry in a.rows:
                rows_i.append(i)
                rows_seq.append(seq)
                rows_entry.append(entry)
        result = await self.connection.fetch(
            FENCED_APPEND,
            text_array([a.table_id for a in batch]),
            number_array([a.epoch for a in batch]),
            number_array([a.first_seq for a in batch]),
            number_array([a.now for a in batch]),
            number_array(rows_i),
            number_array(rows_seq),
            text_array(rows_entry),
        )
        self.commits += 1
        self.writes += len(batch)
        by_index = {int(r["i"]): r for r in result}
        outcomes: list[Exception | None] = []
        for i, a in enumerate(batch, start=1):
            r = by_index.get(i)
            if r is not None and r["written"]:
                outcomes.append(None)
            elif r is None or not r["owned"]:  # no such table, or another epoch
                outcomes.append(NotOwner(f"table {a.table_id[:8]} has another owner now"))
            else:
                outcomes.append(gap_error(a.table_id, r["last"], a.first_seq))
        return outcomes
