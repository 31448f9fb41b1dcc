"""`hollywood-gin serve`: serve the site with uvicorn, settings from the environment.

`python -m hollywood_gin` and `hollywood-gin` run the commands of `hollywood_gin.cli`,
which serve by default.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import resource
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from types import FrameType

import uvicorn
from fastapi import FastAPI

from hollywood_gin.cli.host import data_folder_problem, postgres_status
from hollywood_gin.config import Settings, SettingsError
from hollywood_gin.logs import log_config
from hollywood_gin.main import create_app
from hollywood_gin.tables.sqlite_file import (
    NewerSchema,
    UnusableFile,
    file_holder,
    file_schema_version,
    refuse_newer,
)
from hollywood_gin.web.guard import connections

# A collection walks every object of the generations it collects, ~0.5-1 µs each on
# the server's heap: the pause is the walk. Each open socket keeps ~270 objects, so
# 8,000 tables hold ~4 million, and a middle or full collection of them stalled every
# table for seconds (thresholds (50,000, 20, 100) let the middle generation pile up to
# ~900,000 objects after a ramp: 1.0-1.7 s at 2,000-4,000 tables). So what survives
# any collection is frozen (`freeze_survivors`), as start-up's heap is: no collection
# walks an object twice, the middle and oldest generations stay empty, and a pause is
# the young objects', those made since the last collection and still alive: at most
# 50,000 net new ones plus each socket's state of its last move (~35 objects a socket).
# Frozen objects are still freed by their reference counts: only a reference cycle
# that becomes garbage after a collection stays, and the server makes none (the one
# each socket's handshake left is broken at the upgrade; `benchmarks/bench_gc.py`
# counts what opening and closing 10,000 sockets leaves). docs/performance.md.
GC_THRESHOLDS = (50_000, 20, 100)

# The young objects alive at a collection are mostly the state of the sockets that moved
# since the last one, which the count above does not see: a move frees about as many
# frozen objects as it makes, so the count grew by ~5,000 a second at 8,000 tables and
# a collection walked ~560,000 objects at once. So the server also collects them on a
# clock (`collect_young`, HOLLYWOOD_GIN_GC_SECONDS): a pause walks the moves of the last
# fraction of a second. The count cannot tell an idle server either, so a collection
# shorter than `GC_IDLE_PAUSE` (~1,000-2,000 objects) doubles the clock's next delay,
# up to `GC_IDLE_SECONDS`: an idle server wakes for it every two seconds.
GC_IDLE_PAUSE = 0.001
GC_IDLE_SECONDS = 2.0


def raise_open_files() -> None:
    """The soft limit of open files up to the hard one: each socket is a file, and the
    per-address cap (not the process's files) should be what a crowd meets first."""
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def freeze_survivors(phase: str, info: dict[str, int]) -> None:
    """A `gc.callbacks` hook: what a collection kept goes to the permanent generation,
    which no collection walks (`GC_THRESHOLDS`)."""
    if phase == "stop":
        gc.freeze()


def tune_gc() -> None:
    """Freeze what start-up made (never garbage), collect young objects less often,
    and freeze what survives each collection (`GC_THRESHOLDS`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    if freeze_survivors not in gc.callbacks:
        gc.callbacks.append(freeze_survivors)


def next_young(took: float, delay: float, seconds: float) -> float:
    """The clock's delay after a collection of `took` seconds, `delay` after the last:
    `seconds` on a busy server; an idle one's doubles up to `GC_IDLE_SECONDS`."""
    if took >= GC_IDLE_PAUSE:
        return seconds
    return min(delay * 2, max(seconds, GC_IDLE_SECONDS))


async def collect_young(seconds: float) -> None:
    """Collect the young generation on a clock (`GC_IDLE_PAUSE`), until cancelled."""
    delay = seconds
    while True:
        await asyncio.sleep(delay)
        start = time.perf_counter()
        gc.collect(0)
        delay = next_young(time.perf_counter() - start, delay, seconds)


class Server(uvicorn.Server):
    """uvicorn's server, ending on SIGHUP as on SIGTERM: gracefully, every socket
    closed with 1012 (browsers come back by themselves). Nothing is reloaded: the
    settings change by a restart (README, "Settings"). Without this a SIGHUP (a closed
    terminal, a `kill -HUP` meant as a reload) ended the process at once.

    With `gc_seconds` (`python -m hollywood_gin serve` only, after `tune_gc`) it also
    collects the young objects every that many seconds (`collect_young`)."""

    def __init__(self, config: uvicorn.Config, gc_seconds: float = 0.0) -> None:
        super().__init__(config)
        self.gc_seconds = gc_seconds

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        if not self.gc_seconds:
            await super().serve(sockets)
            return
        clock = asyncio.create_task(collect_young(self.gc_seconds))
        try:
            await super().serve(sockets)
        finally:
            clock.cancel()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            with super().capture_signals():
                yield
            return

        def hang_up(sig: int, frame: FrameType | None) -> None:
            self.handle_exit(signal.SIGTERM, frame)

        previous = signal.signal(signal.SIGHUP, hang_up)
        try:
            with super().capture_signals():
                yield
        finally:
            signal.signal(signal.SIGHUP, previous)


def refusal(settings: Settings) -> tuple[int, str] | None:
    """Why the server cannot start with these settings, as `check` says it: (exit code,
    one line), or None. 2: the data file is not usable; 1: the store is unreachable, or
    the data file is held by another process (a server, a migrate)."""
    if settings.database_url:
        code, line = postgres_status(settings.database_url)
        return (code, line) if code else None
    problem = data_folder_problem(settings.data_file)
    if problem is not None:
        return 2, problem
    try:
        version = file_schema_version(settings.data_file)
        if version is not None:
            refuse_newer(settings.data_file, version)
    except (NewerSchema, UnusableFile) as exc:
        return 2, str(exc)
    # Another server on this file (or a migrate reading it): refused here in one line,
    # the other goes on. (Two starting at once: the store's own lock stops the later.)
    held = file_holder(settings.data_file)
    if held is not None:
        return 1, held
    try:
        settings.data_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        return 2, f"data file: cannot be made in {settings.data_file.parent}: {exc.strerror}"
    return None


def uvicorn_config(settings: Settings, app: FastAPI) -> uvicorn.Config:
    """uvicorn's settings for `app`: the server's own protocols and limits."""
    http_protocol, ws_protocol = connections.protocols(settings)
    return uvicorn.Config(
        app,
        http=http_protocol,
        ws=ws_protocol,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        log_config=log_config(settings.log_level, settings.log_format),
        server_header=False,  # no "Server: uvicorn": nothing to fingerprint
        access_log=False,  # hollywood_gin.logs.AccessLog writes each request's line
        ws_max_size=settings.ws_max_message_bytes * 4,
        ws_per_message_deflate=settings.ws_per_message_deflate,
        # The keepalive is the protocol's own sweep (`connections.Keepalive`), from the
        # settings: none of uvicorn's timers.
        ws_ping_interval=None,
        ws_ping_timeout=None,
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=",".join(settings.trusted_proxies) or None,
        timeout_graceful_shutdown=5,
    )


def main() -> int:
    # Files the server makes (the data file, its WAL, logs) are its user's alone: the
    # data file holds every running hand's deck.
    os.umask(0o077)
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        print(f"hollywood-gin: {exc}", file=sys.stderr)
        return 2
    refused = refusal(settings)
    if refused is not None:
        print(f"hollywood-gin: {refused[1]}", file=sys.stderr)
        return refused[0]
    app = create_app(settings)
    tune_gc()
    # One worker on purpose: a table's state lives in this process
    # (docs/architecture.md "One owner per table").
    raise_open_files()
    config = uvicorn_config(settings, app)
    # uvicorn.run's steps, with the server above.
    config.load_app()
    server = Server(config, gc_seconds=settings.gc_seconds)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.run()
    except SystemExit:  # uvicorn's when the start fails (3): the log said why
        return 1
    # A start that failed in the app (the store) or at the port said why in the log.
    return 0 if server.started else 1
