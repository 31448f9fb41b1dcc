"""`kill -9` in the middle of a Hollywood match loses nothing that anybody saw.

Start the server, play part of a match over real sockets, kill the process
with SIGKILL (no shutdown code runs), start it again on the same data file:
every client reconnects and gets the same state at the same version, and the
match then finishes correctly. Finally SIGTERM closes sockets with 1012.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from tests.conftest import port_of, running_server
from tests.e2e.test_socket_play import FAST, Client, connect_as, new_table, play

STOP_AT = 90  # the version at which both players pause for the crash


# Who is connected, and since when a seat has been away, are presence, not the game:
# they follow the sockets, which a crash cuts (docs/protocol-guide.md "Around the match").
PRESENCE = {"connected", "away_seconds"}


def without_presence(state: dict[str, Any]) -> dict[str, Any]:
    table = dict(state["table"])
    table["players"] = [{k: v for k, v in p.items() if k not in PRESENCE} for p in table["players"]]
    return {**state, "table": table}


async def first_part(base: str, table_id: str, tokens: list[str]) -> tuple[list[Client], Client]:
    rng = random.Random(11)
    players, watcher = [Client(0), Client(1)], Client(None)
    async with (
        connect_as(base, table_id, tokens[0]) as ws0,
        connect_as(base, table_id, tokens[1]) as ws1,
        connect_as(base, table_id, None) as wss,
    ):
        await asyncio.wait_for(
            asyncio.gather(
                play(ws0, players[0], rng, stop_at=STOP_AT),
                play(ws1, players[1], rng, stop_at=STOP_AT),
                play(wss, watcher, rng, stop_at=STOP_AT),
            ),
            timeout=60,
        )
        # A player that stopped at STOP_AT may still have an answer on its way (a
        # `stale_version` for an action sent on the version before): count it too.
        for ws, client in ((ws0, players[0]), (ws1, players[1])):
            await drain(ws, client)
    return players, watcher


async def drain(ws: Any, client: Client) -> None:
    """Every answer to what this socket sent: a socket's messages are handled in order,
    so all of them come before the `pong` of a `ping` sent now (a fixed wait missed a
    late `stale_version` on a loaded machine and counted its action as accepted)."""
    await ws.send('{"type":"ping"}')
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if msg.get("type") == "pong":
            return
        if msg.get("type") == "error":
            client.errors.append(msg["code"])
            client.stale += msg["code"] == "stale_version"


async def reconnect_and_finish(
    base: str, table_id: str, tokens: list[str], before: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[Client], Client]:
    rng = random.Random(12)
    players, watcher = [Client(0), Client(1)], Client(None)
    firsts: list[dict[str, Any]] = []
    async with (
        connect_as(base, table_id, tokens[0]) as ws0,
        connect_as(base, table_id, tokens[1]) as ws1,
        connect_as(base, table_id, None) as wss,
    ):
        for ws, old in zip((ws0, ws1, wss), before, strict=True):
            await ws.send(json.dumps({"type": "hello", "version": old["version"]}))
            firsts.append(json.loads(await ws.recv()))
        await asyncio.wait_for(
            asyncio.gather(
                play(ws0, players[0], rng), play(ws1, players[1], rng), play(wss, watcher, rng)
            ),
            timeout=120,
        )
    return firsts, players, watcher


async def closed_by_sigterm(base: str, table_id: str, token: str, proc: Any) -> int | None:
    async with connect_as(base, table_id, token) as ws:
        await ws.recv()
        proc.send_signal(signal.SIGTERM)
        try:
            while True:
                await asyncio.wait_for(ws.recv(), 10)
        except ConnectionClosed:
            pass
        return ws.close_code


@pytest.mark.anyio
async def test_kill_9_then_restart_loses_nothing(tmp_path: Path) -> None:
    data = tmp_path / "tables.sqlite3"
    with running_server(data, env=FAST) as (base, proc):
        port = port_of(base)  # the restart's, below
        table_id, token0, token1 = new_table(base, rules="standard", scoring="hollywood")
        tokens = [token0, token1]
        players, watcher = await first_part(base, table_id, tokens)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    before = [players[0].last, players[1].last, watcher.last]
    accepted_before = sum(p.sent - p.stale for p in players)
    assert all(s["version"] == STOP_AT for s in before)
    assert 1 + accepted_before == STOP_AT

    with running_server(data, port=port, env=FAST) as (base, proc):
        firsts, players2, watcher2 = await reconnect_and_finish(base, table_id, tokens, before)
        # The same state at the same version, for both seats and the spectator.
        for old, new in zip(before, firsts, strict=True):
            assert new["version"] == old["version"] == STOP_AT
            assert without_presence(new) == without_presence(old)
        final = players2[0].last
        accepted_after = sum(p.sent - p.stale for p in players2)
        assert final["table"]["status"] == "match_over"
        assert all(g["finished"] for g in final["sheet"]["games"])
        assert final["version"] == 1 + accepted_before + accepted_after
        assert watcher2.last["version"] == final["version"]
        for p in players2:
            assert set(p.errors) <= {"stale_version"}
        close_code = await closed_by_sigterm(base, table_id, token0, proc)
        proc.wait(timeout=20)
    assert close_code == 1012
    print(
        f"crash: {accepted_before} actions before kill -9, recovered at version "
        f"{firsts[0]['version']}; match finished at version {final['version']} after "
        f"{final['hand']['number']} hands; SIGTERM closed the socket with {close_code}"
    )
