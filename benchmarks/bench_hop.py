"""The writer task's hop, per frame, in process: what a frame costs through a socket's
outbox and its writer task (`Connection.send`, the writer's wake-up, `next_frame`)
against the same send driven to its end in the sender's call (the "direct write" of
issue 30, which the ASGI send allows while the socket takes data: it does not wait).

Run: `python -m benchmarks.bench_hop [rounds]`

The send has the real one's depth and shape: Starlette's `send_text` (the frame decoded
to text) -> `send` -> uvicorn's `send`, which awaits its `writable` event (set). Each
iteration sends one frame and gives the loop one turn (`sleep(0)`); the loop's turn
alone (no frame) is measured too and taken off. Thread CPU time, medians of the rounds,
the three modes alternating.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Coroutine
from typing import Any

from hollywood_gin.tables.hub import Connection

FRAMES = 20000
FRAME = b'{"type":"state"}' * 60


async def measure(mode: str) -> float:
    writable = asyncio.Event()
    writable.set()
    written = 0

    async def uvicorn_send(message: dict[str, Any]) -> None:
        nonlocal written
        await writable.wait()
        written += 1

    async def starlette_send(message: dict[str, Any]) -> None:
        await uvicorn_send(message)

    def send_text(frame: bytes) -> Coroutine[Any, Any, None]:
        return starlette_send({"type": "websocket.send", "text": frame.decode()})

    conn = Connection(0)

    async def writer() -> None:  # `Session._write`
        while True:
            frame = await conn.next_frame()
            if frame is None:
                return
            await send_text(frame)

    task = asyncio.create_task(writer())
    await asyncio.sleep(0)
    started = time.thread_time_ns()
    for _ in range(FRAMES):
        if mode == "outbox and writer task":
            conn.send(FRAME, state=True)
        elif mode == "written in the sender's call":
            try:  # noqa: SIM105 (as the direct write did: no context manager per frame)
                send_text(FRAME).send(None)
            except StopIteration:
                pass
        await asyncio.sleep(0)
    spent = time.thread_time_ns() - started
    assert mode == "no frame" or written == FRAMES
    conn.close(1000)
    await task
    return spent / FRAMES / 1000


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    modes = ["no frame", "outbox and writer task", "written in the sender's call"]
    results: dict[str, list[float]] = {m: [] for m in modes}
    for _ in range(rounds):
        for mode in modes:
            results[mode].append(asyncio.run(measure(mode)))
    turn = statistics.median(results["no frame"])
    for mode in modes:
        each = results[mode]
        print(
            f"{mode}: {statistics.median(each) - turn:.2f} µs per frame"
            f" ({statistics.median(each):.2f} with the loop's turn; rounds"
            f" {min(each):.2f}-{max(each):.2f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
