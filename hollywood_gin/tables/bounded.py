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
    outage test stayed locked so, its moves unanswered, never settled (issue 30). A
    call given up and ending later changes nothing that matters: its table is
    doubtful, so its next write claims it again first. The cancellation reaches the
    call's connection, which the shared store then closes and replaces
    (`postgres_pool`): a call given up never keeps one.
    """
    task = asyncio.ensure_future(call)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except BaseException:  # the caller is cancelled: so is the call, not waited on
        task.cancel()
        task.add_done_callback(_retrieve)
        raise
    if task in done:
        return task.result()
    task.cancel()
    task.add_done_callback(_retrieve)
    log.warning("a store call given up after %.0f s", seconds)
    raise TimeoutError(f"the store did not answer within {seconds:.0f} s")
