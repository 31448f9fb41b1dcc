"""Durable table storage: the `TableStore` protocol, SQLite (the default) and memory.

What is stored is enough to rebuild every live table after a restart or a
crash: the options, the seats (names, token hashes, computer strength), the
engine's `match.log` (replayed with `Match.replay`) and two timestamps. The
store never sees a token in clear and never decides a rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import logging
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import orjson

T = TypeVar("T")

log = logging.getLogger("hollywood_gin.store")


@dataclass
class SeatRecord:
    """One taken seat as stored: never the token itself, only its SHA-256."""

    name: str
    token_hash: str
    computer: str | None = None


@dataclass
class TableRecord:
    """Everything needed to rebuild one table."""

    table_id: str
    options: dict[str, Any]
    seats: list[SeatRecord]
    created: float
    last_active: float
    log: list[dict[str, Any]] = field(default_factory=list)
    # Test hooks (deck orders still to deal, first dealer); empty in production.
    hooks: dict[str, Any] = field(default_factory=dict)


class TableStore(Protocol):
    """The seam for another store (Redis, PostgreSQL) behind the same calls.

    Every method returns once its change is durable, so a caller that awaits
    `append` before broadcasting never shows a player an unrecorded move.
    """

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def load_all(self) -> list[TableRecord]: ...

    async def create(self, record: TableRecord) -> None: ...

    async def save_seats(self, table_id: str, seats: Sequence[SeatRecord]) -> None: ...

    async def append(
        self, table_id: str, first_seq: int, entries: Sequence[dict[str, Any]], now: float
    ) -> None: ...

    async def touch(self, table_id: str, now: float) -> None: ...

    async def expire(self, before: float) -> list[str]: ...

    async def delete(self, table_id: str) -> None: ...


def _seats_json(seats: Sequence[SeatRecord]) -> bytes:
    return orjson.dumps(
        [{"name": s.name, "token_hash": s.token_hash, "computer": s.computer} for s in seats]
    )


def _seats_from(raw: bytes | str) -> list[SeatRecord]:
    return [
        SeatRecord(name=s["name"], token_hash=s["token_hash"], computer=s.get("computer"))
        for s in orjson.loads(raw)
    ]


class MemoryStore:
    """In-memory store for tests: same behaviour, nothing durable."""

    def __init__(self) -> None:
        self.records: dict[str, TableRecord] = {}
        self.commits = 0

    async def open(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def load_all(self) -> list[TableRecord]:
        return [copy.deepcopy(r) for r in self.records.values()]

    async def create(self, record: TableRecord) -> None:
        self.records[record.table_id] = copy.deepcopy(record)
        self.commits += 1

    async def save_seats(self, table_id: str, seats: Sequence[SeatRecord]) -> None:
        self.records[table_id].seats = copy.deepcopy(list(seats))
        self.commits += 1

    async def append(
        self, table_id: str, first_seq: int, entries: Sequence[dict[str, Any]], now: float
    ) -> None:
        record = self.records[table_id]
        if len(record.log) != first_seq:
            raise RuntimeError(f"log of {table_id} has {len(record.log)} entries, not {first_seq}")
        record.log.extend(copy.deepcopy(list(entries)))
        record.last_active = now
        self.commits += 1

    async def touch(self, table_id: str, now: float) -> None:
        if table_id in self.records:
            self.records[table_id].last_active = now

    async def expire(self, before: float) -> list[str]:
        gone = [t for t, r in self.records.items() if r.last_active < before]
        for table_id in gone:
            del self.records[table_id]
        return gone

    async def delete(self, table_id: str) -> None:
        self.records.pop(table_id, None)


SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    options TEXT NOT NULL,
    seats TEXT NOT NULL,
    hooks TEXT NOT NULL,
    created REAL NOT NULL,
    last_active REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tables_last_active ON tables(last_active);
"""

Write = Callable[[sqlite3.Connection], object]


@dataclass(frozen=True, slots=True)
class _Append:
    """An append as data, so a batch of them is one `executemany` (see `_commit_batch`)."""

    table_id: str
    first_seq: int
    rows: list[tuple[str, int, str]]
    now: float


_Job = Write | _Append


class SqliteStore:
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
        self.path = path
        self.checkpoint_seconds = checkpoint_seconds
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-store")
        self._checkpointer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-wal")
        self._checkpoint_db: sqlite3.Connection | None = None
        self._checkpoint_task: asyncio.Task[None] | None = None
        self.checkpoints = 0
        self._db: sqlite3.Connection | None = None
        self._pending: list[tuple[_Job, asyncio.Future[None]]] = []
        # Each table's last stored seq, known to the worker thread only (it alone runs
        # SQL): the gap check without a query per append. Updated after each commit.
        self._last_seq: dict[str, int] = {}
        self._txn_seqs: dict[str, int] = {}
        self._flushing = False
        self.commits = 0
        self.writes = 0

    # --- running SQL on the worker thread -------------------------------------------
    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._call, fn)

    def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._db is None:
            raise RuntimeError("store is not open")
        return fn(self._db)

    def _connect(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode survives a killed process (not a power cut): ARCHITECTURE.md.
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer does it, off this path
        db.executescript(SCHEMA)
        self._db = db
        self._checkpoint_db = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False
        )

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._connect)
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
            except sqlite3.Error:  # the next one copies what this one could not
                log.warning("WAL checkpoint failed", exc_info=True)

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
        self._executor.shutdown(wait=True)

    async def _write(self, fn: _Job) -> None:
        """Queue a write; return when the transaction holding it has committed."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((fn, future))
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().create_task(self._flush())
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

    def _commit_batch(self, db: sqlite3.Connection, writes: list[_Job]) -> list[Exception | None]:
        """One transaction for the batch; a failing write is undone alone (a savepoint).

        Consecutive appends go in as one `executemany` of events and one of
        `last_active`, their gap check done against `_last_seq`; only when that
        fails are they retried one by one, each in its own savepoint.
        """
        failures: list[Exception | None] = []
        seqs: dict[str, int] = {}  # this transaction's new ends, kept only if it commits
        self._txn_seqs = seqs
        db.execute("BEGIN")
        try:
            run: list[_Append] = []
            for write in writes:
                if isinstance(write, _Append):
                    run.append(write)
                    continue
                if run:
                    failures.extend(self._appends(db, run, seqs))
                    run = []
                db.execute("SAVEPOINT one")
                try:
                    write(db)
                except Exception as exc:
                    db.execute("ROLLBACK TO one")
                    failures.append(exc)
                else:
                    failures.append(None)
                db.execute("RELEASE one")
            if run:
                failures.extend(self._appends(db, run, seqs))
        except BaseException:
            self._last_seq.clear()
            db.execute("ROLLBACK")
            raise
        try:
            db.execute("COMMIT")
        except BaseException:
            self._last_seq.clear()
            raise
        self._last_seq.update(seqs)
        self.commits += 1
        self.writes += len(writes)
        return failures

    def _forget(self, table_ids: Sequence[str]) -> None:
        """On the worker thread: these tables' events were created or deleted."""
        for table_id in table_ids:
            self._last_seq.pop(table_id, None)
            self._txn_seqs.pop(table_id, None)

    def _stored_last(self, db: sqlite3.Connection, table_id: str, seqs: dict[str, int]) -> int:
        last = seqs.get(table_id)
        if last is None:
            last = self._last_seq.get(table_id)
        if last is None:
            (found,) = db.execute(
                "SELECT MAX(seq) FROM events WHERE table_id = ?", (table_id,)
            ).fetchone()
            last = -1 if found is None else int(found)
        return last

    def _appends(
        self, db: sqlite3.Connection, run: list[_Append], seqs: dict[str, int]
    ) -> list[Exception | None]:
        """Write a run of appends; a refused one fails alone, the others go through."""
        failures: list[Exception | None] = []
        ends = dict(seqs)
        rows: list[tuple[str, int, str]] = []
        touched: list[tuple[float, str]] = []
        for a in run:
            # A log is gap-free: the next entry's seq is one past the stored last one
            # (and the primary key refuses a seq written twice).
            last = self._stored_last(db, a.table_id, ends)
            if last + 1 != a.first_seq:
                failures.append(
                    RuntimeError(f"log of {a.table_id} ends at {last}, not {a.first_seq - 1}")
                )
                continue
            failures.append(None)
            rows.extend(a.rows)
            touched.append((a.now, a.table_id))
            ends[a.table_id] = a.first_seq + len(a.rows) - 1
        db.execute("SAVEPOINT run")
        try:
            db.executemany("INSERT INTO events VALUES (?, ?, ?)", rows)
            db.executemany("UPDATE tables SET last_active = ? WHERE id = ?", touched)
        except sqlite3.Error:
            # One of them is refused by SQLite itself (say its table is gone): find
            # which, one savepoint each, as if they had come one by one.
            db.execute("ROLLBACK TO run")
            db.execute("RELEASE run")
            return [self._one_append(db, a, seqs) for a in run]
        db.execute("RELEASE run")
        seqs.update(ends)
        return failures

    def _one_append(
        self, db: sqlite3.Connection, a: _Append, seqs: dict[str, int]
    ) -> Exception | None:
        last = self._stored_last(db, a.table_id, seqs)
        if last + 1 != a.first_seq:
            return RuntimeError(f"log of {a.table_id} ends at {last}, not {a.first_seq - 1}")
        db.execute("SAVEPOINT one")
        try:
            db.executemany("INSERT INTO events VALUES (?, ?, ?)", a.rows)
            db.execute("UPDATE tables SET last_active = ? WHERE id = ?", (a.now, a.table_id))
        except Exception as exc:
            db.execute("ROLLBACK TO one")
            db.execute("RELEASE one")
            return exc
        db.execute("RELEASE one")
        seqs[a.table_id] = a.first_seq + len(a.rows) - 1
        return None

    # --- the protocol ------------------------------------------------------------------
    async def load_all(self) -> list[TableRecord]:
        def load(db: sqlite3.Connection) -> list[TableRecord]:
            records: dict[str, TableRecord] = {}
            rows = db.execute(
                "SELECT id, options, seats, hooks, created, last_active"
                " FROM tables ORDER BY created"
            )
            for table_id, options, seats, hooks, created, last_active in rows:
                records[table_id] = TableRecord(
                    table_id=table_id,
                    options=orjson.loads(options),
                    seats=_seats_from(seats),
                    created=created,
                    last_active=last_active,
                    hooks=orjson.loads(hooks),
                )
            for table_id, entry in db.execute(
                "SELECT table_id, entry FROM events ORDER BY table_id, seq"
            ):
                if table_id in records:
                    records[table_id].log.append(orjson.loads(entry))
            return list(records.values())

        return await self._run(load)

    async def create(self, record: TableRecord) -> None:
        row = (
            record.table_id,
            orjson.dumps(record.options).decode(),
            _seats_json(record.seats).decode(),
            orjson.dumps(record.hooks).decode(),
            record.created,
            record.last_active,
        )
        events = [
            (record.table_id, seq, orjson.dumps(entry).decode())
            for seq, entry in enumerate(record.log)
        ]

        def write(db: sqlite3.Connection) -> None:
            self._forget([record.table_id])
            db.execute("INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?)", row)
            db.executemany("INSERT INTO events VALUES (?, ?, ?)", events)

        await self._write(write)

    async def save_seats(self, table_id: str, seats: Sequence[SeatRecord]) -> None:
        text = _seats_json(seats).decode()
        await self._write(
            lambda db: db.execute("UPDATE tables SET seats = ? WHERE id = ?", (text, table_id))
        )

    async def append(
        self, table_id: str, first_seq: int, entries: Sequence[dict[str, Any]], now: float
    ) -> None:
        rows = [
            (table_id, first_seq + i, orjson.dumps(entry).decode())
            for i, entry in enumerate(entries)
        ]
        await self._write(_Append(table_id, first_seq, rows, now))

    async def touch(self, table_id: str, now: float) -> None:
        await self._write(
            lambda db: db.execute("UPDATE tables SET last_active = ? WHERE id = ?", (now, table_id))
        )

    async def expire(self, before: float) -> list[str]:
        gone: list[str] = []

        def write(db: sqlite3.Connection) -> None:
            ids = [
                r[0] for r in db.execute("SELECT id FROM tables WHERE last_active < ?", (before,))
            ]
            self._forget(ids)
            db.executemany("DELETE FROM tables WHERE id = ?", [(i,) for i in ids])
            gone.extend(ids)

        await self._write(write)
        return gone

    async def delete(self, table_id: str) -> None:
        def write(db: sqlite3.Connection) -> None:
            self._forget([table_id])
            db.execute("DELETE FROM tables WHERE id = ?", (table_id,))

        await self._write(write)
