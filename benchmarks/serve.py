"""Servers for the benchmarks: the real app (`python -m hollywood_gin`) and a bare echo/relay.

The echo server is the physical limit the app is compared with: the same
uvicorn, the same WebSocket stack and settings, the same client and sockets,
and no application work at all. `/relay/{room}` answers each message with one
frame of about `pad` bytes (a field of the message), sent to the sender only
(`"fanout": false`, a plain echo) or to every socket of the room (`"fanout":
true`: what the app does after an action, with none of the rules, storage or
views).

Run on its own: `python -m benchmarks.serve --echo --port 8765`.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import orjson
from fastapi import FastAPI, WebSocket, WebSocketDisconnect

REPO = Path(__file__).resolve().parent.parent


def raise_open_files() -> int:
    """Lift the soft limit of open files to the hard one (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# Limits a real deployment keeps, lifted so that one loopback address may run the load.
LOAD_ENV = {
    "HOLLYWOOD_GIN_TABLES_PER_HOUR_PER_ADDRESS": "10000000",
    "HOLLYWOOD_GIN_TABLES_PER_MINUTE": "10000000",
    "HOLLYWOOD_GIN_MAX_LIVE_TABLES": "10000000",
    "HOLLYWOOD_GIN_WS_MESSAGES_PER_SECOND": "1000000",
    "HOLLYWOOD_GIN_WS_BURST": "1000000",
    "HOLLYWOOD_GIN_MAX_SPECTATORS": "100000",
    "HOLLYWOOD_GIN_HTTP_BURST": "10000000",
    "HOLLYWOOD_GIN_WS_CONNECTS_BURST": "10000000",
    "HOLLYWOOD_GIN_MAX_CONNECTIONS_PER_ADDRESS": "10000000",
    "HOLLYWOOD_GIN_LOG_LEVEL": "warning",
}


def wait_healthy(proc: subprocess.Popen[Any], base: str, timeout: float = 60.0) -> None:
    """Until `base` answers /healthz; RuntimeError if the process ends or time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{base} did not answer /healthz within {timeout:.0f} s")
        time.sleep(0.1)


def stop(proc: subprocess.Popen[Any], timeout: float = 15) -> None:
    """Terminate, and kill what has not ended within `timeout` seconds."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def app_server(
    env: dict[str, str] | None = None, root: Path = REPO, argv: list[str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The real server, `python -m hollywood_gin`, one worker, on a fresh SQLite file.

    `root`: the folder whose package runs (another version's, see `export`).
    `argv`: another command that serves it with the same settings.
    """
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="gin-bench-") as tmp:
        full_env = dict(os.environ)
        full_env.update(LOAD_ENV)
        full_env.update(
            {
                "HOLLYWOOD_GIN_HOST": "127.0.0.1",
                "HOLLYWOOD_GIN_PORT": str(port),
                "HOLLYWOOD_GIN_DATA_FILE": str(Path(tmp) / "tables.sqlite3"),
            }
        )
        full_env.update(env or {})
        # Before the rename (issue 22) the package was `app`.
        package = "hollywood_gin" if (root / "hollywood_gin").is_dir() else "app"
        proc = subprocess.Popen(argv or [sys.executable, "-m", package], cwd=root, env=full_env)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(proc, base)
            yield base, proc
        finally:
            stop(proc)


def export(commit: str, into: Path) -> Path:
    """The package, `templates` and `static` folders as they were at `commit`, in a folder
    of their own under `into` (run from there, `python -m hollywood_gin` is that version;
    `python -m app` before the rename)."""
    target = into / commit
    target.mkdir()
    tree = subprocess.run(
        ["git", "ls-tree", "--name-only", commit],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    package = "hollywood_gin" if "hollywood_gin" in tree else "app"
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit, package, "templates", "static"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target


@contextmanager
def echo_server(*, deflate: bool = False) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    args = [sys.executable, "-m", "benchmarks.serve", "--echo", "--port", str(port)]
    if not deflate:
        args.append("--no-deflate")
    proc = subprocess.Popen(args, cwd=REPO)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(proc, base)
        yield base, proc
    finally:
        stop(proc)


def build_echo_app() -> FastAPI:
    """A bare FastAPI app: `/healthz` and the `/relay/{room}` WebSocket."""
    app = FastAPI()
    rooms: dict[str, set[WebSocket]] = {}
    fillers: dict[int, str] = {}

    @app.get("/healthz")
    async def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.websocket("/relay/{room}")
    async def relay(websocket: WebSocket, room: str) -> None:
        await websocket.accept()
        members = rooms.setdefault(room, set())
        members.add(websocket)
        try:
            while True:
                message = orjson.loads(await websocket.receive_text())
                pad = int(message.get("pad", 0))
                filler = fillers.get(pad) or fillers.setdefault(pad, "x" * pad)
                reply = orjson.dumps(
                    {"type": "state", "version": message["version"] + 1, "pad": filler}
                ).decode()
                for member in list(members) if message.get("fanout") else [websocket]:
                    await member.send_text(reply)
        except WebSocketDisconnect:
            pass
        finally:
            members.discard(websocket)
            if not members:
                rooms.pop(room, None)

    return app


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--echo", action="store_true", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--no-deflate", action="store_true")
    args = parser.parse_args()
    import uvicorn

    raise_open_files()
    uvicorn.run(
        build_echo_app(),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        ws_max_size=4096 * 4,
        ws_per_message_deflate=not args.no_deflate,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
