"""Web Push's sending (hollywood_gin/tables/push.py) against a push service stand-in
on loopback (its own process) that answers 201 at once.

Measured: what queuing costs on the move's path (`Pushes.notify`, per message), how
many messages a second the senders get out (encrypted with aes128gcm, a VAPID JWT
per push service), the queue's latency (queued to answered: median, p99), the event
loop's own CPU per message (its thread's time: what a move competes with), the
worker process's, how late the loop wakes while they go out (a 1 ms timer's
lateness, p50/p99/max: what a move would wait), and a burst larger than the queue
(dropped, counted, never a wait). `--inline` seals and posts on the loop, as before
the worker process, to compare.

`--worker-path`: only the worker's own path (`push.deliver`, what the worker process
runs for each batch: seal, JWT, post, read the answer), called here, in batches of
`push.BATCH`, against the same stand-in: this process's CPU time per message, and
how much of it the sealing alone takes. `--callgrind` adds its instructions per
message under valgrind's callgrind (two runs of the worker path, N and 3N messages,
their difference over 2N: start-up and the first batch's connections and JWT cancel
out), a figure the machine's load does not move. Each figure is printed with the load
average; on a loaded machine rerun it quiet:

    python -m benchmarks.bench_push --messages 5000
    python -m benchmarks.bench_push --messages 5000 --inline
    python -m benchmarks.bench_push --worker-path --messages 5000 --callgrind
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from types import SimpleNamespace
from typing import Any

import psutil
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


def serve(port: Any) -> None:
    """The stand-in's process: its own loop, so its CPU is not the server's."""

    async def main() -> None:
        server = await asyncio.start_server(stand_in, "127.0.0.1", 0)
        port.value = server.sockets[0].getsockname()[1]
        await server.serve_forever()

    asyncio.run(main())


async def lateness(into: list[float], stop: asyncio.Event) -> None:
    """How late a 1 ms timer fires, again and again: what a move would wait."""
    while not stop.is_set():
        began = time.perf_counter()
        await asyncio.sleep(0.001)
        into.append(time.perf_counter() - began - 0.001)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


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


async def run(messages: int, tables: int, inline: bool) -> None:
    spawn = multiprocessing.get_context("spawn")
    port = spawn.Value("i", 0)
    service = spawn.Process(target=serve, args=(port,))
    service.start()
    while not port.value:
        await asyncio.sleep(0.05)
    origin = f"http://127.0.0.1:{port.value}"
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
    pushes = Pushes(registry, keys, inline=inline)
    pushes.start()
    how = "on the loop (--inline)" if inline else "by the worker process"
    print(f"sealed and posted {how}, {messages} messages, {tables} subscriptions  [{load()}]")
    # The worker started, and the JWT signed, before anything is timed.
    pushes.notify(next(iter(held.values())), 0, "your_move")  # type: ignore[arg-type]
    while pushes.sent < 1:
        await asyncio.sleep(0.05)
    pushes.sent = 0
    pushes.latencies.clear()
    idle: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.create_task(lateness(idle, stop))
    await asyncio.sleep(2)
    stop.set()
    await ticker
    print(
        f"loop lateness, idle: p50 {pct(idle, 0.5) * 1e3:.2f} ms, p99"
        f" {pct(idle, 0.99) * 1e3:.2f} ms, max {max(idle) * 1e3:.1f} ms  [{load()}]"
    )
    ids = list(held)

    # The move's path: queuing only.
    began = time.perf_counter()
    for i in range(messages):
        pushes.notify(held[ids[i % tables]], 0, "your_move")  # type: ignore[arg-type]
    queued = time.perf_counter() - began
    print(f"notify (queue only): {queued / messages * 1e6:.1f} µs a message  [{load()}]")

    workers = [psutil.Process(pid) for pid in pushes.pids if pid != os.getpid()]
    work0 = sum(w.cpu_times().user + w.cpu_times().system for w in workers)
    cpu0, thread0, wall0 = time.process_time(), time.thread_time(), time.perf_counter()
    while pushes.sent + pushes.failed < messages:
        await asyncio.sleep(0.05)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    thread = time.thread_time() - thread0
    work = sum(w.cpu_times().user + w.cpu_times().system for w in workers) - work0
    lat = sorted(pushes.latencies)
    p99 = lat[int(len(lat) * 0.99) - 1]
    print(f"sent {pushes.sent} in {wall:.2f} s: {pushes.sent / wall:.0f} messages/s  [{load()}]")
    print(
        f"CPU a message: event loop's thread {thread / messages * 1e3:.3f} ms, the"
        f" server process {cpu / messages * 1e3:.3f} ms, the worker process"
        f" {work / messages * 1e3:.3f} ms  [{load()}]"
    )
    print(
        f"queue latency: median {statistics.median(lat) * 1e3:.0f} ms,"
        f" p99 {p99 * 1e3:.0f} ms (all {messages} queued at once)  [{load()}]"
    )

    # Again, with a 1 ms timer on the loop (apart: the timer costs CPU of its own).
    late: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.create_task(lateness(late, stop))
    done = pushes.sent + pushes.failed
    for i in range(messages):
        pushes.notify(held[ids[i % tables]], 0, "your_move")  # type: ignore[arg-type]
    while pushes.sent + pushes.failed < done + messages:
        await asyncio.sleep(0.05)
    stop.set()
    await ticker
    print(
        f"loop lateness while sending: p50 {pct(late, 0.5) * 1e3:.2f} ms, p99"
        f" {pct(late, 0.99) * 1e3:.2f} ms, max {max(late) * 1e3:.1f} ms  [{load()}]"
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
    service.terminate()
    service.join()


def worker_path(messages: int, tables: int) -> None:
    """`push.deliver` here, in batches, against the stand-in: CPU a message."""
    spawn = multiprocessing.get_context("spawn")
    port = spawn.Value("i", 0)
    service = spawn.Process(target=serve, args=(port,))
    service.start()
    try:
        while not port.value:
            time.sleep(0.05)
        origin = f"http://127.0.0.1:{port.value}"
        subs = [subscription(origin, t) for t in range(tables)]
        private, subject = new_private_key(), "mailto:bench@example.org"
        plaintext = (
            b'{"table":"0f3c2a9e8b7d4c1a","kind":"your_move","title":"Your move",'
            b'"body":"Bob has moved.","url":"/t/0f3c2a9e8b7d4c1a"}'
        )
        items = [(s["endpoint"], plaintext, s["p256dh"], s["auth"]) for s in subs]
        batches = [
            [items[(b * push.BATCH + i) % tables] for i in range(push.BATCH)]
            for b in range(max(1, messages // push.BATCH))
        ]
        sent = len(batches) * push.BATCH
        # The first batch opens the connections and signs the JWT: not counted.
        statuses, _ = push.deliver(private, subject, batches[0])
        assert set(statuses) == {201}, statuses
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for batch in batches:
            statuses, _ = push.deliver(private, subject, batch)
            assert set(statuses) == {201}, statuses
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        seal0 = time.process_time()
        for batch in batches:
            for _endpoint, text, p256dh, auth in batch:
                push.encrypt(text, p256dh, auth)
        seal = time.process_time() - seal0
        print(
            f"worker path: {sent} messages in batches of {push.BATCH}, {sent / wall:.0f}"
            f" messages/s, CPU {cpu / sent * 1e3:.3f} ms a message (sealing alone"
            f" {seal / sent * 1e3:.3f} ms)  [{load()}]",
            flush=True,
        )
    finally:
        push.close_worker()
        service.terminate()
        service.join()


def instructions(messages: int) -> int:
    """Instructions the worker path's `messages` cost under callgrind (the whole run)."""
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/out",
                sys.executable,
                "-m",
                "benchmarks.bench_push",
                "--worker-path",
                "--messages",
                str(messages),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    found = re.search(r"Collected : (\d+)", run.stderr)
    assert found, run.stderr[-2000:]
    return int(found.group(1))


def callgrind(messages: int) -> None:
    n = max(1, messages // push.BATCH) * push.BATCH
    small, large = instructions(n), instructions(3 * n)
    print(
        f"worker path under callgrind: {(large - small) / (2 * n) / 1e6:.2f} M"
        f" instructions a message ({n} and {3 * n} messages)  [{load()}]",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--inline", action="store_true", help="seal and post on the loop")
    parser.add_argument(
        "--worker-path", action="store_true", help="only the worker's path, in this process"
    )
    parser.add_argument(
        "--callgrind", action="store_true", help="with --worker-path: instructions a message"
    )
    args = parser.parse_args()
    if args.worker_path:
        worker_path(args.messages, args.tables)
        if args.callgrind:
            callgrind(args.messages)
        return
    asyncio.run(run(args.messages, args.tables, args.inline))


if __name__ == "__main__":
    main()
