"""WAL checkpoints of the SQLite store, beside its commits, never inside one.

Under synchronous=NORMAL the checkpoints are the only fsyncs. Inside a commit
(SQLite's automatic checkpoint) one took up to 480 ms here and held up every move
behind it (docs/performance.md): so the store turns the automatic one off and a
`Checkpointer` runs them every few seconds on a connection and a thread of its own.

A checkpoint does two things: it syncs the WAL (what a power cut keeps) and copies
its pages into the file (which only bounds the WAL's size). The sync goes every
`sync_seconds` as before; the copy less often, so that a page written by several
commits meanwhile (a leaf of the events' key holds many tables) is copied once: at
2,900 appends/s over 8,000 tables, 6 µs of CPU an append at every second, 3 at
every five (docs/research/performance-log.md "The store at human pace").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hollywood_gin.tables.store import FailureEpisode

log = logging.getLogger("hollywood_gin.store")


class Checkpointer:
    """A PASSIVE checkpoint of the file every `seconds` while started, and between
    them the WAL synced every `sync_seconds` (None: as often as the checkpoints)
    when `commits` (the store's count of them) moved since the last sync."""

    def __init__(
        self,
        path: Path,
        seconds: float,
        sync_seconds: float | None = None,
        commits: Callable[[], int] | None = None,
    ) -> None:
        self.path = path
        self.seconds = seconds
        self.sync_seconds = seconds if sync_seconds is None else min(sync_seconds, seconds)
        self._commits = commits
        self._synced = -1  # the commit count when the WAL was last synced (or checkpointed)
        self._wal = path.with_name(path.name + "-wal")
        self._wal_fd: int | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-wal")
        self._db: sqlite3.Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self.checkpoints = 0
        self.syncs = 0
        self.episode = FailureEpisode(log, "WAL checkpoint")

    def connect(self) -> None:
        """Open its connection (the store has made the file and set WAL mode)."""
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._every())

    def checkpoint(self) -> tuple[int, int, int]:
        """PASSIVE: copies what it can without waiting for, or blocking, the writer.
        SQLite's (busy, WAL frames, frames copied); on the checkpointer's thread."""
        if self._db is None:
            return (0, 0, 0)
        commits = self._commit_count()
        busy, log_frames, done = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.checkpoints += 1
        self._synced = commits  # SQLite synced the WAL before copying from it
        return int(busy), int(log_frames), int(done)

    def _commit_count(self) -> int:
        return -1 if self._commits is None else self._commits()

    def sync(self) -> bool:
        """fdatasync the WAL if a commit came since it was last synced (on the
        checkpointer's thread): what the checkpoint's own sync of it did, without the
        copy. True: synced."""
        commits = self._commit_count()  # before the sync: every commit so far is in it
        if commits == self._synced:
            return False
        try:
            now = os.stat(self._wal)
        except FileNotFoundError:  # no WAL yet (or the file is closed): nothing to keep
            self._close_wal()
            return False
        if self._wal_fd is not None and os.fstat(self._wal_fd).st_ino != now.st_ino:
            self._close_wal()  # a WAL made anew: sync the file there now
        if self._wal_fd is None:
            self._wal_fd = os.open(self._wal, os.O_RDONLY | os.O_CLOEXEC)
        os.fdatasync(self._wal_fd)
        self._synced = commits
        self.syncs += 1
        return True

    def _close_wal(self) -> None:
        fd, self._wal_fd = self._wal_fd, None
        if fd is not None:
            os.close(fd)

    async def checkpoint_now(self) -> tuple[int, int, int]:
        """One checkpoint on the checkpointer's thread, now."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, self.checkpoint)

    async def _every(self) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + self.seconds
        while True:
            await asyncio.sleep(self.sync_seconds)
            work: Callable[[], object] = self.sync
            if loop.time() >= due - 0.001:  # (a timer's millisecond early is on time)
                due += self.seconds
                work = self.checkpoint
            try:
                await loop.run_in_executor(self._thread, work)
            except (sqlite3.Error, OSError) as exc:  # the next one does what this could not
                self.episode.failed(exc)
            else:
                self.episode.succeeded()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._db is not None:
            await asyncio.get_running_loop().run_in_executor(self._thread, self._db.close)
            self._db = None
        # On its thread, after any sync still running there; before the store's last
        # connection deletes the WAL.
        await asyncio.get_running_loop().run_in_executor(self._thread, self._close_wal)
        self._thread.shutdown(wait=True)
