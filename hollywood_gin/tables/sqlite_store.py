"""The embedded default store: one SQLite file in WAL mode, one process (its owner).

The file's schema and migrations, reading a file without changing it (`hollywood-gin
check`) and the online backup are in `sqlite_file`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.tables.sqlite_file import (
    SCHEMA,
    NewerSchema,
    _migrate,
    private_file,
    read_tables,
    refuse_newer,
    refuse_unusable,
    set_aside_in,
)
from hollywood_gin.tables.store import (
    FailureEpisode,
    SeatRecord,
    SingleOwner,
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

T = TypeVar("T")

log = logging.getLogger("hollywood_gin.store")


Write = Callable[[sqlite3.Connection], object]


@dataclass(frozen=True, slots=True)
class _Append:
    """An append as data, so a batch of them is one `executemany` (see `_commit_batch`)."""

    table_id: str
    first_seq: int
    rows: list[tuple[str, int, str]]
    now: float


_Job = Write | _Append


def _succeed(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _fail(future: asyncio.Future[Any], exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)


class _Worker:
    """One thread that runs calls in the order given, each answered on its caller's loop.

    What a `ThreadPoolExecutor(max_workers=1)` and `run_in_executor` did, without
    their cost per call on the event loop's thread (the executor's lock and idle
    semaphore, a `concurrent.futures.Future` chained to the asyncio one): 12 % of
    the loop's time held by the GIL at full load (py-spy `--gil`, docs/performance.md).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._calls: queue.SimpleQueue[
            tuple[Callable[[], Any], asyncio.Future[Any], asyncio.AbstractEventLoop] | None
        ] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def run(self, fn: Callable[[], T]) -> asyncio.Future[T]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        if self._thread is None:
            # A daemon: a process ending without `close` loses no acknowledged write
            # (a write is acknowledged only once its commit is done).
            self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
            self._thread.start()
        self._calls.put((fn, future, loop))
        return future

    def _serve(self) -> None:
        while True:
            call = self._calls.get()
            if call is None:
                return
            fn, future, loop = call
            answer: Callable[[asyncio.Future[Any], Any], None]
            try:
                value = fn()
            except BaseException as exc:  # handed to the caller, as an executor does
                answer, outcome = _fail, exc
            else:
                answer, outcome = _succeed, value
            with contextlib.suppress(RuntimeError):  # the caller's loop is closed
                loop.call_soon_threadsafe(answer, future, outcome)
            del call, fn, future, outcome

    def shutdown(self) -> None:
        """Let the calls given so far finish, then end the thread."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._calls.put(None)
            thread.join()


class SqliteStore(SingleOwner):
    """The embedded default: one SQLite file in WAL mode, synchronous=NORMAL.

    All SQL runs on one worker thread, so the event loop never waits on the
    disk. Writes that arrive while a commit is in progress are grouped into the
    next transaction (group commit): each caller still returns only after the
    transaction holding its write has committed.

    WAL checkpoints, the only fsyncs under synchronous=NORMAL, run every
    `checkpoint_seconds` on a second connection and thread: inside a commit (SQLite's
    automatic checkpoint) one took up to 480 ms here and held up every move
    behind it (docs/performance.md).
    """

    def __init__(self, path: Path, *, checkpoint_seconds: float = 1.0) -> None:
        super().__init__()
        self.path = path
        self.checkpoint_seconds = checkpoint_seconds
        self._worker = _Worker("sqlite-store")
        self._checkpointer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-wal")
        self._checkpoint_db: sqlite3.Connection | None = None
        self._checkpoint_task: asyncio.Task[None] | None = None
        self.checkpoints = 0
        self.checkpoint_episode = FailureEpisode(log, "WAL checkpoint")
        self._db: sqlite3.Connection | None = None
        self._pending: list[tuple[_Job, asyncio.Future[None]]] = []
        # Every stored table's last seq (-1: no event yet), read at open and kept by
        # the worker thread alone (it alone runs SQL): the gap check of an append, and
        # the refusal of an append to a table that is not stored, without a query.
        self._last_seq: dict[str, int] = {}
        # The running transaction's changes to it (None: the table is gone), kept
        # only if it commits.
        self._txn_seqs: dict[str, int | None] = {}
        self._flushing = False
        self._flush_task: asyncio.Task[None] | None = None
        self.commits = 0
        self.writes = 0

    # --- running SQL on the worker thread -------------------------------------------
    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await self._worker.run(functools.partial(self._call, fn))

    def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._db is None:
            raise RuntimeError("store is not open")
        return fn(self._db)

    def _connect(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        refuse_unusable(self.path)  # an empty or foreign file is not an empty store
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
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
        # NORMAL in WAL mode survives a killed process (not a power cut): ARCHITECTURE.md.
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer does it, off this path
        db.executescript(SCHEMA)
        _migrate(db)
        self._load_seqs(db)
        self._db = db
        self._checkpoint_db = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False
        )

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        await self._worker.run(self._connect)
        self._checkpoint_task = loop.create_task(self._checkpoints())

    def _checkpoint(self) -> tuple[int, int, int]:
        """PASSIVE: copies what it can without waiting for, or blocking, the writer."""
        if self._checkpoint_db is None:
            return (0, 0, 0)
        busy, log_frames, done = self._checkpoint_db.execute(
            "PRAGMA wal_checkpoint(PASSIVE)"
        ).fetchone()
        self.checkpoints += 1
        return int(busy), int(log_frames), int(done)

    async def _checkpoints(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.checkpoint_seconds)
            try:
                await loop.run_in_executor(self._checkpointer, self._checkpoint)
            except sqlite3.Error as exc:  # the next one copies what this one could not
                self.checkpoint_episode.failed(exc)
            else:
                self.checkpoint_episode.succeeded()

    async def close(self) -> None:
        if self._checkpoint_task is not None:
            self._checkpoint_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpoint_task
            self._checkpoint_task = None
        if self._checkpoint_db is not None:
            await asyncio.get_running_loop().run_in_executor(
                self._checkpointer, self._checkpoint_db.close
            )
            self._checkpoint_db = None
        self._checkpointer.shutdown(wait=True)
        while self._flushing or self._pending:
            await asyncio.sleep(0.005)

        def shut(db: sqlite3.Connection) -> None:
            db.close()

        if self._db is not None:
            await self._run(shut)
            self._db = None
        self._worker.shutdown()

    async def _write(self, fn: _Job) -> None:
        """Queue a write; return when the transaction holding it has committed."""
        # One look-up of the loop: each costs a getpid() system call (CPython 3.11
        # checks the process), a few % of the server's time at full load.
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._pending.append((fn, future))
        if not self._flushing:
            self._flushing = True
            # Kept: the loop holds only a weak reference to a task.
            self._flush_task = loop.create_task(self._flush())
        await future

    async def _flush(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                writes = [w for w, _ in batch]
                try:
                    failures = await self._run(functools.partial(self._commit_batch, writes=writes))
                except Exception as exc:  # the whole transaction failed: tell every waiter
                    failures = [exc] * len(batch)
                for (_, future), failure in zip(batch, failures, strict=True):
                    if future.done():
                        continue
                    if failure is None:
                        future.set_result(None)
                    else:
                        future.set_exception(failure)
        finally:
            self._flushing = False

    def _load_seqs(self, db: sqlite3.Connection) -> None:
        """Every table's last seq, from the file (one scan of the events)."""
        self._last_seq = {table_id: -1 for (table_id,) in db.execute("SELECT id FROM tables")}
        # Integers only: a seq stored as text or a blob is damage, read_tables sets it aside.
        for table_id, last in db.execute(
            "SELECT table_id, MAX(seq) FROM events WHERE typeof(seq) = 'integer' GROUP BY table_id"
        ):
            if table_id in self._last_seq:
                self._last_seq[table_id] = int(last)

    def _commit_batch(self, db: sqlite3.Connection, writes: list[_Job]) -> list[Exception | None]:
        """One transaction for the batch; a failing write is undone alone (a savepoint).

        Consecutive appends go in as one `executemany` of events and one of
        `last_active`, their gap check done against `_last_seq`; only when SQLite
        refuses that are they retried one by one, each in its own savepoint.
        """
        failures: list[Exception | None] = []
        self._txn_seqs = {}
        db.execute("BEGIN")
        try:
            run: list[_Append] = []
            for write in writes:
                if isinstance(write, _Append):
                    run.append(write)
                    continue
                if run:
                    failures.extend(self._appends(db, run))
                    run = []
                changed = dict(self._txn_seqs)
                db.execute("SAVEPOINT one")
                try:
                    write(db)
                except Exception as exc:
                    db.execute("ROLLBACK TO one")
                    self._txn_seqs = changed
                    failures.append(exc)
                else:
                    failures.append(None)
                db.execute("RELEASE one")
            if run:
                failures.extend(self._appends(db, run))
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            # What the file holds is known for sure only by reading it again. If even
            # that fails, the ends left (-1 or older) make appends fail, never corrupt.
            with contextlib.suppress(sqlite3.Error):
                self._load_seqs(db)
            raise
        for table_id, last in self._txn_seqs.items():
            if last is None:
                self._last_seq.pop(table_id, None)
            else:
                self._last_seq[table_id] = last
        self.commits += 1
        self.writes += len(writes)
        return failures

    def _stored_last(self, table_id: str, ends: dict[str, int | None]) -> int | None:
        """The table's last seq as of this point of the transaction; None: not stored."""
        if table_id in ends:
            return ends[table_id]
        return self._last_seq.get(table_id)

    def _refusal(self, a: _Append, ends: dict[str, int | None]) -> Exception | None:
        last = self._stored_last(a.table_id, ends)
        if last is None:
            return RuntimeError(f"no stored table {a.table_id}")
        if last + 1 != a.first_seq:
            return _gap(a.table_id, last, a.first_seq)
        return None

    def _appends(self, db: sqlite3.Connection, run: list[_Append]) -> list[Exception | None]:
        """Write a run of appends; a refused one fails alone, the others go through."""
        failures: list[Exception | None] = []
        ends = dict(self._txn_seqs)
        rows: list[tuple[str, int, str]] = []
        touched: list[tuple[float, str]] = []
        for a in run:
            refusal = self._refusal(a, ends)
            failures.append(refusal)
            if refusal is None:
                rows.extend(a.rows)
                touched.append((a.now, a.table_id))
                ends[a.table_id] = a.first_seq + len(a.rows) - 1
        db.execute("SAVEPOINT run")
        try:
            db.executemany("INSERT INTO events VALUES (?, ?, ?)", rows)
            db.executemany("UPDATE tables SET last_active = ? WHERE id = ?", touched)
        except sqlite3.Error:
            # SQLite refused one of them (a full disk, a trigger): find which, one
            # savepoint each, as if they had come one by one.
            db.execute("ROLLBACK TO run")
            db.execute("RELEASE run")
            return [self._one_append(db, a) for a in run]
        db.execute("RELEASE run")
        self._txn_seqs = ends
        return failures

    def _one_append(self, db: sqlite3.Connection, a: _Append) -> Exception | None:
        refusal = self._refusal(a, self._txn_seqs)
        if refusal is not None:
            return refusal
        db.execute("SAVEPOINT one")
        try:
            db.executemany("INSERT INTO events VALUES (?, ?, ?)", a.rows)
            db.execute("UPDATE tables SET last_active = ? WHERE id = ?", (a.now, a.table_id))
        except Exception as exc:
            db.execute("ROLLBACK TO one")
            db.execute("RELEASE one")
            return exc
        db.execute("RELEASE one")
        self._txn_seqs[a.table_id] = a.first_seq + len(a.rows) - 1
        return None

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
            record = _record_from(row)
            events = db.execute(
                "SELECT seq, entry FROM events WHERE table_id = ? AND seq >= ? ORDER BY rowid",
                (table_id, record.base),
            )
            _read_log(record, events)
            return record

        return self._claimed(await self._run(read))

    async def owners(self, table_ids: Sequence[str]) -> dict[str, int]:
        return self._owners(table_ids, self._last_seq.__contains__)

    async def load_all(self) -> list[TableRecord]:
        """Every table not set aside; one that cannot be read is set aside, the rest load."""

        def load(db: sqlite3.Connection) -> list[TableRecord]:
            records, damaged = read_tables(db)
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
        await self._write(lambda db: self._set_aside(db, table_id, reason))

    async def set_aside_tables(self) -> dict[str, str]:
        return await self._run(set_aside_in)

    async def compact(self, table_id: str, base: int, hands: dict[int, JsonObject]) -> None:
        rows = _hand_rows(table_id, hands)

        def write(db: sqlite3.Connection) -> None:
            db.executemany("INSERT OR REPLACE INTO hands VALUES (?, ?, ?)", rows)
            # Only a pointer: the entries before it go in `drop_compacted`, by rowid
            # ranges, as a scan of a table's events here would cost every move a wait.
            db.execute("UPDATE tables SET base_seq = ? WHERE id = ?", (base, table_id))

        await self._write(write)

    async def hand(self, table_id: str, number: int) -> JsonObject | None:
        def read(db: sqlite3.Connection) -> JsonObject | None:
            row = db.execute(
                "SELECT record FROM hands WHERE table_id = ? AND number = ?", (table_id, number)
            ).fetchone()
            return None if row is None else _hand_from(row[0], number)

        return await self._run(read)

    async def save_review(self, table_id: str, number: int, seat: int, review: JsonObject) -> None:
        row = _review_row(table_id, number, seat, review)

        def write(db: sqlite3.Connection) -> None:
            # Only for a table still stored (a table expired meanwhile keeps none).
            db.execute(
                "INSERT OR REPLACE INTO reviews SELECT ?, ?, ?, ? WHERE EXISTS"
                " (SELECT 1 FROM tables WHERE id = ?)",
                (*row, table_id),
            )

        await self._write(write)

    async def review(self, table_id: str, number: int, seat: int) -> JsonObject | None:
        def read(db: sqlite3.Connection) -> JsonObject | None:
            row = db.execute(
                "SELECT review FROM reviews WHERE table_id = ? AND number = ? AND seat = ?",
                (table_id, number, seat),
            ).fetchone()
            return None if row is None else _review_from(row[0], number)

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
            await self._write(functools.partial(drop_range, low=low))
        return sum(dropped)

    async def create(self, record: TableRecord) -> None:
        row = _table_row(record)
        events = _entry_rows(record.table_id, record.base, record.log)

        def write(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO tables (id, options, seats, created, last_active, base_seq)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                row,
            )
            # A table deleted earlier leaves no event behind (`delete`).
            db.executemany("INSERT INTO events VALUES (?, ?, ?)", events)
            self._txn_seqs[record.table_id] = record.base + len(events) - 1

        await self._write(write)

    async def save_seats(self, table_id: str, seats: Sequence[SeatRecord], epoch: int) -> None:
        self._fence(table_id, epoch)
        text = _seats_json(seats).decode()
        await self._write(
            lambda db: db.execute("UPDATE tables SET seats = ? WHERE id = ?", (text, table_id))
        )

    async def append(
        self,
        table_id: str,
        first_seq: int,
        entries: Sequence[JsonObject],
        now: float,
        epoch: int,
    ) -> None:
        self._fence(table_id, epoch)
        rows = _entry_rows(table_id, first_seq, entries)
        await self._write(_Append(table_id, first_seq, rows, now))

    async def touch(self, table_id: str, now: float) -> None:
        await self._write(
            lambda db: db.execute("UPDATE tables SET last_active = ? WHERE id = ?", (now, table_id))
        )

    async def expire(self, before: float, idle_seconds: float | None = None) -> list[str]:
        gone: list[str] = []

        def write(db: sqlite3.Connection) -> None:
            ids = [
                r[0]
                for r in db.execute(
                    "SELECT id FROM tables WHERE last_active < ?"
                    " AND id NOT IN (SELECT id FROM set_aside)",
                    (before,),
                )
            ]
            self._delete(db, ids)
            gone.extend(ids)

        await self._write(write)
        return gone

    async def delete(self, table_id: str) -> None:
        await self._write(lambda db: self._delete(db, [table_id]))

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
        for table_id in table_ids:
            self._txn_seqs[table_id] = None
