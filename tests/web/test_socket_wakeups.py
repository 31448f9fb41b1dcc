"""What a frame costs an open table socket's tasks, on a real uvicorn in this process
(docs/performance.md "Capacity at human pace"): at human pace every wake-up of a
task is a turn of the loop and a fresh wait (a coroutine, a future and their
callbacks), young objects the collector walks.

- a frame for a socket whose client reads goes out at once (`endpoint.Outbox`): the
  writer task's wait is the one it began before, not woken for it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.web.test_socket_memory import awaited, open_sockets, serving


def writers() -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks() if "Session._write" in list(awaited(t))]


def waits(tasks: list[asyncio.Task[Any]]) -> list[object]:
    """What each task waits on now (the future it is parked on)."""
    return [t._fut_waiter for t in tasks]  # type: ignore[attr-defined]


@pytest.mark.anyio
async def test_frames_go_out_without_waking_the_writer(tmp_path: Path) -> None:
    async with serving(tmp_path) as (url, token), open_sockets(url, token) as sockets:
        tasks = writers()
        assert len(tasks) == len(sockets)
        before = waits(tasks)
        assert all(w is not None for w in before)
        for socket in sockets:
            for _ in range(3):
                await socket.send(orjson.dumps({"type": "ping"}))
                while orjson.loads(await socket.recv())["type"] != "pong":
                    pass
        assert waits(tasks) == before
