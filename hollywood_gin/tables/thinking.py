"""The computer opponent thinks in other processes, never in the server's.

A hard computer searches every decision (a fixed number of playouts, about
0.1-0.5 s of CPU on an idle core, during the bot's delay). In the server's
process that CPU (and the GIL) is taken from every table's moves: 40 hard
computer tables once pushed another table's moves to 202 ms median. Here each
decision runs in a small pool of worker processes (the setting
`computer_processes`, default 1) at a lower scheduling priority, so a crowd of
computer tables queues for the pool and makes the computer slower, never the
people's moves.

A `Bot` keeps its memory in the server (it observes every view there, which is
cheap); each decision sends the bot and the view to a worker and takes back the
chosen action and the bot's random state, so a replayed seed decides alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from hollywood_gin.bots import Bot
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.views import View

log = logging.getLogger("hollywood_gin.tables")

T = TypeVar("T")

# Workers yield the CPU to the server's process whenever both want it.
WORKER_NICENESS = 10


# How often a worker looks whether the server that started it is still there.
PARENT_WATCH_SECONDS = 1.0


def _lower_priority() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WORKER_NICENESS)


def _watch_parent(parent: int, interval: float = PARENT_WATCH_SECONDS) -> None:
    """End this worker when the server that started it is gone (`kill -9` leaves no
    time to stop the pool): it would wait on its queue forever, and keep
    multiprocessing's resource tracker alive with it."""
    while True:
        time.sleep(interval)
        if os.getppid() != parent:
            os._exit(0)


def start_worker() -> None:
    """Each worker's initializer (the computer's and the coach's, `reviews.Reviews`): a
    lower priority, and an eye on its parent."""
    _lower_priority()
    parent = os.getppid()
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def worker_pool(processes: int) -> ProcessPoolExecutor:
    """Worker processes for the computer's and the coach's thinking, each started by
    `start_worker`. `spawn`: the server runs threads (the store's), which `fork` must
    not copy."""
    return ProcessPoolExecutor(
        max_workers=processes,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=start_worker,
    )


def _think(bot: Bot, view: View) -> tuple[Action, object, int]:
    """In a worker: the bot's choice, its random state afterwards, and this process's id."""
    action = bot.choose(view)
    return action, bot.rng.getstate(), os.getpid()


def _run(fn: Callable[..., T], *args: Any) -> tuple[T, int]:
    """In a worker: `fn(*args)`, and this process's id."""
    return fn(*args), os.getpid()


class Thinkers:
    """A pool of worker processes for the computer's decisions; one per registry."""

    def __init__(self, processes: int = 1) -> None:
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        # The worker processes that have decided something (tests, benchmarks).
        self.pids: set[int] = set()

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = worker_pool(self.processes)
        return self._pool

    async def choose(self, bot: Bot, view: View) -> Action:
        """One of `view.legal`, decided in a worker; the bot's rng moves on."""
        loop = asyncio.get_running_loop()
        try:
            action, state, pid = await loop.run_in_executor(self._executor(), _think, bot, view)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool for the next move.
            log.error("computer worker process died; starting a new one")
            self._discard_pool()
            raise
        bot.rng.setstate(state)  # type: ignore[arg-type]
        self.pids.add(pid)
        return action

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in a worker (a hint: `Computer.hint`), between the computer's moves."""
        loop = asyncio.get_running_loop()
        try:
            result, pid = await loop.run_in_executor(self._executor(), _run, fn, *args)
        except BrokenProcessPool:
            log.error("computer worker process died; starting a new one")
            self._discard_pool()
            raise
        self.pids.add(pid)
        return result

    def _discard_pool(self, wait: bool = False) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers; waits for a decision under way (at most its think time)."""
        self._discard_pool(wait=True)
