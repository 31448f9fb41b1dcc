"""The hand-off of a store's writes: one thread for its calls, and group commit.

`Worker` runs blocking calls (SQLite's) on one thread of their own, in order,
each answered on its caller's event loop. `GroupCommit` gathers the writes that
arrive while a commit is under way and commits them together in the next one:
each caller still returns only once the commit holding its write is done. Neither
knows SQL: the store gives `GroupCommit` the function that commits a batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
J = TypeVar("J")

# One outcome a write: None (committed) or what made it fail.
Outcomes = list[Exception | None]


def _succeed(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _fail(future: asyncio.Future[Any], exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)


class Worker:
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


class GroupCommit(Generic[J]):
    """Writes given while a commit is under way go together into the next one.

    `commit` takes a batch of writes (in the order given) and returns one outcome
    per write: None, or the exception that write's caller gets. If `commit` itself
    raises, every write of the batch fails with that exception. One batch commits
    at a time.
    """

    def __init__(self, commit: Callable[[list[J]], Awaitable[Outcomes]]) -> None:
        self._commit = commit
        self._pending: list[tuple[J, asyncio.Future[None]]] = []
        self._flushing = False
        self._flush_task: asyncio.Task[None] | None = None

    async def write(self, job: J) -> None:
        """Queue a write; return when the commit holding it is done (or raise its failure)."""
        # One look-up of the loop: each costs a getpid() system call (CPython 3.11
        # checks the process), a few % of the server's time at full load.
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._pending.append((job, future))
        if not self._flushing:
            self._flushing = True
            # Kept: the loop holds only a weak reference to a task.
            self._flush_task = loop.create_task(self._flush())
        await future

    @property
    def idle(self) -> bool:
        """No write waiting and no commit under way."""
        return not (self._flushing or self._pending)

    async def drain(self) -> None:
        """Return once every write given so far has been committed (or failed)."""
        while not self.idle:
            await asyncio.sleep(0.005)

    async def _flush(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                try:
                    outcomes = await self._commit([job for job, _ in batch])
                except Exception as exc:  # the whole commit failed: tell every waiter
                    outcomes = [exc] * len(batch)
                for (_, future), outcome in zip(batch, outcomes, strict=True):
                    if future.done():
                        continue
                    if outcome is None:
                        future.set_result(None)
                    else:
                        future.set_exception(outcome)
        finally:
            self._flushing = False
