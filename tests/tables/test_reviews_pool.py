"""The coach's scheduler (`tables/reviews.Reviews`) in process, its pool replaced by
one thread so the order is the scheduler's alone: round robin between addresses and
tables, the first asked first among equals."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from hollywood_gin.bots.coach import CoachPolicy
from hollywood_gin.tables.reviews import Progress, Reviews
from tests.bots.coach_hands import MELD_BREAK, UNDERCUT
from tests.tables.memory_store import MemoryStore

pytestmark = pytest.mark.anyio


async def until_reviewed(reviews: Reviews, key: tuple[str, dict[str, Any], int, str]) -> None:
    table, record, seat, address = key
    while isinstance(await reviews.review(table, record, seat, address), Progress):
        await asyncio.sleep(0.005)


async def test_a_later_address_is_served_beside_an_earlier_one_not_behind_it() -> None:
    reviews = Reviews(MemoryStore(), budget=CoachPolicy(samples=20, batch=20), processes=1)
    pool = ThreadPoolExecutor(1)
    reviews._pool = pool  # one worker, in process: the order is the scheduler's
    finished: list[str] = []

    async def ask(name: str, table: str, record: dict[str, Any], seat: int, address: str) -> None:
        await until_reviewed(reviews, (table, record, seat, address))
        finished.append(name)

    try:
        # The attacker asks first for two long reviews (19 and 21 decisions) ...
        first = [
            asyncio.create_task(ask("attacker 0", "a", UNDERCUT, 0, "10.0.0.2")),
            asyncio.create_task(ask("attacker 1", "a", UNDERCUT, 1, "10.0.0.2")),
        ]
        while reviews.under_way() < 2:
            await asyncio.sleep(0.001)
        # ... and a third is refused at once: its address has two under way.
        with pytest.raises(Exception, match="address"):
            await reviews.review("b", MELD_BREAK, 1, "10.0.0.2")
        # The victim's short one (3 decisions), asked later, takes turns with them.
        await ask("victim", "v", MELD_BREAK, 1, "10.0.0.1")
        await asyncio.gather(*first)
    finally:
        await reviews.close()
        pool.shutdown()
    assert finished[0] == "victim", finished
    assert reviews.computed == 3
