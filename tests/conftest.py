"""Shared test helpers: a free loopback port and a real `python -m hollywood_gin` server."""

from __future__ import annotations

import base64
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent

# No property test has a deadline: Hypothesis's default (200 ms an example) fails a
# test whose example waited for the CPU, as on CI's two cores with the whole suite
# running at once. Most tests said so one by one; six did not.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    """The server runs on asyncio (uvicorn, the hub, the computer's tasks), so the async
    tests do too. anyio's own fixture runs each test once per importable backend, so a
    machine that happens to have trio installed would run them on trio as well."""
    return "asyncio"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port nothing listens on for the block: bound and never listened on,
    so a connection to it is refused, and no other process can take it meanwhile (as
    one could a `free_port`, free for anyone once it is closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


def run_gin(
    *args: str,
    cwd: Path = REPO,
    env: Mapping[str, str] | None = None,
    timeout: float | None = 60,
    **options: Any,
) -> subprocess.CompletedProcess[str]:
    """`python -m hollywood_gin ARGS` in a process of its own, to its end: its exit
    code and its output, captured as text (`env` None: this process's environment)."""
    return subprocess.run(
        [sys.executable, "-m", "hollywood_gin", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **options,
    )


def upgrade_request(base: str, table_id: str) -> bytes:
    """The handshake that opens the table's WebSocket at `base`, for a socket written by
    hand (one that then reads, or answers, only what its test wants)."""
    host, port = base.removeprefix("http://").split(":")
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET /ws/tables/{table_id} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


def listens(pid: int, port: int) -> bool:
    """Whether process `pid` holds the socket listening on loopback's `port` (Linux's
    /proc; elsewhere, where it cannot be told, True)."""
    try:
        table = Path("/proc/net/tcp").read_text().splitlines()[1:]
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return True
    wanted = f"0100007F:{port:04X}"
    inodes = {f"socket:[{f[9]}]" for f in map(str.split, table) if f[1] == wanted and f[3] == "0A"}
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                return True
    return False


# A port picked by `free_port` is closed again before the server binds it: another
# test's server, or a client's connection from that port, may take it meanwhile.
# `serving` then tries another port, this often at most.
PORT_TRIES = 3

Process = TypeVar("Process", bound="subprocess.Popen[Any]")


@contextmanager
def serving(
    start: Callable[[int], Process], port: int | None = None
) -> Iterator[tuple[str, Process]]:
    """The server process `start(port)` makes, once it answers /healthz on loopback's
    `port`: (its base URL, the process), stopped at the end. Without `port`, a free
    one; a server that could not start on it (the port taken meanwhile: it exits) is
    started again on another. A given port is kept (a restart on the same port)."""
    for tries_left in range(PORT_TRIES - 1, -1, -1):
        chosen = port or free_port()
        proc = start(chosen)
        try:
            started = _wait_healthy(proc, chosen)
            if not started and (port is not None or not tries_left):
                raise RuntimeError(f"server exited with {proc.returncode}")
            if started:
                yield f"http://127.0.0.1:{chosen}", proc
                return
        finally:
            _stop(proc)


def port_of(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


@contextmanager
def running_server(
    data_file: Path, port: int | None = None, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Start `python -m hollywood_gin` on a loopback port; yield (base_url, process).
    Without `port`, a free one (`serving`)."""
    with serving(lambda chosen: _start_server(data_file, chosen, env), port) as started:
        yield started


def _start_server(
    data_file: Path, port: int, env: dict[str, str] | None
) -> subprocess.Popen[bytes]:
    full_env = dict(os.environ)
    full_env.update(
        {
            "HOLLYWOOD_GIN_HOST": "127.0.0.1",
            "HOLLYWOOD_GIN_PORT": str(port),
            "HOLLYWOOD_GIN_DATA_FILE": str(data_file),
            "HOLLYWOOD_GIN_LOG_LEVEL": "warning",
            # All of a test's clients share 127.0.0.1; the request rate has tests of
            # its own (tests/web/test_gate.py), which pass their own settings.
            "HOLLYWOOD_GIN_HTTP_BURST": "100000",
            # Likewise the new tables per address: a session's browser tests create
            # more than an hour's 60 from 127.0.0.1 (the limit: tests/web/test_api.py).
            "HOLLYWOOD_GIN_TABLES_PER_HOUR_PER_ADDRESS": "100000",
        }
    )
    full_env.update(env or {})
    return subprocess.Popen([sys.executable, "-m", "hollywood_gin"], cwd=REPO, env=full_env)


def _wait_healthy(proc: subprocess.Popen[Any], port: int) -> bool:
    """True once `proc` answers /healthz on `port`; False when it exited first. An
    answer from another process that holds the port is not taken for this one's."""
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            return False
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200 and listens(
                proc.pid, port
            ):
                return True
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("server did not answer /healthz within 30 s")
        time.sleep(0.1)


def _stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
