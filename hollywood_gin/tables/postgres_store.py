"""The shared store: PostgreSQL, for several workers behind HAProxy (docs/scale-out.md).

Chosen by `HOLLYWOOD_GIN_DATABASE_URL=postgresql://…`; needs the `postgres` extra
(`asyncpg`). Each table row carries `owner_epoch`. A worker claims a table on its
first request for it (one transaction: bump the epoch, read the row and its log);
every append is fenced by that epoch inside the one statement that writes it, and
`PRIMARY KEY (table_id, seq)` makes a forked log impossible whatever happens.
Appends that arrive while a commit is under way go in together with the next one
(group commit, `postgres_appends`), one fenced statement per batch,
`synchronous_commit = on`. Every call runs on a connection of `postgres_pool`, which
closes one whose call was cut off rather than wait for it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import asyncpg

from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.tables.postgres_appends import FencedAppends
from hollywood_gin.tables.postgres_pool import Sessions
from hollywood_gin.tables.rows import (
    entry_rows,
    first_look,
    hand_from,
    hand_rows,
    read_log,
    record_from,
    review_from,
    review_row,
    seats_json,
    table_row,
)
from hollywood_gin.tables.store import FIRST_EPOCH, Damaged, NotOwner, SeatRecord, TableRecord

log = logging.getLogger("hollywood_gin.store")

# Any constant: the one lock that lets one worker at a time run the expiry.
EXPIRY_LOCK = 0x4857_4749_4E01

# The layout's version, in a one-row table (`schema_version`), as the SQLite file's is
# in its `user_version`: a worker refuses a database of a newer version before it
# changes anything, and brings an older one up to this. Numbered on its own.
# Version 1: the version table itself (databases before it had none: version 0).
# Version 2: `tables.next_look`, each table's next look by the clock (filled in from
# the stored deadlines when a database is brought up to it: `fill_looks`).
SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    version integer NOT NULL
);
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
-- When a table played over days next needs the clock (Unix seconds, as its seats'
-- deadlines): kept by the worker holding it, read by every worker's sweep for the
-- tables nobody holds (`due_looks`). Only those tables have one, and it changes a
-- few times a move at most, so an append's update of `last_active` stays HOT.
ALTER TABLE tables ADD COLUMN IF NOT EXISTS next_look double precision;
CREATE INDEX IF NOT EXISTS tables_next_look ON tables (next_look) WHERE next_look IS NOT NULL;
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
CREATE TABLE IF NOT EXISTS site_secrets (
    name text PRIMARY KEY,
    value text NOT NULL
);
"""


class NewerDatabase(RuntimeError):
    """The database was laid out by a newer version: this one must not touch it."""


async def refuse_newer(con: Any) -> int:
    """The database's schema version; NewerDatabase when it is past this version's."""
    found = 0  # no version table: a database from before it (or a new one)
    if await con.fetchval("SELECT to_regclass('schema_version') IS NOT NULL"):
        found = int(await con.fetchval("SELECT max(version) FROM schema_version") or 0)
    if found > SCHEMA_VERSION:
        raise NewerDatabase(
            f"written by a newer Hollywood Gin (schema {found}; this version reads up to"
            f" {SCHEMA_VERSION}). Run the newer version on every worker; the database is"
            " left untouched."
        )
    return found


async def fill_looks(con: Any, seconds_per_day: float = 86400.0) -> int:
    """Each stored table's next look as its holder would keep it (`first_look`: the
    "deadline soon" moment still ahead, else the deadline), where it has none (a
    database from before `next_look`, a copy of a SQLite file); how many. A deadline
    as the look would say its "deadline soon" was told (`Presence.told_before`)."""
    now = float(await con.fetchval("SELECT extract(epoch FROM now())"))
    rows = await con.fetch(
        "SELECT id, options, seats FROM tables"
        " WHERE next_look IS NULL AND seats LIKE '%\"deadline\"%'"
    )
    firsts = [(r["id"], first_look(r["options"], r["seats"], now, seconds_per_day)) for r in rows]
    looks = [(table_id, look) for table_id, look in firsts if look is not None]
    if looks:
        await con.executemany("UPDATE tables SET next_look = $2 WHERE id = $1", looks)
    return len(looks)


async def probe(url: str, timeout: float = 5.0) -> str:
    """Connect once, read-only, and describe what is there (`hollywood-gin check`).
    Raises what the connection raises (OSError, asyncpg's errors, TimeoutError), and
    NewerDatabase."""
    con = await asyncpg.connect(url, timeout=timeout, command_timeout=timeout)
    try:
        await refuse_newer(con)
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
        self,
        url: str,
        *,
        owner: str = "",
        pool_size: int = 4,
        gather_seconds: float = 0.0,
        gather_appends: int = 1,
        gather_max_seconds: float = 0.0,
        seconds_per_day: float = 86400.0,
    ) -> None:
        self.url = url
        # A day of a table played over days (`HOLLYWOOD_GIN_SECONDS_PER_DAY`): the looks
        # `fill_looks` works out on an upgrade.
        self.seconds_per_day = seconds_per_day
        # Who writes (the worker's name), kept in each row it claims: for people.
        self.owner = owner
        self.sessions = Sessions(url, pool_size)
        self.appends = FencedAppends(
            self.sessions, gather_seconds, gather_appends, gather_max_seconds
        )
        self._commits = 0  # those not of appends

    @property
    def pool(self) -> asyncpg.Pool:
        return self.sessions.pool

    @property
    def commits(self) -> int:
        return self._commits + self.appends.commits

    @property
    def writes(self) -> int:
        return self.appends.writes

    async def open(self) -> None:
        await self.sessions.open()
        async with self.sessions.session(transaction=True) as con:
            # Workers starting together must not race on CREATE IF NOT EXISTS.
            await con.execute("SELECT pg_advisory_xact_lock($1)", EXPIRY_LOCK + 1)
            found = await refuse_newer(con)  # before any change
            await con.execute(SCHEMA)
            if found < 2:
                await fill_looks(con, self.seconds_per_day)
            if found < SCHEMA_VERSION:
                await con.execute(
                    "INSERT INTO schema_version (version) VALUES ($1)"
                    " ON CONFLICT (one) DO UPDATE SET version = excluded.version",
                    SCHEMA_VERSION,
                )
                log.info("store schema brought from version %d to %d", found, SCHEMA_VERSION)

    async def close(self) -> None:
        await self.appends.close()
        await self.sessions.close()

    def forget(self, table_id: str) -> None:
        return None  # nothing kept per table: the epochs are in the database

    # --- ownership ---------------------------------------------------------------
    async def claim(self, table_id: str, owner: str) -> tuple[int, TableRecord] | None:
        """Become the table's owner: bump its epoch, read it; None: no such table."""
        return await self._claim(table_id, owner, None)

    async def claim_at(
        self, table_id: str, owner: str, epoch: int
    ) -> tuple[int, TableRecord] | None:
        """`claim` while the table's epoch is still `epoch` (the row's lock orders two
        workers' claims: the second sees the epoch moved on); None: not claimed."""
        return await self._claim(table_id, owner, epoch)

    async def _claim(
        self, table_id: str, owner: str, epoch: int | None
    ) -> tuple[int, TableRecord] | None:
        async with self.sessions.session(transaction=True) as con:
            row = await con.fetchrow(
                "UPDATE tables SET owner_epoch = owner_epoch + 1, owner = $2"
                " WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.id = $1)"
                " AND ($3::bigint IS NULL OR owner_epoch = $3::bigint)"
                " RETURNING id, options, seats, created, last_active, base_seq,"
                " owner_epoch, next_look",
                table_id,
                owner,
                epoch,
            )
            if row is None:
                return None
            events = await con.fetch(
                "SELECT seq, entry FROM events WHERE table_id = $1 AND seq >= $2 ORDER BY seq",
                table_id,
                row["base_seq"],
            )
            return await self._claimed(con, row, events)

    async def owners(self, table_ids: Sequence[str]) -> dict[str, int]:
        """Each stored table's epoch now (a table gone is left out)."""
        rows = await self.sessions.fetch(
            "SELECT id, owner_epoch FROM tables WHERE id = ANY($1::text[])", list(table_ids)
        )
        return {r["id"]: int(r["owner_epoch"]) for r in rows}

    # --- the clocks of tables nobody holds (`LookStore`) -----------------------------
    async def save_look(
        self, table_id: str, epoch: int, look: float | None, *, release: bool = False
    ) -> bool:
        # One row a statement: a batch would lock rows in its own order, against the
        # appends' batches in theirs (a deadlock PostgreSQL breaks by failing one).
        status = await self.sessions.execute(
            "UPDATE tables SET next_look = $3, owner = CASE WHEN $4 THEN NULL ELSE owner END"
            " WHERE id = $1 AND owner_epoch = $2",
            table_id,
            epoch,
            look,
            release,
        )
        return bool(status == "UPDATE 1")

    async def due_looks(self, now: float, stale: float, limit: int) -> list[tuple[str, int]]:
        rows = await self.sessions.fetch(
            "SELECT id, owner_epoch FROM tables t WHERE next_look <= $1"
            " AND (owner IS NULL OR next_look <= $2)"
            " AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.id = t.id)"
            " ORDER BY next_look LIMIT $3",
            now,
            stale,
            limit,
        )
        return [(r["id"], int(r["owner_epoch"])) for r in rows]

    async def claim_due(
        self, now: float, stale: float, limit: int, owner: str, mine: Sequence[str]
    ) -> list[tuple[int, TableRecord]]:
        # One statement picks and claims: `SKIP LOCKED` passes over the rows another
        # worker's sweep (or any claim) is claiming this moment, so workers sweeping at
        # once take disjoint tables, and the row lock re-checks the due condition on
        # the row as committed (a table claimed meanwhile is no longer due).
        async with self.sessions.session(transaction=True) as con:
            rows = await con.fetch(
                "WITH due AS (SELECT id FROM tables t WHERE next_look <= $1"
                " AND (owner IS NULL OR (next_look <= $2"
                " AND (owner <> $4 OR NOT (id = ANY($5::text[])))))"
                " AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.id = t.id)"
                " ORDER BY next_look LIMIT $3 FOR UPDATE SKIP LOCKED)"
                " UPDATE tables t SET owner_epoch = t.owner_epoch + 1, owner = $4"
                " FROM due WHERE t.id = due.id"
                " RETURNING t.id, t.options, t.seats, t.created, t.last_active, t.base_seq,"
                " t.owner_epoch, t.next_look",
                now,
                stale,
                limit,
                owner,
                list(mine),
            )
            if not rows:
                return []
            events = await con.fetch(
                "SELECT e.table_id, e.seq, e.entry FROM events e"
                " JOIN unnest($1::text[], $2::int[]) AS c(id, base)"
                " ON e.table_id = c.id AND e.seq >= c.base ORDER BY e.table_id, e.seq",
                [r["id"] for r in rows],
                [r["base_seq"] for r in rows],
            )
            logs: dict[str, list[tuple[int, str]]] = {}
            for e in events:
                logs.setdefault(e["table_id"], []).append((e["seq"], e["entry"]))
            claimed = []
            for row in rows:
                one = await self._claimed(con, row, logs.get(row["id"], []))
                if one is not None:
                    claimed.append(one)
            return claimed

    async def _claimed(
        self, con: Any, row: Any, events: Iterable[tuple[int, str]]
    ) -> tuple[int, TableRecord] | None:
        """A row a claim returned, with its log, as its epoch and record; a damaged
        table is set aside in the claim's transaction (None)."""
        try:
            record = record_from(tuple(row)[:6])
            read_log(record, events)
            record.look = row["next_look"]
        except Damaged as exc:
            log.error("table %s is damaged (%s): set aside", row["id"][:8], exc)
            await self._set_aside(con, row["id"], str(exc))
            return None
        return int(row["owner_epoch"]), record

    async def leave(self, owner: str) -> int:
        status = await self.sessions.execute(
            "UPDATE tables SET owner = NULL WHERE owner = $1", owner
        )
        return int(str(status).rsplit(" ", 1)[-1])

    # --- writes --------------------------------------------------------------------
    async def load_all(
        self, keep: Callable[[TableRecord], bool] | None = None
    ) -> list[TableRecord]:
        """Never used by workers of a shared store (they claim lazily); for tools
        (`keep`: asked of each claimed record)."""
        ids = [r["id"] for r in await self.sessions.fetch("SELECT id FROM tables ORDER BY created")]
        records = []
        for table_id in ids:
            claimed = await self.claim(table_id, "load_all")
            if claimed is not None and (keep is None or keep(claimed[1])):
                records.append(claimed[1])
        return records

    async def create(self, record: TableRecord) -> None:
        """Store a new table, its creator's at `FIRST_EPOCH`."""
        async with self.sessions.session(transaction=True) as con:
            await con.execute(
                "INSERT INTO tables (id, options, seats, created, last_active, base_seq,"
                " owner, owner_epoch) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                *table_row(record),
                self.owner or None,
                FIRST_EPOCH,
            )
            if record.log:
                await con.executemany(
                    "INSERT INTO events (table_id, seq, entry) VALUES ($1, $2, $3)",
                    entry_rows(record.table_id, record.base, record.log),
                )
        self._commits += 1

    async def save_seats(self, table_id: str, seats: Sequence[SeatRecord], epoch: int) -> None:
        status = await self.sessions.execute(
            "UPDATE tables SET seats = $2 WHERE id = $1 AND owner_epoch = $3",
            table_id,
            seats_json(seats).decode(),
            epoch,
        )
        if status != "UPDATE 1":
            raise NotOwner(f"table {table_id[:8]} has another owner now")
        self._commits += 1

    def append(
        self,
        table_id: str,
        first_seq: int,
        entries: Sequence[JsonObject],
        now: float,
        epoch: int,
    ) -> Awaitable[None]:
        """Durable once awaited; `NotOwner` when the table's epoch moved on (group
        commit: `postgres_appends`; a future, so a bounded wait needs no task)."""
        return self.appends.append(table_id, first_seq, entries, now, epoch)

    async def touch(self, table_id: str, now: float) -> None:
        await self.sessions.execute(
            "UPDATE tables SET last_active = greatest(last_active, $2) WHERE id = $1",
            table_id,
            now,
        )

    async def expire(self, before: float, idle_seconds: float | None = None) -> list[str]:
        """Remove idle tables; one worker at a time (an advisory lock), and with
        `idle_seconds` the cut-off is taken from the database's clock, so workers
        whose clocks differ agree on it. Returns the ids removed (none when another
        worker is expiring right now)."""
        async with self.sessions.session(transaction=True) as con:
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
        async with self.sessions.session(transaction=True) as con:
            await con.execute("DELETE FROM events WHERE table_id = $1", table_id)
            await con.execute("DELETE FROM hands WHERE table_id = $1", table_id)
            await con.execute("DELETE FROM reviews WHERE table_id = $1", table_id)
            await con.execute("DELETE FROM tables WHERE id = $1", table_id)
            await con.execute("DELETE FROM set_aside WHERE id = $1", table_id)

    async def compact(self, table_id: str, base: int, hands: dict[int, JsonObject]) -> None:
        """The log starts at `base` now: the entries before it go at once (the primary
        key finds them), the finished hands' records stay. A later append's gap check
        looks at the log's end, which compaction never moves."""
        async with self.sessions.session(transaction=True) as con:
            await con.executemany(
                "INSERT INTO hands (table_id, number, record) VALUES ($1, $2, $3)"
                " ON CONFLICT (table_id, number) DO UPDATE SET record = excluded.record",
                hand_rows(table_id, hands),
            )
            await con.execute(
                "UPDATE tables SET base_seq = greatest(base_seq, $2) WHERE id = $1",
                table_id,
                base,
            )
            await con.execute("DELETE FROM events WHERE table_id = $1 AND seq < $2", table_id, base)
        self._commits += 1

    async def hand(self, table_id: str, number: int) -> JsonObject | None:
        raw = await self.sessions.fetchval(
            "SELECT record FROM hands WHERE table_id = $1 AND number = $2", table_id, number
        )
        return None if raw is None else hand_from(raw, number)

    async def save_review(self, table_id: str, number: int, seat: int, review: JsonObject) -> None:
        # Several workers may compute the same review: the same answer, kept once.
        await self.sessions.execute(
            "INSERT INTO reviews (table_id, number, seat, review)"
            " SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM tables WHERE id = $1)"
            " ON CONFLICT (table_id, number, seat) DO UPDATE SET review = excluded.review",
            *review_row(table_id, number, seat, review),
        )

    async def review(self, table_id: str, number: int, seat: int) -> JsonObject | None:
        raw = await self.sessions.fetchval(
            "SELECT review FROM reviews WHERE table_id = $1 AND number = $2 AND seat = $3",
            table_id,
            number,
            seat,
        )
        return None if raw is None else review_from(raw, number)

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
        async with self.sessions.session() as con:
            await self._set_aside(con, table_id, reason)

    async def keep_secret(self, name: str, value: str) -> str:
        """The site's secret `name` (the VAPID key): `value` kept if none was, else the
        one kept; every worker gets the same."""
        await self.sessions.execute(
            "INSERT INTO site_secrets (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            name,
            value,
        )
        kept = await self.sessions.fetchval("SELECT value FROM site_secrets WHERE name = $1", name)
        return str(kept)

    async def set_aside_tables(self) -> dict[str, str]:
        rows = await self.sessions.fetch("SELECT id, reason FROM set_aside ORDER BY at")
        return {r["id"]: r["reason"] for r in rows}
