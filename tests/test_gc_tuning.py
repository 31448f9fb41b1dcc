"""`python -m hollywood_gin` freezes the start-up heap, collects less often by count and
young objects on a clock (performance.md)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import socket
from collections.abc import Iterator
from pathlib import Path

from hollywood_gin.config import Settings
from hollywood_gin.main import create_app
from hollywood_gin.serve import (
    GC_IDLE_PAUSE,
    GC_IDLE_SECONDS,
    GC_THRESHOLDS,
    Server,
    collect_young,
    freeze_survivors,
    next_young,
    tune_gc,
    uvicorn_config,
)


def untune(threshold: tuple[int, int, int]) -> None:
    while freeze_survivors in gc.callbacks:
        gc.callbacks.remove(freeze_survivors)
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_tune_gc_freezes_and_sets_the_thresholds() -> None:
    before = gc.get_threshold()
    try:
        tune_gc()
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
        # Fewer, larger young collections: far above CPython's 700.
        assert GC_THRESHOLDS[0] >= 10_000
    finally:
        untune(before)


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_what_a_collection_keeps_is_frozen_and_walked_no_more() -> None:
    """Survivors go to the permanent generation, so no later collection (of any
    generation) walks them: the middle and oldest ones stay empty; garbage made
    before a collection is still collected by it."""
    before = gc.get_threshold()
    try:
        tune_gc()
        kept = [Node() for _ in range(1000)]
        dropped = [Node() for _ in range(1000)]
        for node in dropped:
            node.other = node  # a cycle each: garbage only the collector finds
        del dropped, node
        frozen = gc.get_freeze_count()
        assert gc.collect(0) >= 1000
        assert gc.get_freeze_count() >= frozen + len(kept)
        assert not any(type(o) is Node for o in gc.get_objects())  # frozen: not walked
        assert gc.get_objects(1) == [] and gc.get_objects(2) == []
        gc.unfreeze()
        assert sum(type(o) is Node for o in gc.get_objects()) == len(kept)
    finally:
        untune(before)


def test_the_clock_collects_busy_servers_often_and_idle_ones_rarely() -> None:
    assert next_young(GC_IDLE_PAUSE, 0.1, 0.1) == 0.1
    assert next_young(GC_IDLE_PAUSE, GC_IDLE_SECONDS, 0.1) == 0.1  # busy again
    delays = [0.1]
    for _ in range(8):
        delays.append(next_young(GC_IDLE_PAUSE / 10, delays[-1], 0.1))
    # Idle: 0.2, 0.4, ... up to GC_IDLE_SECONDS, and there it stays.
    assert delays[1:5] == [0.2, 0.4, 0.8, 1.6]
    assert delays[-3:] == [GC_IDLE_SECONDS] * 3
    assert next_young(0, 5.0, 5.0) == 5.0  # a clock slower than the idle one's


class Young:
    """A collection of generation 0, seen by `gc.callbacks`."""

    def __init__(self) -> None:
        self.runs = 0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 0:
            self.runs += 1


def test_the_clock_collects_and_freezes_young_objects() -> None:
    before = gc.get_threshold()
    seen = Young()
    try:
        tune_gc()
        gc.set_threshold(10**8)  # no collection by count: any is the clock's
        gc.callbacks.append(seen)
        kept = [Node() for _ in range(1000)]
        dropped = [Node() for _ in range(1000)]
        for node in dropped:
            node.other = node
        del dropped, node
        frozen = gc.get_freeze_count()

        async def tick() -> None:
            clock = asyncio.create_task(collect_young(0.01))
            for _ in range(1000):  # ten seconds at most: the clock is 0.01 s
                if seen.runs:
                    break
                await asyncio.sleep(0.01)
            clock.cancel()

        asyncio.run(tick())
        assert seen.runs
        assert gc.get_freeze_count() >= frozen + len(kept)
        gc.unfreeze()
        assert sum(type(o) is Node for o in gc.get_objects()) == len(kept)
    finally:
        gc.callbacks.remove(seen)
        untune(before)


@contextlib.contextmanager
def logging_kept() -> Iterator[None]:
    """uvicorn's Config applies the server's log config to this process (the project's
    loggers stop propagating): put every logger back, so that later tests in this
    worker still see records through `caplog`."""
    loggers = [logging.getLogger()] + [
        lg for lg in logging.root.manager.loggerDict.values() if isinstance(lg, logging.Logger)
    ]
    kept = [(lg, lg.handlers[:], lg.level, lg.propagate, lg.disabled) for lg in loggers]
    try:
        yield
    finally:
        for lg, handlers, level, propagate, disabled in kept:
            lg.handlers[:] = handlers
            lg.setLevel(level)
            lg.propagate = propagate
            lg.disabled = disabled
        known = {id(k[0]) for k in kept}
        for lg in list(logging.root.manager.loggerDict.values()):
            if isinstance(lg, logging.Logger) and id(lg) not in known:
                lg.handlers.clear()
                lg.propagate = True
                lg.setLevel(logging.NOTSET)


def serve_and_count(gc_seconds: float | None, tmp_path: Path) -> int:
    with logging_kept():
        return _serve_and_count(gc_seconds, tmp_path)


def _serve_and_count(gc_seconds: float | None, tmp_path: Path) -> int:
    """Young collections while `serve.Server` serves the app on loopback for 0.1 s
    (`gc_seconds`, or its default), the count's thresholds out of the way."""
    # The socket bound first and handed to uvicorn: a port picked, closed and bound
    # again could be taken meanwhile by another test's server or client.
    listening = socket.create_server(("127.0.0.1", 0))
    port = str(listening.getsockname()[1])
    env = {"HOLLYWOOD_GIN_HOST": "127.0.0.1", "HOLLYWOOD_GIN_PORT": port}
    settings = Settings.from_env({**env, "HOLLYWOOD_GIN_DATA_FILE": str(tmp_path / "t.db")})
    config = uvicorn_config(settings, create_app(settings))
    server = Server(config) if gc_seconds is None else Server(config, gc_seconds=gc_seconds)
    seen = Young()
    before = gc.get_threshold()

    async def run() -> None:
        serving = asyncio.create_task(server.serve(sockets=[listening]))
        while not server.started:
            await asyncio.sleep(0.01)
        gc.set_threshold(10**8)
        gc.callbacks.append(seen)
        for _ in range(10):
            await asyncio.sleep(0.01)
        server.should_exit = True
        await serving

    try:
        with listening:
            asyncio.run(run())
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*before)
    return seen.runs


def test_the_server_collects_on_the_clock_only_when_serve_asks(tmp_path: Path) -> None:
    assert serve_and_count(None, tmp_path) == 0
    assert serve_and_count(0, tmp_path) == 0
    assert serve_and_count(0.001, tmp_path) >= 1
