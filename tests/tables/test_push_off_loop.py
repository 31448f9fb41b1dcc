"""Web Push's sending runs off the event loop
(docs/protocol-guide.md "Notifications"): each batch of messages is encrypted,
signed (one VAPID JWT per push service) and posted by a worker process, so a burst
of pushes never holds up a move. A push service stand-in on loopback decrypts every
message with the subscriber's keys."""

from __future__ import annotations

import asyncio
import base64
import os
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import http_ece  # type: ignore[import-untyped]
import orjson
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from hollywood_gin.tables import push
from hollywood_gin.tables.push import Pushes, VapidKeys, new_private_key

pytestmark = pytest.mark.anyio


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Subscriber:
    def __init__(self, origin: str, n: int) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        raw = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.sub = {"endpoint": f"{origin}/p/{n}", "p256dh": b64(raw), "auth": b64(self.auth)}


async def test_sealed_signed_and_posted_by_a_worker_process() -> None:
    got: list[tuple[str, bytes, str]] = []

    async def service(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode()
                lines = head.split("\r\n")
                fields = {
                    k.lower(): v for k, v in (ln.split(": ", 1) for ln in lines[1:] if ": " in ln)
                }
                body = await reader.readexactly(int(fields.get("content-length", "0")))
                got.append((lines[0].split()[1], body, fields.get("authorization", "")))
                writer.write(b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            writer.close()

    server = await asyncio.start_server(service, "127.0.0.1", 0)
    origin = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    subscribers = [Subscriber(origin, n) for n in range(40)]
    tables = {
        f"t{n}": SimpleNamespace(
            id=f"t{n}",
            seats=[SimpleNamespace(name="Ann", push=[s.sub]), SimpleNamespace(name="Bob")],
        )
        for n, s in enumerate(subscribers)
    }
    registry: Any = SimpleNamespace(hub=None, writer=None, get=tables.get)
    keys = VapidKeys.from_private(new_private_key(), "mailto:test@example.org")
    pushes = Pushes(registry, keys)
    pushes.start()
    try:
        for table in tables.values():
            pushes.notify(table, 0, "your_move")  # type: ignore[arg-type]
        while pushes.sent + pushes.failed < len(tables):
            await asyncio.sleep(0.05)
        for table in list(tables.values())[:5]:  # a second round: the JWT is kept
            pushes.notify(table, 0, "next_hand")  # type: ignore[arg-type]
        while pushes.sent + pushes.failed < len(tables) + 5:
            await asyncio.sleep(0.05)
    finally:
        await pushes.close()
        server.close()
    assert pushes.sent == len(tables) + 5 and pushes.failed == 0
    # Sealed in another process, never this one (the event loop's).
    assert pushes.pids and os.getpid() not in pushes.pids
    # One JWT for the one push service, signed in the worker and reused by every
    # message, the second round's too; the loop's process signed nothing.
    assert not keys.signed
    (auth,) = {auth for _path, _body, auth in got}
    assert auth.startswith("vapid t=") and auth.endswith(f"k={keys.key}")
    # Each message opens with its subscriber's keys.
    by_path = {f"/p/{n}": s for n, s in enumerate(subscribers)}
    for path, body, _auth in got:
        s = by_path[path]
        plain = http_ece.decrypt(body, private_key=s.key, auth_secret=s.auth, version="aes128gcm")
        assert orjson.loads(plain)["kind"] in ("your_move", "next_hand")


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
