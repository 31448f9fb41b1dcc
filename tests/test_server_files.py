"""On a real `python -m hollywood_gin`: the data file, its WAL and a
backup are the server's user's alone (0600), and a `kill -9` of the server leaves no
computer worker or resource tracker behind."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import time
from pathlib import Path

import httpx
import orjson
import pytest
from websockets.asyncio.client import connect

from tests.conftest import run_gin, running_server
from tests.wire import playable


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_file_its_wal_and_a_backup_are_0600(tmp_path: Path) -> None:
    data = tmp_path / "data" / "tables.sqlite3"
    with running_server(data) as (base, _proc):
        assert httpx.post(base + "/api/tables", json={"name": "Ann"}, timeout=10).status_code == 201
        assert mode(data) == 0o600
        wal = data.with_name(data.name + "-wal")
        assert wal.exists() and mode(wal) == 0o600
        backup = tmp_path / "backups" / "copy.sqlite3"
        env = dict(os.environ, HOLLYWOOD_GIN_DATA_FILE=str(data))
        done = run_gin("backup", str(backup), env=env)
        assert done.returncode == 0, done.stderr
        assert mode(backup) == 0o600


def test_a_file_of_an_earlier_version_is_made_private_at_start(tmp_path: Path) -> None:
    data = tmp_path / "tables.sqlite3"
    with running_server(data):
        pass
    data.chmod(0o644)
    with running_server(data):
        assert mode(data) == 0o600


def children(pid: int) -> set[int]:
    """Every process whose parent is `pid` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("PPid:") and int(line.split()[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return "Z" not in state.split()[1]  # a zombie has exited


async def make_the_computer_think(base: str) -> None:
    made = httpx.post(
        base + "/api/tables", json={"name": "Ann", "computer": "easy"}, timeout=10
    ).json()
    url = base.replace("http://", "ws://") + f"/ws/tables/{made['table_id']}"
    async with connect(url, origin=None, proxy=None) as ws:
        await ws.send(orjson.dumps({"type": "hello", "token": made["token"]}).decode())
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            state = orjson.loads(await asyncio.wait_for(ws.recv(), 10))
            if state.get("type") != "state":
                continue
            last = (state.get("hand") or {}).get("last_action") or {}
            if last.get("seat") == 1:
                return  # the computer has moved: its worker exists
            if playable(state["legal"]):  # `resign` is open whenever a match is under way
                action = playable(state["legal"])[0]
                await ws.send(
                    orjson.dumps(
                        {"type": "action", "version": state["version"], "action": action}
                    ).decode()
                )
    raise AssertionError("the computer never moved")


@pytest.mark.anyio
async def test_kill_9_of_the_server_ends_its_computer_worker_and_resource_tracker(
    tmp_path: Path,
) -> None:
    env = {"HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0"}
    with running_server(tmp_path / "t.sqlite3", env=env) as (base, proc):
        await make_the_computer_think(base)
        kids = children(proc.pid)
        assert kids, "no worker process"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(alive(k) for k in kids):
            time.sleep(0.2)
        left = [k for k in kids if alive(k)]
        for k in left:  # never leave them running, even when the test fails
            os.kill(k, signal.SIGKILL)
        assert left == []
