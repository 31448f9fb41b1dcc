"""`hollywood-gin backup FILE` while the server plays; the copy restores and plays on.

A real server on a real file, real socket clients; the backup is taken by the
command a host runs, mid-match, while the server keeps serving.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from tests.conftest import run_gin, running_server
from tests.e2e.test_socket_play import FAST, choose
from tests.tables.helpers import gin_deck
from tests.wire import playable

# Gin for the first hands (their decks are a test hook); after the restore the decks
# are shuffled, and a quick player (the socket tests') plays the match to its end.
HOOKS = {"HOLLYWOOD_GIN_TEST_HOOKS": "true", **FAST}


class Player:
    """One seat's socket and the last state it got."""

    def __init__(self, sockets: ExitStack, base: str, table_id: str, token: str) -> None:
        url = base.replace("http://", "ws://") + f"/t/{table_id}/ws"
        self.ws: ClientConnection = sockets.enter_context(connect(url, max_size=2**20))
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.state: dict[str, Any] = {}
        self.sync()

    def sync(self) -> None:
        self.ws.send(json.dumps({"type": "ping"}))
        while True:
            frame = json.loads(self.ws.recv(timeout=10))
            if frame["type"] == "pong":
                return
            assert frame["type"] != "error", frame
            if frame["type"] == "state" and frame["you"] is not None:
                self.state = frame

    def act(self, action: dict[str, Any]) -> None:
        message = {"type": "action", "version": self.state["version"], "action": action}
        self.ws.send(json.dumps(message))
        self.sync()


RNG = random.Random(15)


def play(players: list[Player], until: int | None = None) -> None:
    """Move for whichever seat may, until the match is over (or `until` actions)."""
    done = 0
    while until is None or done < until:
        for p in players:
            p.sync()
        if players[0].state["table"]["status"] == "match_over":
            return
        mover = next(p for p in players if playable(p.state["legal"]))
        mover.act(choose(mover.state, RNG))
        done += 1
    for p in players:
        p.sync()


def backup_command(data_file: Path, target: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOLLYWOOD_GIN_DATA_FILE": str(data_file)}
    return run_gin("backup", str(target), env=env)


def test_a_backup_taken_mid_match_restores_and_the_match_finishes(tmp_path: Path) -> None:
    live = tmp_path / "live" / "tables.sqlite3"
    copy = tmp_path / "backups" / "tables-copy.sqlite3"
    with running_server(live, env=HOOKS) as (base, _proc):
        body = {"name": "Ann", "scoring": "game", "test_decks": [gin_deck()] * 20}
        body["test_first_dealer"] = 0
        made = httpx.post(base + "/api/tables", json=body, timeout=10).json()
        table_id = made["table_id"]
        joined = httpx.post(f"{base}/api/tables/{table_id}/seats", json={}, timeout=10).json()
        tokens = [made["token"], joined["token"]]
        sockets = ExitStack()
        players = [Player(sockets, base, table_id, t) for t in tokens]
        play(players, until=5)  # hand 1 won, both on to hand 2, its upcard taken
        at_backup = players[0].state["version"]
        done = backup_command(live, copy)
        assert done.returncode == 0, done.stderr
        play(players, until=3)  # the live table moves on past the copy
        assert players[0].state["version"] == at_backup + 3
        sockets.close()

    # Restore: the copy in place of the data file, the server started on it.
    restored = tmp_path / "restored" / "tables.sqlite3"
    restored.parent.mkdir()
    shutil.copyfile(copy, restored)
    with running_server(restored, env=HOOKS) as (base, _proc), ExitStack() as sockets:
        players = [Player(sockets, base, table_id, t) for t in tokens]
        assert players[0].state["version"] == at_backup
        assert players[0].state["hand"]["number"] == 2
        play(players)
        final = players[0].state
    assert final["table"]["status"] == "match_over"
    assert final["hand"]["number"] >= 3  # hand 2 went on from the copy, then more
