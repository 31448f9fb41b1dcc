"""Real `python -m hollywood_gin` on a loopback port, real `websockets` clients.

Two clients play whole matches for all nine option combinations while a
spectator follows. Every frame any client receives is checked for cards it
may not see, versions only go up, and at the end the version is exactly one
(the deal) plus the number of accepted actions.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.melds import deadwood
from tests.conftest import running_server
from tests.wire import playable

CARD_TOKEN = re.compile(r'"([A2-9TJQK][CDHS])"')
FAST = {
    "HOLLYWOOD_GIN_WS_MESSAGES_PER_SECOND": "10000",
    "HOLLYWOOD_GIN_WS_BURST": "10000",
}
COMBOS = [
    (r, s) for r in ("standard", "straight", "oklahoma") for s in ("hand", "game", "hollywood")
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("play") / "tables.sqlite3"
    with running_server(data, env=FAST) as (base, _proc):
        yield base


def ws_url(base: str, table_id: str) -> str:
    return base.replace("http://", "ws://") + f"/ws/tables/{table_id}"


def new_table(base: str, **options: Any) -> tuple[str, str, str]:
    r = httpx.post(base + "/api/tables", json={"name": "Ann", **options}, timeout=10)
    assert r.status_code == 201, r.text
    table_id, token0 = r.json()["table_id"], r.json()["token"]
    r = httpx.post(base + f"/api/tables/{table_id}/seats", json={"name": "Bob"}, timeout=10)
    assert r.status_code == 201, r.text
    return table_id, token0, r.json()["token"]


def dw(cards: list[str]) -> int:
    return deadwood([Card.parse(c) for c in cards])


def choose(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A quick, somewhat sensible random player, so that matches end."""
    legal: list[dict[str, Any]] = playable(state["legal"])
    kinds = {a["kind"] for a in legal}
    knocks = [a for a in legal if a["kind"] == "knock"]
    if knocks:
        return min(knocks, key=lambda a: a["deadwood"])  # `deadwood` sent back: ignored
    if kinds <= {"next_hand", "new_match"} or rng.random() < 0.25:
        return rng.choice(legal)
    hand = state["hand"]
    mine: list[str] = hand["my_cards"]
    if kinds & {"take_upcard", "draw_discard"}:
        top = hand["discard_top"]
        with_top = [*mine, top]
        best_after = min(dw([c for c in with_top if c != d]) for d in mine)
        take = best_after < dw(mine)
        wanted = ("take_upcard", "draw_discard") if take else ("pass", "draw_stock")
        return next(a for a in legal if a["kind"] in wanted)
    discards = [a for a in legal if a["kind"] == "discard"]
    if discards:
        return min(discards, key=lambda a: (dw([c for c in mine if c != a["card"]]), rng.random()))
    return rng.choice(legal)


@dataclass
class Client:
    """One socket's record of what it saw and did."""

    seat: int | None
    versions: list[int] = field(default_factory=list)
    sent: int = 0
    stale: int = 0
    errors: list[str] = field(default_factory=list)
    frames: int = 0
    public: set[str] = field(default_factory=set)
    hand_number: int = 0
    last: dict[str, Any] = field(default_factory=dict)

    def check(self, raw: str, msg: dict[str, Any]) -> None:
        """No frame holds a card this client may not see
        (docs/protocol-guide.md "Hidden information")."""
        self.frames += 1
        if msg.get("type") != "state" or "hand" not in msg:
            assert not CARD_TOKEN.search(raw) or msg.get("type") == "state"
            return
        hand = msg["hand"]
        if hand["number"] != self.hand_number:
            self.hand_number, self.public = hand["number"], set()
        if hand["phase"] == "over":
            return  # the result reveals both hands and the deck
        if hand["discard_top"]:
            self.public.add(hand["discard_top"])
        if hand["last_action"] and hand["last_action"].get("card"):
            self.public.add(hand["last_action"]["card"])
        # The move log names only cards that were public when they moved (a client
        # that joins late learns them there); the engine's property test checks that
        # no view names a card whose place is secret, move log included.
        self.public.update(e["card"] for e in hand.get("events", []) if e.get("card"))
        allowed = self.public | set(hand.get("my_cards", []))
        seen = set(CARD_TOKEN.findall(raw))
        assert seen <= allowed, f"seat {self.seat} saw {sorted(seen - allowed)}"
        if self.seat is None:
            assert "my_cards" not in hand and "opponent_card_count" not in hand


async def play(
    ws: ClientConnection, client: Client, rng: random.Random, stop_at: int | None = None
) -> None:
    """Act on every new version until the match is over (or the version reaches stop_at)."""
    acted_on = -1
    async for raw in ws:
        assert isinstance(raw, str)
        msg = json.loads(raw)
        client.check(raw, msg)
        if msg["type"] == "error":
            client.errors.append(msg["code"])
            client.stale += msg["code"] == "stale_version"
            continue
        if msg["type"] != "state":
            continue
        version = msg["version"]
        assert not client.versions or version >= client.versions[-1]
        client.versions.append(version)
        client.last = msg
        if msg["table"]["status"] == "match_over" or (stop_at is not None and version >= stop_at):
            return
        if client.seat is not None and playable(msg["legal"]) and version != acted_on:
            acted_on = version
            await ws.send(
                json.dumps({"type": "action", "version": version, "action": choose(msg, rng)})
            )
            client.sent += 1


def connect_as(base: str, table_id: str, token: str | None) -> Any:
    headers = {"Cookie": f"gin_seat_{table_id}={token}"} if token else None
    return connect(ws_url(base, table_id), additional_headers=headers, origin=None, proxy=None)


async def play_match(base: str, rules: str, scoring: str, seed: int) -> dict[str, Any]:
    table_id, token0, token1 = new_table(base, rules=rules, scoring=scoring, target=100)
    rng = random.Random(seed)
    players = [Client(0), Client(1)]
    watcher = Client(None)
    async with (
        connect_as(base, table_id, token0) as ws0,
        connect_as(base, table_id, token1) as ws1,
        connect_as(base, table_id, None) as wss,
    ):
        await asyncio.wait_for(
            asyncio.gather(
                play(ws0, players[0], rng), play(ws1, players[1], rng), play(wss, watcher, rng)
            ),
            timeout=120,
        )
    final = players[0].last
    accepted = sum(p.sent - p.stale for p in players)
    return {
        "final": final,
        "accepted": accepted,
        "players": players,
        "watcher": watcher,
        "hands": final["hand"]["number"],
    }


@pytest.mark.anyio
@pytest.mark.parametrize(("rules", "scoring"), COMBOS, ids=[f"{r}-{s}" for r, s in COMBOS])
async def test_two_clients_play_a_whole_match(server: str, rules: str, scoring: str) -> None:
    out = await play_match(server, rules, scoring, seed=COMBOS.index((rules, scoring)))
    final, players, watcher = out["final"], out["players"], out["watcher"]
    assert final["table"]["status"] == "match_over"
    assert final["sheet"]["match_winner"] in (0, 1)
    # The deal is version 1; every accepted action adds exactly one.
    assert final["version"] == 1 + out["accepted"]
    for p in players:
        assert set(p.errors) <= {"stale_version"}, p.errors
        assert p.last["version"] == final["version"]
    assert watcher.last["version"] == final["version"] and watcher.errors == []
    assert watcher.last["sheet"] == final["sheet"]
    games = {"hand": 1, "game": 1, "hollywood": 3}[scoring]
    assert len(final["sheet"]["games"]) == games
    assert all(g["finished"] for g in final["sheet"]["games"])
    print(
        f"{rules}/{scoring}: {out['hands']} hands, version {final['version']}, "
        f"{sum(p.frames for p in players) + watcher.frames} frames checked"
    )


@pytest.mark.anyio
async def test_foreign_origin_is_403_at_the_handshake(server: str) -> None:
    table_id, _, _ = new_table(server)

    with pytest.raises(InvalidStatus) as refused:
        async with connect(ws_url(server, table_id), origin="http://evil.example", proxy=None):  # type: ignore[arg-type]
            pass
    assert refused.value.response.status_code == 403


@pytest.mark.anyio
async def test_own_origin_and_no_origin_are_allowed(server: str) -> None:
    table_id, _, _ = new_table(server)

    kinds = []
    for origin in (server, None):
        async with connect(ws_url(server, table_id), origin=origin, proxy=None) as ws:  # type: ignore[arg-type]
            kinds.append(json.loads(await ws.recv())["type"])
    assert kinds == ["state", "state"]


@pytest.mark.anyio
async def test_oversized_frames_on_the_real_server(server: str) -> None:
    table_id, token0, _ = new_table(server)

    async with connect_as(server, table_id, token0) as ws:
        await ws.recv()
        # Over the app's 4096 bytes but under uvicorn's 4x frame limit: an error.
        await ws.send('{"type":"ping","pad":"' + "x" * 5000 + '"}')
        assert json.loads(await ws.recv())["code"] == "too_large"
        await ws.send('{"type":"ping"}')
        assert json.loads(await ws.recv())["type"] == "pong"
    async with connect_as(server, table_id, token0) as ws:
        await ws.recv()
        # Over uvicorn's limit: the server closes with 1009 (message too big).
        await ws.send("x" * (4 * 4096 + 10))
        with pytest.raises(ConnectionClosed):
            while True:
                await ws.recv()
        assert ws.close_code == 1009
