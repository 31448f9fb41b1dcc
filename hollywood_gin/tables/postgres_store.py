"""The shared store: PostgreSQL, for several workers behind HAProxy (SCALE.md).

Chosen by `HOLLYWOOD_GIN_DATABASE_URL=postgresql://…`; needs the `postgres` extra
(`asyncpg`). Each table row carries `owner_epoch`. A worker claims a table on its
first request for it (one transaction: bump the epoch, read the row and its log);
every append is fenced by that epoch inside the one statement that writes it, and
`PRIMARY KEY (table_id, seq)` makes a forked log impossible whatever happens.
Appends that arrive while a commit is under way go in together with the next one
(group commit), one fenced statement per batch, `synchronous_commit = on`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg

from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.tables.store import (
    FIRST_EPOCH,
    Damaged,
    NotOwner,
    SeatRecord,
    TableRecord,
    _entry_rows,
    _gap,
    _hand_from,
    _hand_rows,
    _read_log,
    _record_from,
    _review_from,
    _review_row,
    _seats_json,
    _table_row,
)

log = logging.getLogger("hollywood_gin.store")

# Any constant: the one lock that lets one worker at a time run the expiry.
EXPIRY_LOCK = 0x4857_4749_4E01

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id text PRIMARY KEY,
    options text NOT NULL,
    seats text NOT NULL,
    created double precision NOT NULL,
    last_active double precision NOT NULL,
    owner text,
    owner_epoch bigint NOT NULL DEFAULT 0,
    base_seq integer NOT NULL DEFAULT 0
);
-- The test hooks' column of the first shared stores: written, never read.
ALTER TABLE tables DROP COLUMN IF EXISTS hooks;
-- No index on last_active: each append updates it, and without an index on it that
-- update is HOT (no index entry per move). Expiry scans the table once an hour.
CREATE TABLE IF NOT EXISTS events (
    table_id text NOT NULL,
    seq integer NOT NULL,
    entry text NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS hands (
    table_id text NOT NULL,
    number integer NOT NULL,
    record text NOT NULL,
    PRIMARY KEY (table_id, number)
);
CREATE TABLE IF NOT EXISTS reviews (
    table_id text NOT NULL,
    number integer NOT NULL,
    seat integer NOT NULL,
    review text NOT NULL,
    PRIMARY KEY (table_id, number, seat)
);
CREATE TABLE IF NOT EXISTS set_aside (
    id text PRIMARY KEY,
    reason text NOT NULL,
    at double precision NOT NULL
);
"""

# One statement for a batch of appends. `owned` updates each table's row only while
# its epoch is still the writer's: the update locks the row, so a claim that bumps the
# epoch waits for this statement's commit, or this statement for the claim's and then
# sees the new epoch (READ COMMITTED re-checks an updated row). One write of the row
# per append (its `last_active`), where a `FOR UPDATE` and then an update wrote it
# twice. The gap check is a courtesy; the primary key is what makes two writers of one
# seq impossible. A batch holds at most one append per table (a table's next write
# waits for the last one's answer).
FENCED_APPEND = """
WITH batch AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::integer[], $4::double precision[])
        WITH ORDINALITY AS b(table_id, epoch, first_seq, now, i)
),
owned AS (
    UPDATE tables t SET last_active = greatest(t.last_active, b.now)
    FROM batch b
    WHERE t.id = b.table_id AND t.owner_epoch = b.epoch
    RETURNING b.i, b.table_id, b.first_seq
),
ends AS (
    SELECT o.i, o.table_id, o.first_seq,
        (SELECT coalesce(max(e.seq), -1) FROM events e WHERE e.table_id = o.table_id) AS last
    FROM owned o
),
written AS (
    INSERT INTO events (table_id, seq, entry)
    SELECT ends.table_id, r.seq, r.entry
    FROM unnest($5::bigint[], $6::integer[], $7::text[]) AS r(i, seq, entry)
    JOIN ends ON ends.i = r.i
    WHERE ends.last + 1 = ends.first_seq
)
SELECT b.i, ends.i IS NOT NULL AS owned, ends.last,
    coalesce(ends.last + 1 = ends.first_seq, false) AS written
FROM batch b
LEFT JOIN ends USING (i)
"""


@dataclass(slots=True)
class _Append:
    table_id: str
    epoch: int
    first_seq: int
    rows: list[tuple[str, int, str]]
    now: float
    future: asyncio.Future[None]


async def _no_reset(con: asyncpg.Connection) -> None:
    """A pool release's reset: nothing beyond asyncpg's own rollback of an open transaction."""


async def probe(url: str, timeout: float = 5.0) -> str:
    """Connect once, read-only, and describe what is there (`hollywood-gin check`).
    Raises what the connection raises (OSError, asyncpg's errors, TimeoutError)."""
    con = await asyncpg.connect(url, timeout=timeout, command_timeout=timeout)
    try:
        version = await con.fetchval("SHOW server_version")
        has_tables = await con.fetchval("SELECT to_regclass('tables') IS NOT NULL")
        count = await con.fetchval("SELECT count(*) FROM tables") if has_tables else None
    finally:
        await con.close(timeout=timeout)
    held = f"{count} tables" if count is not None else "no tables yet (made at the first start)"
    return f"PostgreSQL {version}, {held}"


class PostgresStore:
    """Every table and its log in PostgreSQL; ownership fenced by `owner_epoch`."""

    shared = True

    def __init__(
        self, url: str, *, owner: str = "", pool_size: int = 4, gather_seconds: float = 0.0
    ) -> None:
        self.url = url
        # Who writes (the worker's name), kept in each row it claims: for people.
        self.owner = owner
        self.pool_size = pool_size
        # How long a commit waits for more appends to join it when the writer was idle
        # (appends arriving while a commit is under way join the next one anyway):
        # fewer, larger commits at low load, for that much more latency per move.
        self.gather_seconds = gather_seconds
        self._pool: asyncpg.Pool | None = None
        self._pending: list[_Append] = []
        self._flushing: asyncio.Task[None] | None = None
        self.commits = 0
        self.writes = 0

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("store is not open")
        return self._pool

    async def open(self) -> None:
        self._pool = await asyncpg.create_pool(
            self.url,
            min_size=1,
            max_size=self.pool_size,
            # Durable before seen (SCALE.md): never acknowledge a commit not on disk.
            server_settings={
                "synchronous_commit": "on",
                "application_name": "hollywood-gin",
            },
            command_timeout=10,
            timeout=5,  # to connect: a database coming back must not hold a caller longer
            # asyncpg's default sends `pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *;
            # RESET ALL` on every release: a second round trip per commit. Nothing here
            # leaves session state behind (advisory locks are per transaction, no
            # cursors, no LISTEN, no SET), so a release only ends an open transaction.
            reset=_no_reset,
        )
        async with self.pool.acquire() as con, con.transaction():
            # Workers starting together must not race on CREATE IF NOT EXISTS.
            await con.execute("SELECT pg_advisory_xact_lock($1)", EXPIRY_LOCK + 1)
            await con.execute(SCHEMA)

    async def close(self) -> None:
        while self._flushing is not None and not self._flushing.done():
            await asyncio.sleep(0.005)
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    # --- ownership ---------------------------------------------------------------
    async def claim(self, table_id: str, owner: str) -> tuple[int, TableRecord] | None:
        """Become the table's owner: bump its epoch, read it; None: no such table."""
        async with self.pool.acquire() as con, con.transaction():
            row = await con.fetchrow(
                "UPDATE tables SET owner_epoch = owner_epoch + 1, owner = $2"
                " WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.id = $1)"
                " RETURNING id, options, seats, created, last_active, base_seq,"
                " owner_epoch",
                table_id,
                owner,
            )
            if row is None:
                return None
            events = await con.fetch(
                "SELECT seq, entry FROM events WHERE table_id = $1 AND seq >= $2 ORDER BY seq",
                table_id,
                row["base_seq"],
            )
            try:
                record = _record_from(tuple(row)[:6])
                _read_log(record, events)
            except Damaged as exc:
                log.error("table %s is damaged (%s): set aside", table_id[:8], exc)
                await self._set_aside(con, table_id, str(exc))
                return None
            return int(row["owner_epoch"]), record

    async def owners(self, table_ids: Sequence[str]) -> dict[str, int]:
        """Each stored table's epoch now (a table gone is left out)."""
        rows = await self.pool.fetch(
            "SELECT id, owner_epoch FROM tables WHERE id = ANY($1::text[])", list(table_ids)
        )
        return {r["id"]: int(r["owner_epoch"]) for r in rows}

    # --- writes --------------------------------------------------------------------
    async def load_all(self) -> list[TableRecord]:
        """Never used by workers of a shared store (they claim lazily); for tools."""
        ids = [r["id"] for r in await self.pool.fetch("SELECT id FROM tables ORDER BY created")]
        records = []
        for table_id in ids:
            claimed = await self.claim(table_id, "load_all")
            if claimed is not None:
                records.append(claimed[1])
        return records

    async def create(self, record: TableRecord) -> None:
        """Store a new table, its creator's at `FIRST_EPOCH`."""
        async with self.pool.acquire() as con, con.transaction():
            await con.execute(
                "INSERT INTO tables (id, options, seats, created, last_active, base_seq,"
                " owner, owner_epoch) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                *_table_row(record),
                self.owner or None,
                FIRST_EPOCH,
            )
            if record.log:
                await con.executemany(
                    "INSERT INTO events (table_id, seq, entry) VALUES ($1, $2, $3)",
                    _entry_rows(record.table_id, record.base, record.log),
                )
        self.commits += 1

    async def save_seats(self, table_id: str, seats: Sequence[SeatRecord], epoch: int) -> None:
        status = await self.pool.execute(
            "UPDATE tables SET seats = $2 WHERE id = $1 AND owner_epoch = $3",
            table_id,
            _seats_json(seats).decode(),
            epoch,
        )
        if status != "UPDATE 1":
            raise NotOwner(f"table {table_id[:8]} has another owner now")
        self.commits += 1

    async def append(
        self,
        table_id: str,
        first_seq: int,
        entries: Sequence[JsonObject],
        now: float,
        epoch: int,
    ) -> None:
        """Durable once this returns; `NotOwner` when the table's epoch moved on."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append(
            _Append(
                table_id,
                epoch,
                first_seq,
                _entry_rows(table_id, first_seq, entries),
                now,
                future,
            )
        )
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush())
        await future

    async def _flush(self) -> None:
        if self.gather_seconds > 0:
            await asyncio.sleep(self.gather_seconds)
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                outcomes = await self._write_batch(batch)
            except Exception as exc:  # the statement failed whole: nothing of it is stored
                outcomes = [exc] * len(batch)
            for a, outcome in zip(batch, outcomes, strict=True):
                if a.future.done():
                    continue
                if outcome is None:
                    a.future.set_result(None)
                else:
                    a.future.set_exception(outcome)

    async def _write_batch(self, batch: list[_Append]) -> list[Exception | None]:
        rows_i: list[int] = []
        rows_seq: list[int] = []
        rows_entry: list[str] = []
        for i, a in enumerate(batch, start=1):
            for _, seq, entry in a.rows:
                rows_i.append(i)
                rows_seq.append(seq)
                rows_entry.append(entry)
        result = await self.pool.fetch(
            FENCED_APPEND,
            [a.table_id for a in batch],
            [a.epoch for a in batch],
            [a.first_seq for a in batch],
            [a.now for a in batch],
            rows_i,
            rows_seq,
            rows_entry,
        )
        self.commits += 1
        self.writes += len(batch)
        by_index = {int(r["i"]): r for r in result}
        outcomes: list[Exception | None] = []
        for i, a in enumerate(batch, start=1):
            r = by_index[i]
            if r["written"]:
                outcomes.append(None)
            elif not r["owned"]:  # NULL (no such table) or another epoch
                outcomes.append(NotOwner(f"table {a.table_id[:8]} has another owner now"))
            else:
                outcomes.append(_gap(a.table_id, r["last"], a.first_seq))
        return outcomes

    async def touch(self, table_id: str, now: float) -> None:
        await self.pool.execute(
            "UPDATE tables SET last_active = greatest(last_active, $2) WHERE id = $1",
            table_id,
            now,
        )

    async def expire(self, before: float, idle_seconds: float | None = None) -> list[str]:
        """Remove idle tables; one worker at a time (an advisory lock), and with
        `idle_seconds` the cut-off is taken from the database's clock, so workers
        whose clocks differ agree on it. Returns the ids removed (none when another
        worker is expiring right now)."""
        async with self.pool.acquire() as con, con.transaction():
            if not await con.fetchval("SELECT pg_try_advisory_xact_lock($1)", EXPIRY_LOCK):
                return []
            if idle_seconds is not None:
                before = float(
                    await con.fetchval("SELECT extract(epoch FROM now()) - $1", idle_seconds)
                )
            rows = await con.fetch(
                "DELETE FROM tables t WHERE last_active < $1"
                " AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.id = t.id) RETURNING id",
                before,
            )
            gone = [r["id"] for r in rows]
            if gone:
                await con.execute("DELETE FROM events WHERE table_id = ANY($1::text[])", gone)
                await con.execute("DELETE FROM hands WHERE table_id = ANY($1::text[])", gone)
                await con.execute("DELETE FROM reviews WHERE table_id = ANY($1::text[])", gone)
        return gone

    async def delete(self, table_id: str) -> None:
        async with self.pool.acquire() as con, con.transaction():
            await con.execute("DELETE FROM events WHERE table_id = $1", table_id)
            await con.execute("DELETE FROM hands WHERE table_id = $1", table_id)
            await con.execute("DELETE FROM reviews WHERE table_id = $1", table_id)
            await con.execute("DELETE FROM tables WHERE id = $1", table_id)
            await con.execute("DELETE FROM set_aside WHERE id = $1", table_id)

    async def compact(self, table_id: str, base: int, hands: dict[int, JsonObject]) -> None:
        """The log starts at `base` now: the entries before it go at once (the primary
        key finds them), the finished hands' records stay. A later append's gap check
        looks at the log's end, which compaction never moves."""
        async with self.pool.acquire() as con, con.transaction():
            await con.executemany(
                "INSERT INTO hands (table_id, number, record) VALUES ($1, $2, $3)"
                " ON CONFLICT (table_id, number) DO UPDATE SET record = excluded.record",
                _hand_rows(table_id, hands),
            )
            await con.execute(
                "UPDATE tables SET base_seq = greatest(base_seq, $2) WHERE id = $1",
                table_id,
                base,
            )
            await con.execute("DELETE FROM events WHERE table_id = $1 AND seq < $2", table_id, base)
        self.commits += 1

    async def hand(self, table_id: str, number: int) -> JsonObject | None:
        raw = await self.pool.fetchval(
            "SELECT record FROM hands WHERE table_id = $1 AND number = $2", table_id, number
        )
        return None if raw is None else _hand_from(raw, number)

    async def save_review(self, table_id: str, number: int, seat: int, review: JsonObject) -> None:
        # Several workers may compute the same review: the same answer, kept once.
        await self.pool.execute(
            "INSERT INTO reviews (table_id, number, seat, review)"
            " SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM tables WHERE id = $1)"
            " ON CONFLICT (table_id, number, seat) DO UPDATE SET review = excluded.review",
            *_review_row(table_id, number, seat, review),
        )

    async def review(self, table_id: str, number: int, seat: int) -> JsonObject | None:
        raw = await self.pool.fetchval(
            "SELECT review FROM reviews WHERE table_id = $1 AND number = $2 AND seat = $3",
            table_id,
            number,
            seat,
        )
        return None if raw is None else _review_from(raw, number)

    async def drop_compacted(self) -> int:
        return 0  # `compact` dropped them already

    async def _set_aside(self, con: Any, table_id: str, reason: str) -> None:
        await con.execute(
            "INSERT INTO set_aside (id, reason, at) VALUES ($1, $2, extract(epoch FROM now()))"
            " ON CONFLICT (id) DO UPDATE SET reason = excluded.reason",
            table_id,
            reason,
        )

    async def set_aside(self, table_id: str, reason: str) -> None:
        async with self.pool.acquire() as con:
            await self._set_aside(con, table_id, reason)

    async def set_aside_tables(self) -> dict[str, str]:
        rows = await self.pool.fetch("SELECT id, reason FROM set_aside ORDER BY at")
        return {r["id"]: r["reason"] for r in rows}
