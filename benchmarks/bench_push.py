"""Web Push's sending (hollywood_gin/tables/push.py), in one process against a push
service stand-in on loopback that answers 201 at once.

Measured: what queuing costs on the move's path (`Pushes.notify`, per message), how
many messages a second the senders get out (encrypted with aes128gcm and signed
with a VAPID JWT each), the queue's latency (queued to answered: median, p99), the
CPU per message, and a burst larger than the queue (dropped, counted, never a wait).
Each figure is printed with the load average; on a loaded machine rerun it quiet:

    python -m benchmarks.bench_push --messages 5000
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import time
from types import SimpleNamespace
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from hollywood_gin.tables import push
from hollywood_gin.tables.push import Pushes, VapidKeys, new_private_key


async def stand_in(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A push service that reads each request and answers 201 (keep-alive)."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            writer.write(b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
        writer.close()


def subscription(origin: str, n: int) -> dict[str, Any]:
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    raw = key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()  # noqa: E731
    return {"endpoint": f"{origin}/p/{n}", "p256dh": b64(raw), "auth": b64(os.urandom(16))}


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


async def run(messages: int, tables: int) -> None:
    server = await asyncio.start_server(stand_in, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    origin = f"http://127.0.0.1:{port}"
    seats = [
        SimpleNamespace(name="Ann", push=[subscription(origin, t)], computer=None)
        for t in range(tables)
    ]
    held = {
        f"t{t}": SimpleNamespace(id=f"t{t}", seats=[seats[t], SimpleNamespace(name="Bob")])
        for t in range(tables)
    }
    registry: Any = SimpleNamespace(hub=None, writer=None, get=held.get)
    keys = VapidKeys.from_private(new_private_key(), "mailto:bench@example.org")
    pushes = Pushes(registry, keys)
    pushes.start()
    ids = list(held)

    # The move's path: queuing only.
    began = time.perf_counter()
    for i in range(messages):
        pushes.notify(held[ids[i % tables]], 0, "your_move")  # type: ignore[arg-type]
    queued = time.perf_counter() - began
    print(f"notify (queue only): {queued / messages * 1e6:.1f} µs a message  [{load()}]")

    cpu0, wall0 = time.process_time(), time.perf_counter()
    while pushes.sent + pushes.failed < messages:
        await asyncio.sleep(0.05)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    lat = sorted(pushes.latencies)
    p99 = lat[int(len(lat) * 0.99) - 1]
    print(
        f"sent {pushes.sent} in {wall:.2f} s: {pushes.sent / wall:.0f} messages/s,"
        f" {cpu / messages * 1e3:.2f} ms CPU a message (encrypt, sign, post)  [{load()}]"
    )
    print(
        f"queue latency: median {statistics.median(lat) * 1e3:.0f} ms,"
        f" p99 {p99 * 1e3:.0f} ms (all {messages} queued at once)  [{load()}]"
    )

    # A burst past the queue's bound: dropped and counted, the caller never waits.
    push_queue = push.QUEUE_SIZE
    began = time.perf_counter()
    for i in range(push_queue + 1000):
        pushes.notify(held[ids[i % tables]], 0, "your_move")  # type: ignore[arg-type]
    burst = time.perf_counter() - began
    print(
        f"burst of {push_queue + 1000}: {pushes.dropped} dropped, queuing took"
        f" {burst * 1e3:.0f} ms in all  [{load()}]"
    )
    await pushes.close()
    server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(run(args.messages, args.tables))


if __name__ == "__main__":
    main()
