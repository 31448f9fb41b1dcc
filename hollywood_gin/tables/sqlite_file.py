"""The data file itself: its schema and migrations, the checks that refuse a file
this version must not touch, reading a file without changing it (`hollywood-gin
check`) and the online backup. The store that writes to it is `sqlite_store`.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hollywood_gin.tables.rows import active_at, add_entry, check_log, record_from
from hollywood_gin.tables.store import Damaged, TableRecord

log = logging.getLogger("hollywood_gin.store")


SCHEMA_VERSION = 7
# Version 7: `events` has a primary key, (table_id, seq): no file can hold two rows for
# one seq of a table, whatever writes to it. (Two servers on one file did: each appended
# its own moves under the same seqs, and at the next start the table was damaged.) An
# older file's log is copied into the new table at its first start, rowids kept; a table
# whose log had forked is set aside there, its extra rows kept in `events_forked`. The
# key's index costs each append an index entry (docs/performance.md); the look-ups by
# table (open, expiry, delete) use it. One server per file: `DataFileLock`.
# Version 6: `events.at`, the time of the append that wrote the entry. A table's last
# activity is the later of `tables.last_active` (its creation, a `touch`) and its
# events' latest `at`, so an append writes only its events: it no longer rewrites the
# table's row and its `last_active` index entry, which in a group commit of K appends
# dirtied up to K pages of `tables` besides the events' last page (docs/performance.md).
# Version 5: `reviews`, the coach's review of a finished hand for one seat (kept so
# a restart does not compute it again; a new table only, an older file gains it).
# Version 4: no `tables.hooks` (the test hooks' deck orders and first dealer, written
# at creation and never used again: a restarted table shuffles).
# Version 3: `tables.base_seq`, the seq a table's log starts at (a snapshot at a
# hand's start: the entries before it are compacted away, so start-up and memory per
# table do not grow with its age), and `hands`, the records of the hands compacted.
# Version 2: `events` is a plain rowid table, appended at its end. Version 1 kept it
# WITHOUT ROWID keyed by (table_id, seq): every append then dirtied a leaf page of its
# own table, so a group commit of 40 appends wrote about 40 pages (10 µs of SQL per
# append against 3.5 µs now, `benchmarks/bench_store.py`). The log's order within a
# table is its seq; the store's own last seq per table (below) keeps it gap-free. No
# index by table until version 7: the look-ups by table (at open, at expiry) scanned
# the events, cheaper overall than an index updated on every append (docs/performance.md).
SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    options TEXT NOT NULL,
    seats TEXT NOT NULL,
    created REAL NOT NULL,
    last_active REAL NOT NULL,
    base_seq INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    entry TEXT NOT NULL,
    at REAL,
    PRIMARY KEY (table_id, seq)
);
CREATE INDEX IF NOT EXISTS tables_last_active ON tables(last_active);
CREATE TABLE IF NOT EXISTS set_aside (
    id TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS hands (
    table_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (table_id, number)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS reviews (
    table_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    review TEXT NOT NULL,
    PRIMARY KEY (table_id, number, seat)
) WITHOUT ROWID;
"""

# From version 1 (or 0: a file of the first releases, which had no user_version).
MIGRATE_FROM_1 = """
CREATE TABLE events_v2 (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    entry TEXT NOT NULL
);
INSERT INTO events_v2 (table_id, seq, entry)
    SELECT table_id, seq, entry FROM events ORDER BY table_id, seq;
DROP TABLE events;
ALTER TABLE events_v2 RENAME TO events;
"""


# To version 7: the log into a table with the key, in the order it was appended.
EVENTS_V7 = """
CREATE TABLE events_v7 (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    entry TEXT NOT NULL,
    at REAL,
    PRIMARY KEY (table_id, seq)
)
"""


class NewerSchema(RuntimeError):
    """The data file was written by a newer version: this one must not touch it."""


class OlderSchema(RuntimeError):
    """The data file has an older layout: the server migrates it when it opens it."""


class UnusableFile(RuntimeError):
    """The data file is empty or not Hollywood Gin's: refused, never started as an empty store."""


SQLITE_MAGIC = b"SQLite format 3\x00"


def refuse_unusable(path: Path) -> None:
    """Raise UnusableFile for a data file that exists but cannot be ours.

    A 0-byte file (a copy or restore that failed half-way, a `touch`) or a file of
    something else would otherwise be opened as a new, empty store: every table
    gone from view, and the file overwritten. A missing file is fine (a first start
    makes it), and so is an SQLite file with no tables in it yet.
    """
    if not path.exists():
        return
    left = "; the file is left untouched"
    if not path.is_file():
        raise UnusableFile(f"{path} is not a file{left}")
    with path.open("rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    if not head:
        raise UnusableFile(
            f"{path} is empty (0 bytes), not a Hollywood Gin data file (a copy or restore"
            " that failed?). Restore a backup in its place, or remove it to start with no"
            f" tables{left}"
        )
    if head != SQLITE_MAGIC:
        raise UnusableFile(f"{path} is not an SQLite file, so not a Hollywood Gin data file{left}")
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    except sqlite3.DatabaseError as exc:
        raise UnusableFile(f"{path} cannot be read as SQLite ({exc}){left}") from None
    finally:
        db.close()
    if names and "tables" not in names:
        shown = ", ".join(sorted(names)[:5])
        raise UnusableFile(
            f"{path} is an SQLite file of something else (tables: {shown}), not a Hollywood"
            f" Gin data file: check HOLLYWOOD_GIN_DATA_FILE{left}"
        )


def refuse_newer(path: Path, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise NewerSchema(
            f"{path} was written by a newer Hollywood Gin (store schema {version}; this"
            f" version reads up to {SCHEMA_VERSION}). Run the newer version, or restore"
            " a backup made by this one; the file is left untouched."
        )


def file_schema_version(path: Path) -> int | None:
    """The schema version of an existing data file (None: no file yet), read-only.
    UnusableFile for an empty file or one that is not ours."""
    if not path.exists():
        return None
    refuse_unusable(path)
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        (version,) = db.execute("PRAGMA user_version").fetchone()
    finally:
        db.close()
    return int(version)


def migrate_schema(db: sqlite3.Connection) -> None:
    """Bring an older file to `SCHEMA_VERSION`, in one transaction."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version >= SCHEMA_VERSION:
        return
    old_events = db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'"
    ).fetchone()
    db.execute("BEGIN IMMEDIATE")
    try:
        if old_events is not None and "WITHOUT ROWID" in old_events[0].upper():
            for statement in MIGRATE_FROM_1.split(";"):
                if statement.strip():
                    db.execute(statement)
        columns = {row[1] for row in db.execute("PRAGMA table_info(tables)")}
        if "base_seq" not in columns:
            db.execute("ALTER TABLE tables ADD COLUMN base_seq INTEGER NOT NULL DEFAULT 0")
        if "hooks" in columns:
            db.execute("ALTER TABLE tables DROP COLUMN hooks")
        if "at" not in {row[1] for row in db.execute("PRAGMA table_info(events)")}:
            db.execute("ALTER TABLE events ADD COLUMN at REAL")  # NULL in the older rows
        if version < 7:
            key_the_events(db)
        log.info("store migrated from schema version %d to %d", version, SCHEMA_VERSION)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def key_the_events(db: sqlite3.Connection) -> None:
    """`events` anew with its primary key (schema 7), inside the migration's transaction.

    Rows are copied in rowid order with their rowids (the order of appending, which
    loading follows). Where a table's log holds two rows for one seq (two servers wrote
    the file at once) the first stays in `events`, the others go to `events_forked`
    with their rowids, and the table is set aside: no row is lost, and nothing loads a
    log mixed from two histories.
    """
    forks = db.execute(
        "SELECT table_id, MIN(seq), COUNT(*) FROM ("
        " SELECT table_id, seq FROM events GROUP BY table_id, seq HAVING COUNT(*) > 1"
        ") GROUP BY table_id"
    ).fetchall()
    db.execute(EVENTS_V7)
    db.execute(
        "INSERT OR IGNORE INTO events_v7 (rowid, table_id, seq, entry, at)"
        " SELECT rowid, table_id, seq, entry, at FROM events ORDER BY rowid"
    )
    if forks:
        db.execute(
            "CREATE TABLE IF NOT EXISTS events_forked"
            " (table_id TEXT, seq INTEGER, entry TEXT, at REAL, event_rowid INTEGER)"
        )
        db.execute(
            "INSERT INTO events_forked SELECT table_id, seq, entry, at, rowid FROM events"
            " WHERE rowid NOT IN (SELECT rowid FROM events_v7) ORDER BY rowid"
        )
        for table_id, seq, seqs in forks:
            reason = (
                f"its log forked: two rows for seq {seq}"
                + (f" and {seqs - 1} more" if seqs > 1 else "")
                + " (two servers wrote the file at once); the later rows are in events_forked"
            )
            log.error("table %s: %s; set aside, kept in the file", str(table_id)[:8], reason)
            db.execute(
                "INSERT OR REPLACE INTO set_aside VALUES (?, ?, strftime('%s', 'now'))",
                (table_id, reason),
            )
    db.execute("DROP TABLE events")
    db.execute("ALTER TABLE events_v7 RENAME TO events")


# A table's latest append time (`events.at`; NULL: none, or written at creation),
# read by the events' key.
LAST_APPEND = (
    "SELECT MAX(at) FROM events WHERE table_id = {table} AND typeof(at) IN ('real', 'integer')"
)


def last_append(db: sqlite3.Connection, table_id: str) -> float | None:
    """The table's latest `events.at` (one look-up by the events' key)."""
    (at,) = db.execute(LAST_APPEND.format(table="?"), (table_id,)).fetchone()
    return None if at is None else float(at)


def read_tables(
    db: sqlite3.Connection, keep: Callable[[TableRecord], bool] | None = None
) -> tuple[list[TableRecord], dict[str, str]]:
    """Every table not set aside (and kept by `keep`, asked before its log is read), as
    records; and those that cannot be read, with why."""
    aside = set(set_aside_in(db))
    records: dict[str, TableRecord] = {}
    damaged: dict[str, str] = {}
    # With each row its events' latest `at` (by the events' key), so `keep` is asked
    # with the table's last activity before any log is read.
    rows = db.execute(
        "SELECT rowid, id, options, seats, created, last_active, base_seq,"
        f" ({LAST_APPEND.format(table='tables.id')}) FROM tables ORDER BY created"
    )
    for rowid, *row, appended in rows:
        # A row without a usable id is set aside (and reported) under its row number.
        table_id = row[0] if isinstance(row[0], str) and row[0] else f"(no id, row {rowid})"
        if table_id in aside:
            continue
        try:
            read = record_from(tuple(row))
        except Damaged as exc:
            damaged[table_id] = str(exc)
            continue
        active_at(read, appended)
        if keep is None or keep(read):
            records[table_id] = read
    # In rowid order, which is the order of appending: each table's seq order. Only
    # some tables kept (a start-up loading what is live): each one's by its key, not a
    # scan of every table's events.
    events: Iterable[Any] = (
        db.execute("SELECT table_id, seq, entry, at FROM events ORDER BY rowid")
        if keep is None
        else (
            row
            for kept in list(records)
            for row in db.execute(
                "SELECT table_id, seq, entry, at FROM events WHERE table_id = ? ORDER BY rowid",
                (kept,),
            )
        )
    )
    for table_id, seq, entry, at in events:
        record = records.get(table_id)
        if record is None:
            continue
        active_at(record, at)
        try:
            if isinstance(seq, int) and not isinstance(seq, bool) and seq < record.base:
                continue  # compacted, not yet dropped
            add_entry(record, seq, entry)
        except Damaged as exc:
            damaged[table_id] = str(exc)
            del records[table_id]
    for table_id, record in list(records.items()):
        try:
            check_log(record)
        except Damaged as exc:
            damaged[table_id] = str(exc)
            del records[table_id]
    # Hand records kept for compacted hands: each must be a JSON object (checked in SQL).
    bad_hands = db.execute(
        "SELECT table_id, number FROM hands WHERE CASE"
        " WHEN typeof(record) = 'text' AND json_valid(record) THEN json_type(record) != 'object'"
        " ELSE 1 END"
    )
    for table_id, number in bad_hands:
        if table_id in records:
            damaged[table_id] = f"hand {number}: not a JSON object"
            del records[table_id]
    return list(records.values()), damaged


def set_aside_in(db: sqlite3.Connection) -> dict[str, str]:
    """The tables set aside, with why (none in a file that has no such list yet)."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'set_aside'").fetchone() is None:
        return {}
    return dict(db.execute("SELECT id, reason FROM set_aside ORDER BY at"))


def open_for_reading(path: Path) -> sqlite3.Connection:
    """A connection that changes nothing: refuses a newer file, never migrates."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such data file")
    refuse_unusable(path)
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    (version,) = db.execute("PRAGMA user_version").fetchone()
    try:
        refuse_newer(path, int(version))
        if int(version) < SCHEMA_VERSION:
            raise OlderSchema(f"{path}: older store schema {version}, which the server migrates")
    except (NewerSchema, OlderSchema):
        db.close()
        raise
    return db


class FileInUse(RuntimeError):
    """Another process holds the data file: a server, or a `migrate` reading it."""


def lock_path(path: Path) -> Path:
    """The lock file beside the data file (`tables.sqlite3.lock`), kept between runs."""
    return path.with_name(path.name + ".lock")


class DataFileLock:
    """One process per data file: an exclusive `flock` on the lock file beside it,
    held while the store is open. Two servers on one file each appended their own
    moves under the same seqs and forked the table's log.

    The kernel lets go of a `flock` when its process ends however it ends (`kill -9`
    included): a lock file left behind, with a dead process's id in it, never blocks
    a start. The lock file is not the SQLite file, whose own locks SQLite takes
    (POSIX locks, which closing any descriptor of the file would release), and it is
    never removed (removing it would let two processes lock two different files).
    The descriptor is not inherited across `exec` (Python's default); the computer's
    worker processes are spawned, so none outlives the server holding it.
    """

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, path: Path, doing: str = "serves", advice: str = "") -> DataFileLock:
        """The lock, or FileInUse naming the process that holds it (and `advice`, what
        to do; by default a server's).

        `doing` goes into the lock file after the process id, for the message another
        process shows ("serves", "migrates")."""
        target = lock_path(path)
        fd = os.open(target, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise FileInUse(in_use_message(path, holder, advice)) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {doing}\n".encode())
        return cls(path, fd)

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # the lock goes with it; the file stays

    def __enter__(self) -> DataFileLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 100, 0).decode(errors="replace").split()
    except OSError:
        return ""
    return " ".join(text[:2])


SERVER_ADVICE = (
    "one server per data file. Stop it first, or give this one its own"
    " HOLLYWOOD_GIN_DATA_FILE (several workers share PostgreSQL: HOLLYWOOD_GIN_DATABASE_URL)"
)


def in_use_message(path: Path, holder: str, advice: str = "") -> str:
    """One line: who holds the data file (from the lock file: "pid doing") and what to do."""
    pid, _, doing = holder.partition(" ")
    who = f"process {pid}" if pid.isdigit() else "another process"
    what = "hollywood-gin migrate" if doing == "migrates" else "a running Hollywood Gin server"
    return f"{path} is in use by {what} ({who}): {advice or SERVER_ADVICE}"


def file_holder(path: Path) -> str | None:
    """The message another process's hold on the data file gives, or None (no lock
    file, or nobody holds it). Changes nothing: a probe takes the lock and lets go."""
    try:
        fd = os.open(lock_path(path), os.O_RDWR)
    except OSError:  # none yet, or not ours to open: the store's own lock says more
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return in_use_message(path, _holder(fd))
    finally:
        os.close(fd)  # and with it the probe's lock, if it got it
    return None


def private_file(path: Path) -> None:
    """Make `path` (and its -wal and -shm) readable by this user only: the file holds
    every running hand's deck. Called right after SQLite opens (so creates) it, before
    anything is written; SQLite gives the -wal and -shm it makes the file's mode. A
    file of an earlier version is set so too. (The server's umask, 077, makes them so
    from the start.)
    """
    for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError, PermissionError):
            if part.stat().st_mode & 0o077:
                part.chmod(0o600)


def backup(source: Path, target: Path) -> None:
    """A consistent copy of the data file while the server writes to it.

    SQLite's online backup API copies the pages inside one read transaction, so the
    copy is the file as of one commit, whatever the server does meanwhile (WAL mode
    lets it go on writing). Written beside the target, checked, then renamed onto it:
    a target that exists is either the old backup or the new one, never half of one.
    """
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such data file")
    refuse_unusable(source)
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    src = sqlite3.connect(source)
    try:
        dst = sqlite3.connect(partial)
        private_file(partial)  # before a page of the copy is written
        try:
            src.backup(dst)
            # A single file, with no -wal beside it, to copy or restore by itself.
            dst.execute("PRAGMA journal_mode=DELETE")
            (verdict,) = dst.execute("PRAGMA integrity_check").fetchone()
            if verdict != "ok":
                raise sqlite3.DatabaseError(f"the copy failed its integrity check: {verdict}")
        finally:
            dst.close()
    finally:
        src.close()
    with partial.open("rb+") as f:
        os.fsync(f.fileno())
    partial.replace(target)
