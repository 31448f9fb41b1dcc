"""WAL checkpoints of the SQLite store, beside its commits, never inside one.

Under synchronous=NORMAL the checkpoints are the only fsyncs. Inside a commit
(SQLite's automatic checkpoint) one took up to 480 ms here and held up every move
behind it (docs/performance.md): so the store turns the automatic one off and a
`Checkpointer` runs them every few seconds on a connection and a thread of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hollywood_gin.tables.store import FailureEpisode

log = logging.getLogger("hollywood_gin.store")


class Checkpointer:
    """A PASSIVE checkpoint of the file every `seconds` while started."""

    def __init__(self, path: Path, seconds: float) -> None:
        self.path = path
        self.seconds = seconds
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-wal")
        self._db: sqlite3.Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self.checkpoints = 0
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
        busy, log_frames, done = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.checkpoints += 1
        return int(busy), int(log_frames), int(done)

    async def checkpoint_now(self) -> tuple[int, int, int]:
        """One checkpoint on the checkpointer's thread, now."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, self.checkpoint)

    async def _every(self) -> None:
        while True:
            await asyncio.sleep(self.seconds)
            try:
                await self.checkpoint_now()
            except sqlite3.Error as exc:  # the next one copies what this one could not
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
        self._thread.shutdown(wait=True)
