"""The VAPID JWT (RFC 8292) is signed once per push service and reused until it nears
its expiry, then signed anew: through `Pushes` and the worker's `deliver`, with the
pushes' clock moved by the test (no sleeping), each JWT checked against the server's
public key by the push service stand-ins on loopback."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from hollywood_gin.tables.push import Pushes, VapidKeys, b64url, new_private_key

pytestmark = pytest.mark.anyio

SUBJECT = "mailto:jwt-test@example.org"
HOUR = 3600.0


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def checked(authorization: str, key: str, origin: str) -> dict[str, Any]:
    """The JWT's claims once its ES256 signature is checked against `key`."""
    scheme, _, params = authorization.partition(" ")
    assert scheme == "vapid"
    parts = dict(p.strip().split("=", 1) for p in params.split(","))
    assert parts["k"] == key
    signed, _, signature = parts["t"].rpartition(".")
    raw = unb64(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(key))
    public.verify(der, signed.encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
    header, claims = (json.loads(unb64(p)) for p in signed.split("."))
    assert header["alg"] == "ES256"
    assert claims["aud"] == origin and claims["sub"] == SUBJECT
    return claims  # type: ignore[no-any-return]


async def service(got: list[str]) -> tuple[asyncio.Server, str]:
    """A push service answering 201, keeping each request's Authorization header."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode()
                fields = {
                    k.lower(): v
                    for k, v in (ln.split(": ", 1) for ln in head.split("\r\n")[1:] if ": " in ln)
                }
                await reader.readexactly(int(fields["content-length"]))
                got.append(fields["authorization"])
                writer.write(b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"


async def test_one_jwt_per_push_service_renewed_near_its_expiry() -> None:
    first: list[str] = []
    second: list[str] = []
    server1, origin1 = await service(first)
    server2, origin2 = await service(second)
    browser = ec.generate_private_key(ec.SECP256R1()).public_key()
    p256dh = b64url(browser.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))
    subs = [
        {"endpoint": f"{origin}/p/{n}", "p256dh": p256dh, "auth": b64url(os.urandom(16))}
        for origin in (origin1, origin2)
        for n in range(2)
    ]
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
        server1.close()
        server2.close()
    start = 1_800_000_000
    assert len(first) == 5 and len(second) == 3
    # The first service: one JWT for its first three messages, valid 12 hours from the
    # first push; a new one, valid 12 hours from the renewal, for the last two.
    assert len(set(first[:3])) == 1 and len(set(first[3:])) == 1 and first[2] != first[3]
    assert checked(first[0], keys.key, origin1)["exp"] == start + 12 * 3600
    renewed = start + 11 * 3600 + 60
    assert checked(first[3], keys.key, origin1)["exp"] == renewed + 12 * 3600
    # The other service has JWTs of its own (its `aud`), renewed at the same time.
    assert second[0] == second[1] != second[2]
    assert checked(second[0], keys.key, origin2)["exp"] == start + 12 * 3600
    assert checked(second[2], keys.key, origin2)["exp"] == renewed + 12 * 3600
    assert first[0] != second[0]
