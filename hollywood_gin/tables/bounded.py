"""A store call awaited for a bounded time, then given up without waiting for its end
(the shared store's ownership: `ownership.Shared`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

log = logging.getLogger("hollywood_gin.tables")

T = TypeVar("T")


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a given-up store call's outcome as seen (it concerns nobody now)."""
    if not task.cancelled():
        task.exception()


async def within(call: Awaitable[T], seconds: float) -> T:
    """Await a store call for at most `seconds`, then give it up without waiting for it.

    `asyncio.wait_for` cancels the call and then waits for it to end, and asyncpg's
    clean-up of a query cut off by a database restart (a rollback waiting for the
    answer to a cancel request that never comes) can wait for ever: one table of the
    outage test stayed locked so, its moves unanswered, never settled
    (docs/scale-out.md "What happens when…", PostgreSQL is away). A
    call given up and ending later changes nothing that matters: its table is
    doubtful, so its next write claims it again first. The cancellation reaches the
    call's connection, which the shared store then closes and replaces
    (`postgres_pool`): a call given up never keeps one.
    """
    task = asyncio.ensure_future(call)
    if not task.done():
        # What `asyncio.wait({task}, timeout=seconds)` does, without its set, its inner
        # coroutine and its generic bookkeeping: 58,000 instructions per append in the
        # worker, more than the commit's own statement (docs/performance.md).
        loop = task.get_loop()
        woken = loop.create_future()

        def wake(_: object = None) -> None:
            if not woken.done():
                woken.set_result(None)

        timer = loop.call_later(seconds, wake)
        task.add_done_callback(wake)
        try:
            await woken
        except BaseException:  # the caller is cancelled: so is the call, not waited on
            timer.cancel()
            task.remove_done_callback(wake)
            _give_up(task)
            raise
        timer.cancel()
        if not task.done():
            task.remove_done_callback(wake)
            _give_up(task)
            log.warning("a store call given up after %.0f s", seconds)
            raise TimeoutError(f"the store did not answer within {seconds:.0f} s")
    return task.result()


def _give_up(task: asyncio.Future[Any]) -> None:
    task.cancel()
    task.add_done_callback(_retrieve)
