"""`TableLock`: asyncio's lock with a shorter way in and out while nobody waits."""

from __future__ import annotations

import asyncio

import pytest

from hollywood_gin.tables.table import TableLock


@pytest.mark.anyio
async def test_waiters_get_the_lock_in_turn() -> None:
    lock = TableLock()
    order: list[str] = []

    async def hold(name: str) -> None:
        async with lock:
            order.append(f"{name} in")
            await asyncio.sleep(0)
            order.append(f"{name} out")

    await asyncio.wait_for(asyncio.gather(hold("a"), hold("b"), hold("c")), 5)
    assert order == ["a in", "a out", "b in", "b out", "c in", "c out"]
    assert not lock.locked()


@pytest.mark.anyio
async def test_released_on_an_exception_and_taken_again() -> None:
    lock = TableLock()
    with pytest.raises(ValueError):
        async with lock:
            assert lock.locked()
            raise ValueError("inside")
    assert not lock.locked()
    async with lock:
        assert lock.locked()


@pytest.mark.anyio
async def test_a_cancelled_waiter_leaves_the_lock_to_the_next() -> None:
    lock = TableLock()
    got: list[str] = []

    async def wait(name: str) -> None:
        async with lock:
            got.append(name)

    async with lock:
        first = asyncio.ensure_future(wait("first"))
        second = asyncio.ensure_future(wait("second"))
        await asyncio.sleep(0)
        first.cancel()
        await asyncio.sleep(0)
    await asyncio.wait_for(second, 5)
    assert got == ["second"]
    assert not lock.locked()


@pytest.mark.anyio
async def test_not_taken_not_given_back() -> None:
    lock = TableLock()
    with pytest.raises(RuntimeError):
        await lock.__aexit__(None, None, None)
