"""A whole Hollywood match against the computer seat, over a real WebSocket to a
real `python -m hollywood_gin` on loopback (no bot delay). The person's side is played
by the easy bot, fed only the states that arrive on its socket."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from hollywood_gin.bots import Bot
from hollywood_gin.engine.views import view_from_wire
from tests.conftest import running_server
from tests.wire import playable

ENV = {
    "HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0",
    "HOLLYWOOD_GIN_WS_MESSAGES_PER_SECOND": "10000",
    "HOLLYWOOD_GIN_WS_BURST": "10000",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("bots") / "tables.sqlite3"
    with running_server(data, env=ENV) as (base, _proc):
        yield base


async def play_against_computer(base: str, strength: str) -> tuple[dict[str, Any], int, list[str]]:
    r = httpx.post(
        base + "/api/tables",
        json={"name": "Ann", "scoring": "hollywood", "target": 100, "computer": strength},
        timeout=10,
    )
    assert r.status_code == 201, r.text
    table_id, token = r.json()["table_id"], r.json()["token"]
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    me = Bot("easy", random.Random(3))
    last: dict[str, Any] = {}
    sent = 0
    errors: list[str] = []
    acted_on = -1
    headers = {"Cookie": f"gin_seat_{table_id}={token}"}
    async with connect(url, additional_headers=headers, origin=None, proxy=None) as ws:
        async for raw in ws:
            msg = json.loads(raw)
            if msg["type"] == "error":
                errors.append(msg["code"])
                continue
            if msg["type"] != "state":
                continue
            last = msg
            view = view_from_wire(msg)  # the person's bot reads the state it was sent
            me.observe(view)
            if msg["table"]["status"] == "match_over":
                break
            if playable(view.legal) and view.version != acted_on:
                acted_on = view.version
                action = me.choose(view).wire()
                await ws.send(json.dumps({"type": "action", "version": acted_on, "action": action}))
                sent += 1
    return last, sent, errors


@pytest.mark.anyio
async def test_a_hollywood_match_against_the_computer_over_the_websocket(server: str) -> None:
    final, sent, errors = await asyncio.wait_for(
        play_against_computer(server, "normal"), timeout=150
    )
    assert final["table"]["status"] == "match_over"
    assert final["sheet"]["match_winner"] in (0, 1)
    assert all(g["finished"] for g in final["sheet"]["games"])
    assert len(final["sheet"]["games"]) == 3
    computer = next(p for p in final["table"]["players"] if p["seat"] == 1)
    assert computer["computer"] == "normal"
    # the computer made moves too: more versions than the person's own actions
    assert final["version"] > 1 + sent
    # a state can cross our action in flight; nothing else may be refused
    assert set(errors) <= {"stale_version"}, errors
