"""The embedded default store: one SQLite file in WAL mode, one process (its owner).

The store's SQL: opening the file, the statements of the `TableStore` protocol,
loading. Beside it: the file's schema and migrations, reading a file without
changing it (`hollywood-gin check`) and the online backup (`sqlite_file`); the
thread its SQL runs on and the group commit (`group_commit`); the transaction of
one batch of writes (`sqlite_batch`); the WAL checkpoints (`sqlite_checkpoint`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.tables.group_commit import Answer, GroupCommit, Outcomes, Worker
from hollywood_gin.tables.rows import (
    active_at,
    entry_rows,
    hand_from,
    hand_rows,
    read_log,
    record_from,
    review_from,
    review_row,
    seats_json,
    table_row,
)
from hollywood_gin.tables.sqlite_batch import (
    STATEMENTS_CACHED,
    Append,
    BatchWriter,
    Job,
    append_values,
)
from hollywood_gin.tables.sqlite_checkpoint import Checkpointer
from hollywood_gin.tables.sqlite_file import (
    SCHEMA,
    DataFileLock,
    NewerSchema,
    last_append,
    migrate_schema,
    private_file,
    read_tables,
    refuse_newer,
    refuse_unusable,
    set_aside_in,
)
from hollywood_gin.tables.store import SeatRecord, SingleOwner, TableRecord

T = TypeVar("T")

log = logging.getLogger("hollywood_gin.store")


class SqliteStore(SingleOwner):
    """The embedded default: one SQLite file in WAL mode, synchronous=NORMAL.

    All SQL runs on one worker thread, so the event loop never waits on the
    disk. Writes that arrive while a commit is in progress are grouped into the
    next transaction (group commit): each caller still returns only after the
    transaction holding its write has committed.

    WAL checkpoints run every `checkpoint_seconds` on a second connection and thread
    (`self.wal`); between them that thread syncs the WAL every `sync_seconds` (the
    only fsyncs under synchronous=NORMAL: what a power cut keeps), as the checkpoints
    did every second before.
    """

    def __init__(
        self,
        path: Path,
        *,
        checkpoint_seconds: float = 5.0,
        sync_seconds: float = 1.0,
        gather_seconds: float = 0.0,
    ) -> None:
        super().__init__()
        self.path = path
        self._worker = Worker("sqlite-store")
        self._db: sqlite3.Connection | None = None
        self._lock: DataFileLock | None = None
        self._batches = BatchWriter()
        # `gather_seconds`: the oldest write of a commit waits that long for others to
        # join it (`GroupCommit`; the setting `data_file_gather_seconds`).
        self._group: GroupCommit[Job] = GroupCommit(submit=self._submit, gather=gather_seconds)
        self.wal = Checkpointer(
            path, checkpoint_seconds, sync_seconds, commits=lambda: self._worker.calls
        )

    @property
    def commits(self) -> int:
        """Transactions committed (each a batch of writes)."""
        return self._batches.commits

    @property
    def writes(self) -> int:
        """Writes committed (or refused alone) in those transactions."""
        return self._batches.writes

    # --- running SQL on the worker thread -------------------------------------------
    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await self._worker.run(functools.partial(self._call, fn))

    def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._db is None:
            raise RuntimeError("store is not open")
        return fn(self._db)

    def _submit(self, writes: list[Job], answer: Answer, loop: asyncio.AbstractEventLoop) -> None:
        """A batch handed to the worker thread; `answer` hears its outcomes on `loop`."""
        self._worker.submit(functools.partial(self._commit_open, writes), answer, loop)

    def _commit_open(self, writes: list[Job]) -> Outcomes:
        if self._db is None:
            raise RuntimeError("store is not open")
        return self._commit_batch(self._db, writes)

    def _commit_batch(self, db: sqlite3.Connection, writes: list[Job]) -> Outcomes:
        """On the worker thread: one transaction for the batch."""
        return self._batches.commit(db, writes)

    def _connect(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # One process per file, before anything is read or written: FileInUse.
        self._lock = DataFileLock.acquire(self.path)
        try:
            self._connect_held()
        except BaseException:
            self._lock.release()
            self._lock = None
            raise

    def _connect_held(self) -> None:
        refuse_unusable(self.path)  # an empty or foreign file is not an empty store
        db = sqlite3.connect(
            self.path,
            isolation_level=None,
            check_same_thread=False,
            cached_statements=STATEMENTS_CACHED,
        )
        # Before the WAL is made (SQLite gives it the file's mode) or anything written.
        private_file(self.path)
        (version,) = db.execute("PRAGMA user_version").fetchone()
        try:
            # Before any statement that could change a file of a newer layout.
            refuse_newer(self.path, int(version))
        except NewerSchema:
            db.close()
            raise
        db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode survives a killed process (not a power cut):
        # docs/architecture.md "The store".
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer does it, off this path
        db.executescript(SCHEMA)
        migrate_schema(db)
        self._db = db
        self.wal.connect()

    async def open(self) -> None:
        await self._worker.run(self._connect)
        self.wal.start()

    async def close(self) -> None:
        await self.wal.close()
        await self._group.drain()

        def shut(db: sqlite3.Connection) -> None:
            db.close()

        if self._db is not None:
            await self._run(shut)
            self._db = None
        self._worker.shutdown()
        if self._lock is not None:  # after the last write and the connection's close
            self._lock.release()
            self._lock = None

    # --- the protocol ------------------------------------------------------------------
    async def claim(self, table_id: str, owner: str) -> tuple[int, TableRecord] | None:
        """One table read back (a scan of the events: only tests claim from a file)."""

        def read(db: sqlite3.Connection) -> TableRecord | None:
            if table_id in set_aside_in(db):
                return None
            row = db.execute(
                "SELECT id, options, seats, created, last_active, base_seq"
                " FROM tables WHERE id = ?",
                (table_id,),
            ).fetchone()
            if row is None:
                return None
            record = record_from(row)
            events = db.execute(
                "SELECT seq, entry FROM events WHERE table_id = ? AND seq >= ? ORDER BY rowid",
                (table_id, record.base),
            )
            read_log(record, events)
            active_at(record, last_append(db, table_id))  # its events' latest `at`
            self._batches.last_seq(db, table_id)  # kept while it is in memory
            return record

        return self._claimed(await self._run(read))

    async def owners(self, table_ids: Sequence[str]) -> dict[str, int]:
        def stored(db: sqlite3.Connection) -> set[str]:
            return {
                t
                for t in table_ids
                if db.execute("SELECT 1 FROM tables WHERE id = ?", (t,)).fetchone()
            }

        found = await self._run(stored)
        return self._owners(table_ids, found.__contains__)

    def forget(self, table_id: str) -> None:
        """The table left memory: what the store kept of it for its appends goes."""
        self._batches.forget(table_id)

    async def seqs_kept(self) -> int:
        """Tables whose last seq the store keeps in memory (tests, benchmarks)."""
        return await self._run(lambda db: self._batches.kept())

    async def load_all(
        self, keep: Callable[[TableRecord], bool] | None = None
    ) -> list[TableRecord]:
        """Every table not set aside (`keep`: those it keeps, asked of each row with its
        latest activity, before any log is read); one that cannot be read is set aside,
        the rest load."""

        def load(db: sqlite3.Connection) -> list[TableRecord]:
            records, damaged = read_tables(db, keep)
            for table_id, reason in damaged.items():
                log.error(
                    "table %s is damaged (%s): set aside, kept in the file", table_id[:8], reason
                )
                self._set_aside(db, table_id, reason)
            return records

        return await self._run(load)

    def _set_aside(self, db: sqlite3.Connection, table_id: str, reason: str) -> None:
        db.execute(
            "INSERT OR REPLACE INTO set_aside VALUES (?, ?, strftime('%s', 'now'))",
            (table_id, reason),
        )

    async def set_aside(self, table_id: str, reason: str) -> None:
        await self._group.write(lambda db: self._set_aside(db, table_id, reason))

    async def set_aside_tables(self) -> dict[str, str]:
        return await self._run(set_aside_in)

    async def compact(self, table_id: str, base: int, hands: dict[int, JsonObject]) -> None:
        rows = hand_rows(table_id, hands)

        def write(db: sqlite3.Connection) -> None:
            db.executemany("INSERT OR REPLACE INTO hands VALUES (?, ?, ?)", rows)
            # Only a pointer: the entries before it go in `drop_compacted`, by rowid
            # ranges, as a scan of a table's events here would cost every move a wait.
            db.execute("UPDATE tables SET base_seq = ? WHERE id = ?", (base, table_id))

        await self._group.write(write)

    async def hand(self, table_id: str, number: int) -> JsonObject | None:
        def read(db: sqlite3.Connection) -> JsonObject | None:
            row = db.execute(
                "SELECT record FROM hands WHERE table_id = ? AND number = ?", (table_id, number)
            ).fetchone()
            return None if row is None else hand_from(row[0], number)

        return await self._run(read)

    async def save_review(self, table_id: str, number: int, seat: int, review: JsonObject) -> None:
        row = review_row(table_id, number, seat, review)

        def write(db: sqlite3.Connection) -> None:
            # Only for a table still stored (a table expired meanwhile keeps none).
            db.execute(
                "INSERT OR REPLACE INTO reviews SELECT ?, ?, ?, ? WHERE EXISTS"
                " (SELECT 1 FROM tables WHERE id = ?)",
                (*row, table_id),
            )

        await self._group.write(write)

    async def review(self, table_id: str, number: int, seat: int) -> JsonObject | None:
        def read(db: sqlite3.Connection) -> JsonObject | None:
            row = db.execute(
                "SELECT review FROM reviews WHERE table_id = ? AND number = ? AND seat = ?",
                (table_id, number, seat),
            ).fetchone()
            return None if row is None else review_from(row[0], number)

        return await self._run(read)

    async def drop_compacted(self, chunk: int = 20_000) -> int:
        """Delete compacted entries, one rowid range per transaction: moves go between."""
        (top,) = await self._run(
            lambda db: db.execute("SELECT COALESCE(MAX(rowid), 0) FROM events").fetchone()
        )
        dropped: list[int] = []

        def drop_range(db: sqlite3.Connection, low: int) -> None:
            cursor = db.execute(
                "DELETE FROM events WHERE rowid >= ? AND rowid < ?"
                " AND seq < (SELECT base_seq FROM tables WHERE id = events.table_id)",
                (low, low + chunk),
            )
            dropped.append(cursor.rowcount)

        for low in range(0, int(top) + 1, chunk):
            await self._group.write(functools.partial(drop_range, low=low))
        return sum(dropped)

    async def create(self, record: TableRecord) -> None:
        row = table_row(record)
        events = entry_rows(record.table_id, record.base, record.log)

        def write(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO tables (id, options, seats, created, last_active, base_seq)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                row,
            )
            # A table deleted earlier leaves no event behind (`delete`). No `at`: the
            # row's `last_active` is the table's last activity until its first append.
            db.executemany("INSERT INTO events (table_id, seq, entry) VALUES (?, ?, ?)", events)
            self._batches.created(record.table_id, record.base + len(events) - 1)

        await self._group.write(write)

    async def save_seats(self, table_id: str, seats: Sequence[SeatRecord], epoch: int) -> None:
        self._fence(table_id, epoch)
        text = seats_json(seats).decode()
        await self._group.write(
            lambda db: db.execute("UPDATE tables SET seats = ? WHERE id = ?", (text, table_id))
        )

    def append(
        self,
        table_id: str,
        first_seq: int,
        entries: Sequence[JsonObject],
        now: float,
        epoch: int,
    ) -> Awaitable[None]:
        """The group commit's future, not a coroutine (a frame fewer per move); what
        refuses the append before it is queued (`NotOwner`) is that future's exception,
        raised where it is awaited, as a coroutine's was."""
        try:
            self._fence(table_id, epoch)
            values = append_values(table_id, first_seq, entries, now)
        except Exception as exc:
            refused: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            refused.set_exception(exc)
            return refused
        # Its time goes into its events' `at` (schema 6), not into the table's row.
        return self._group.write(Append(table_id, first_seq, len(entries), values, now))

    async def touch(self, table_id: str, now: float) -> None:
        await self._group.write(
            lambda db: db.execute("UPDATE tables SET last_active = ? WHERE id = ?", (now, table_id))
        )

    async def expire(self, before: float, idle_seconds: float | None = None) -> list[str]:
        gone: list[str] = []

        def write(db: sqlite3.Connection) -> None:
            # Idle by its row (created, touched) and by its events' `at` (appended):
            # each table old by its row is looked up by the events' key.
            ids = [
                r[0]
                for r in db.execute(
                    "SELECT id FROM tables t WHERE last_active < ?1"
                    " AND id NOT IN (SELECT id FROM set_aside)"
                    " AND NOT EXISTS (SELECT 1 FROM events e WHERE e.table_id = t.id"
                    " AND typeof(e.at) IN ('real', 'integer') AND e.at >= ?1)",
                    (before,),
                )
            ]
            self._delete(db, ids)
            gone.extend(ids)

        await self._group.write(write)
        return gone

    async def delete(self, table_id: str) -> None:
        await self._group.write(lambda db: self._delete(db, [table_id]))

    def _delete(self, db: sqlite3.Connection, table_ids: list[str]) -> None:
        """On the worker thread: the tables and their events (one scan for them all)."""
        if not table_ids:
            return
        db.execute("CREATE TEMP TABLE IF NOT EXISTS gone (id TEXT PRIMARY KEY)")
        db.execute("DELETE FROM gone")
        db.executemany("INSERT OR IGNORE INTO gone VALUES (?)", [(i,) for i in table_ids])
        db.execute("DELETE FROM events WHERE table_id IN (SELECT id FROM gone)")
        db.execute("DELETE FROM tables WHERE id IN (SELECT id FROM gone)")
        db.execute("DELETE FROM set_aside WHERE id IN (SELECT id FROM gone)")
        db.execute("DELETE FROM hands WHERE table_id IN (SELECT id FROM gone)")
        db.execute("DELETE FROM reviews WHERE table_id IN (SELECT id FROM gone)")
        db.execute("DELETE FROM gone")
        self._batches.deleted(table_ids)
