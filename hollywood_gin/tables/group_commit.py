"""The hand-off of a store's writes: one thread for its calls, and group commit.

`Worker` runs blocking calls (SQLite's) on one thread of their own, in order,
each answered on its caller's event loop. `GroupCommit` gathers the writes that
arrive while a commit is under way (and, with `gather`, until the oldest has waited
that long, while others do join it) and commits them together in the next one: each
caller still returns only once the commit holding its write is done. Neither
knows SQL: the store gives `GroupCommit` the function that commits a batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import queue
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
J = TypeVar("J")

# Gathered batches of one write in a row after which a write at an idle moment goes
# at once (`GroupCommit`): at 1,000 tables (~360 moves/s, 5 ms) a batch is alone one
# time in six, three in a row one in 250; one client playing alone: every batch.
LONE = 3

# One outcome a write: None (committed) or what made it fail.
Outcomes = list[Exception | None]
# Called on the event loop with a batch's outcomes, or with what failed the whole commit.
Answer = Callable[[Outcomes | BaseException], None]


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
        # Each call: the function, then a future to answer or a function to call with
        # what it returned or raised, and the loop to answer on.
        self._calls: queue.SimpleQueue[
            tuple[
                Callable[[], Any],
                asyncio.Future[Any] | Callable[[Any], None],
                asyncio.AbstractEventLoop,
            ]
            | None
        ] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        # Calls done (read from any thread: whatever a call wrote is written before
        # the count moves; the WAL's sync between checkpoints asks it).
        self.calls = 0

    def run(self, fn: Callable[[], T]) -> asyncio.Future[T]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._put(fn, future, loop)
        return future

    def submit(
        self, fn: Callable[[], Any], answer: Callable[[Any], None], loop: asyncio.AbstractEventLoop
    ) -> None:
        """Run `fn` on the thread, then `answer` on `loop` (the caller's) with what it
        returned or the exception it raised (no future: `GroupCommit`'s hand-off)."""
        self._put(fn, answer, loop)

    def _put(
        self,
        fn: Callable[[], Any],
        target: asyncio.Future[Any] | Callable[[Any], None],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        if self._thread is None:
            # A daemon: a process ending without `close` loses no acknowledged write
            # (a write is acknowledged only once its commit is done).
            self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
            self._thread.start()
        self._calls.put((fn, target, loop))

    def _serve(self) -> None:
        while True:
            call = self._calls.get()
            if call is None:
                return
            fn, target, loop = call
            failed = False
            try:
                outcome = fn()
            except BaseException as exc:  # handed to the caller, as an executor does
                failed, outcome = True, exc
            self.calls += 1
            with contextlib.suppress(RuntimeError):  # the caller's loop is closed
                if isinstance(target, asyncio.Future):
                    loop.call_soon_threadsafe(_fail if failed else _succeed, target, outcome)
                else:
                    loop.call_soon_threadsafe(target, outcome)
            del call, fn, target, outcome

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

    `submit` instead of `commit`: the same, handed over without an awaitable. It is
    given the batch, a function to call on the event loop with the outcomes (or with
    what made the whole commit fail) and that loop: `Worker.submit` does that, so a
    commit costs the loop no task and no future of its own, only each caller's future.

    `gather` (seconds): no batch is committed before its oldest write has waited
    that long for others to join it. At human pace a commit is over long before the
    next move, so each move was a batch of its own (or of the one or two that came
    during the round trip of the last): a hand-off to the thread and an answer back,
    a wake-up of each, per move. Writes that waited during a commit longer than that
    go next at once.

    The gathering is only worth its timer while others do join: once `LONE` gathered
    batches in a row hold one write each (the writes come one at a time, each after
    the last one's commit: a quiet server, one client), a write at an idle moment
    goes at once, as without `gather`. A write that comes while a commit is under
    way (another writer, so others may join) starts the gathering again, that write
    first.
    """

    def __init__(
        self,
        commit: Callable[[list[J]], Awaitable[Outcomes]] | None = None,
        *,
        submit: Callable[[list[J], Answer, asyncio.AbstractEventLoop], None] | None = None,
        gather: float = 0.0,
    ) -> None:
        if (commit is None) == (submit is None):
            raise TypeError("GroupCommit takes `commit` or `submit`")
        self._commit = commit
        self._submit = submit
        self.gather = gather
        # When the oldest write waiting came (the loop's clock; with `gather` only).
        self._oldest = 0.0
        # The writes waiting for the next commit, and their callers' futures.
        self._jobs: list[J] = []
        self._futures: list[asyncio.Future[None]] = []
        self._flushing = False
        # Whether a batch waits `gather` (off after LONE lone batches in a row, on again
        # at a write during a commit), those lone batches, and a batch handed over.
        self._gathering = gather > 0
        self._lone = 0
        self._handed = False
        # The loop of the commits under way (None when idle): a write while they run
        # needs no look-up of it (each a getpid() system call on CPython 3.11).
        self._loop: asyncio.AbstractEventLoop | None = None
        self._flush_task: asyncio.Task[None] | None = None

    def write(self, job: J) -> asyncio.Future[None]:
        """Queue a write; the future is done when the commit holding it is (or fails with
        its failure). A future, not a coroutine: one frame fewer per write. Cancelling
        it is a caller giving up its wait; the write is still committed."""
        loop = self._loop or asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        if not self._jobs:
            if self._handed and not self._gathering and self.gather > 0:
                # A write during a commit: another writer, so others may join (the
                # write waits for the commit's answer anyway).
                self._gathering = True
                self._lone = 0
            if self._gathering:
                self._oldest = loop.time()
        self._jobs.append(job)
        self._futures.append(future)
        if not self._flushing:
            self._flushing = True
            self._loop = loop
            # Next turn of the loop (or `gather` from now): the writes given until then
            # go into this batch.
            if self._submit is not None:
                if self._gathering:
                    loop.call_later(self.gather, self._next)
                else:
                    loop.call_soon(self._next)
            else:  # kept: the loop holds only a weak reference to a task
                self._flush_task = loop.create_task(self._flush())
        return future

    @property
    def idle(self) -> bool:
        """No write waiting and no commit under way."""
        return not (self._flushing or self._jobs)

    async def drain(self) -> None:
        """Return once every write given so far has been committed (or failed)."""
        while not self.idle:
            await asyncio.sleep(0.005)

    def _take(self) -> tuple[list[J], list[asyncio.Future[None]]]:
        jobs, futures = self._jobs, self._futures
        self._jobs, self._futures = [], []
        return jobs, futures

    def _next(self) -> None:
        """On the loop (`submit`): hand over the writes waiting, or go idle if none."""
        if not self._jobs:
            self._idle()
            return
        assert self._loop is not None
        if self._gathering:
            due = self._oldest + self.gather
            # (a timer's own lateness or earliness of a millisecond is no reason to wait)
            if due - self._loop.time() > 0.001:
                self._loop.call_at(due, self._next)
                return
            self._tally()
        jobs, futures = self._take()
        answer = functools.partial(self._committed, futures)
        assert self._submit is not None and self._loop is not None
        self._handed = True
        try:
            self._submit(jobs, answer, self._loop)
        except Exception as exc:  # not even handed over: the whole batch fails
            self._loop.call_soon(answer, exc)

    async def _flush(self) -> None:
        """A task (`commit`): commit the writes waiting until there are none."""
        try:
            while self._jobs:
                if self._gathering:
                    loop = asyncio.get_running_loop()
                    await asyncio.sleep(max(0.0, self._oldest + self.gather - loop.time()))
                    self._tally()
                jobs, futures = self._take()
                assert self._commit is not None
                outcomes: Outcomes | BaseException
                self._handed = True
                try:
                    outcomes = await self._commit(jobs)
                except Exception as exc:  # the whole commit failed: tell every waiter
                    outcomes = exc
                self._handed = False
                _answer(futures, outcomes)
        finally:
            self._idle()

    def _tally(self) -> None:
        """A gathered batch is taken: after LONE of one write in a row, none waits."""
        if len(self._jobs) > 1:
            self._lone = 0
            return
        self._lone += 1
        if self._lone >= LONE:
            self._gathering = False

    def _idle(self) -> None:
        self._handed = False
        self._flushing = False
        self._loop = None
        self._flush_task = None

    def _committed(
        self, futures: list[asyncio.Future[None]], outcomes: Outcomes | BaseException
    ) -> None:
        """On the loop (`submit`): the batch's outcomes told; then the next batch."""
        self._handed = False
        try:
            _answer(futures, outcomes)
        finally:
            self._next()


def _answer(futures: list[asyncio.Future[None]], outcomes: Outcomes | BaseException) -> None:
    """Each write of a batch hears its outcome (all the whole commit's failure)."""
    if isinstance(outcomes, BaseException):
        outcomes = [_failure(outcomes)] * len(futures)
    for future, outcome in zip(futures, outcomes, strict=True):
        if future.done():
            continue
        if outcome is None:
            future.set_result(None)
        else:
            future.set_exception(outcome)


def _failure(exc: BaseException) -> Exception:
    """What each write hears of a whole commit's failure (an Exception, as before)."""
    return exc if isinstance(exc, Exception) else RuntimeError(f"the commit failed: {exc!r}")
