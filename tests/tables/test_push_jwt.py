"""The VAPID JWT (RFC 8292) is signed once per push service and reused until it nears
its expiry, then signed anew: through `Pushes` and the worker's `deliver`, with the
pushes' clock moved by the test (no sleeping), each JWT checked against the server's
public key by the push service stand-ins on loopback (`tests.pushservice`)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest

from hollywood_gin.tables.push import Pushes, VapidKeys, new_private_key
from tests.pushservice import PushService, Subscriber, vapid_claims

pytestmark = pytest.mark.anyio

SUBJECT = "mailto:jwt-test@example.org"
HOUR = 3600.0


def checked(authorization: str, key: str, service: PushService) -> dict[str, Any]:
    return vapid_claims(authorization, key, service.origin, SUBJECT)


async def test_one_jwt_per_push_service_renewed_near_its_expiry() -> None:
    service1, service2 = PushService(SUBJECT), PushService(SUBJECT)
    subs = [Subscriber(f"/p/{n}").stored(s.origin) for s in (service1, service2) for n in range(2)]
    tables = {
        f"t{n}": SimpleNamespace(
            id=f"t{n}", seats=[SimpleNamespace(name="Ann", push=[s]), SimpleNamespace(name="Bob")]
        )
        for n, s in enumerate(subs)
    }
    keys = VapidKeys.from_private(new_private_key(), SUBJECT)
    now = 1_800_000_000.0
    # The worker's `deliver` in a thread of this process: the clock is the test's.
    registry: Any = SimpleNamespace(hub=None, writer=None, get=tables.get)
    pushes = Pushes(
        registry,
        keys,
        clock=lambda: now,
        executor=ThreadPoolExecutor(1),
    )
    pushes.start()

    async def push(*names: str) -> None:
        before = pushes.sent
        for name in names:
            pushes.notify(tables[name], 0, "your_move")  # type: ignore[arg-type]
        while pushes.sent + pushes.failed < before + len(names):
            await asyncio.sleep(0.01)
        assert pushes.failed == 0

    try:
        await push("t0", "t1", "t2")  # two messages to the first service, one to the other
        now += 11 * HOUR - 60  # an hour and a minute of the JWTs' 12 left: kept
        await push("t0", "t3")
        now += 2 * 60  # under an hour left: signed anew
        await push("t1", "t3")
        await push("t0")  # and the new one kept
    finally:
        await pushes.close()
        service1.close()
        service2.close()
    first = [r["headers"]["Authorization"] for r in service1.taken()]
    second = [r["headers"]["Authorization"] for r in service2.taken()]
    start = 1_800_000_000
    assert len(first) == 5 and len(second) == 3
    # The first service: one JWT for its first three messages, valid 12 hours from the
    # first push; a new one, valid 12 hours from the renewal, for the last two.
    assert len(set(first[:3])) == 1 and len(set(first[3:])) == 1 and first[2] != first[3]
    assert checked(first[0], keys.key, service1)["exp"] == start + 12 * 3600
    renewed = start + 11 * 3600 + 60
    assert checked(first[3], keys.key, service1)["exp"] == renewed + 12 * 3600
    # The other service has JWTs of its own (its `aud`), renewed at the same time.
    assert second[0] == second[1] != second[2]
    assert checked(second[0], keys.key, service2)["exp"] == start + 12 * 3600
    assert checked(second[2], keys.key, service2)["exp"] == renewed + 12 * 3600
    assert first[0] != second[0]
