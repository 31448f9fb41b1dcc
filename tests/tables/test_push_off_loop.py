"""Web Push's sending runs off the event loop
(docs/protocol-guide.md "Notifications"): each batch of messages is encrypted,
signed (one VAPID JWT per push service) and posted by a worker process, so a burst
of pushes never holds up a move. A push service stand-in on loopback
(`tests.pushservice`) decrypts every message with the subscriber's keys."""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest

from hollywood_gin.tables import push
from hollywood_gin.tables.push import Pushes, VapidKeys, new_private_key
from tests.pushservice import PushService, Subscriber

pytestmark = pytest.mark.anyio


SUBJECT = "mailto:test@example.org"


def seats_of(subscribers: list[Subscriber], origin: str) -> dict[str, Any]:
    """A table a subscriber, its first seat subscribed (what `Pushes` reads of a table)."""
    return {
        f"t{n}": SimpleNamespace(
            id=f"t{n}",
            seats=[
                SimpleNamespace(name="Ann", push=[s.stored(origin)]),
                SimpleNamespace(name="Bob"),
            ],
        )
        for n, s in enumerate(subscribers)
    }


async def pushed_twice(pushes: Pushes, tables: dict[str, Any]) -> None:
    """A push for every table, then a second round for five of them."""
    pushes.start()
    try:
        for table in tables.values():
            pushes.notify(table, 0, "your_move")
        while pushes.sent + pushes.failed < len(tables):
            await asyncio.sleep(0.05)
        for table in list(tables.values())[:5]:  # a second round: the JWT is kept
            pushes.notify(table, 0, "next_hand")
        while pushes.sent + pushes.failed < len(tables) + 5:
            await asyncio.sleep(0.05)
    finally:
        await pushes.close()


def opened(service: PushService, keys: VapidKeys) -> list[str]:
    """Each request's one JWT, and each message opened with its subscriber's keys."""
    got = service.taken()
    (auth,) = {r["headers"]["Authorization"] for r in got}
    assert auth.startswith("vapid t=") and auth.endswith(f"k={keys.key}")
    return [service.open(r, keys.key)["kind"] for r in got]


async def test_sealed_signed_and_posted_by_a_worker_process() -> None:
    service = PushService(SUBJECT)
    tables = seats_of([service.subscriber(f"/p/{n}") for n in range(40)], service.origin)
    registry: Any = SimpleNamespace(hub=None, writer=None, get=tables.get)
    keys = VapidKeys.from_private(new_private_key(), SUBJECT)
    pushes = Pushes(registry, keys)
    try:
        await pushed_twice(pushes, tables)
    finally:
        service.close()
    assert pushes.sent == len(tables) + 5 and pushes.failed == 0
    # Sealed in another process, never this one (the event loop's).
    assert pushes.pids and os.getpid() not in pushes.pids
    # One JWT for the one push service, signed in the worker and reused by every
    # message, the second round's too; the loop's process signed nothing.
    assert not keys.signed
    assert sorted(opened(service, keys)) == ["next_hand"] * 5 + ["your_move"] * len(tables)


async def test_inline_posts_on_the_loop_with_the_workers_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`inline` (benchmarks compare it with the worker) seals and signs on the loop and
    posts with the worker's own `post`: one kept aiohttp session, one way to post."""
    sessions: list[object] = []
    worker_post = push.post

    async def counted(session: Any, *args: Any) -> int:
        sessions.append(session)
        return await worker_post(session, *args)

    monkeypatch.setattr(push, "post", counted)
    service = PushService(SUBJECT)
    tables = seats_of([service.subscriber(f"/p/{n}") for n in range(12)], service.origin)
    registry: Any = SimpleNamespace(hub=None, writer=None, get=tables.get)
    keys = VapidKeys.from_private(new_private_key(), SUBJECT)
    pushes = Pushes(registry, keys, inline=True)
    try:
        await pushed_twice(pushes, tables)
    finally:
        service.close()
    assert pushes.sent == len(tables) + 5 and pushes.failed == 0
    assert not pushes.pids and list(keys.signed) == [service.origin]  # all on the loop
    assert len(sessions) == len(tables) + 5 and len(set(map(id, sessions))) == 1
    assert pushes.session is None  # closed with the pushes
    assert sorted(opened(service, keys)) == ["next_hand"] * 5 + ["your_move"] * len(tables)


async def test_a_small_batch_waits_a_moment_for_more(monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages queued just after the first go to the worker with it, in one batch
    (a hand-over costs the worker about as much as sealing a message)."""
    batches: list[int] = []

    def deliver(_private: str, _subject: str, batch: list[Any], _now: float) -> Any:
        batches.append(len(batch))
        return [201] * len(batch), os.getpid()

    monkeypatch.setattr(push, "deliver", deliver)
    monkeypatch.setattr(push, "GATHER_SECONDS", 0.2)
    tables = {
        f"t{n}": SimpleNamespace(
            id=f"t{n}",
            seats=[
                SimpleNamespace(
                    name="Ann", push=[{"endpoint": f"http://x/{n}", "p256dh": "", "auth": ""}]
                ),
                SimpleNamespace(name="Bob"),
            ],
        )
        for n in range(3)
    }
    registry: Any = SimpleNamespace(hub=None, writer=None, get=tables.get)
    keys = VapidKeys.from_private(new_private_key(), "mailto:test@example.org")
    pushes = Pushes(registry, keys, executor=ThreadPoolExecutor(1))
    pushes.start()
    try:
        pushes.notify(tables["t0"], 0, "your_move")  # type: ignore[arg-type]
        for _ in range(5):
            await asyncio.sleep(0)  # the deliverer takes the first and waits
        assert pushes.queue.empty()
        for name in ("t1", "t2"):
            pushes.notify(tables[name], 0, "your_move")  # type: ignore[arg-type]
        while pushes.sent < 3:
            await asyncio.sleep(0.01)
    finally:
        await pushes.close()
    assert batches == [3]
