"""The wire contract, byte for byte: a scripted match through a real server, every
frame compared with a recording made from the code before a reshaping.

The server is `python -m hollywood_gin` with its test hooks (deck orders, first dealer), so
the deals are fixed; the players choose by a fixed rule, and after every message
each socket is read up to the `pong` of a `ping`, so no state is ever coalesced
and every socket sees the same frames on every run. What is random by design (the
table id, tokens, salts and so the deck commitments, the seconds a seat has been
away) is replaced by placeholders
before comparing; every other byte must match.

`HOLLYWOOD_GIN_RECORD_WIRE=1 python -m pytest tests/e2e/test_wire_recording.py`
writes the recording anew (only for an intended change of the wire).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.melds import arrange, deadwood
from tests.conftest import running_server
from tests.wire import playable

RECORDING = Path(__file__).resolve().parent / "wire" / "recording.jsonl.gz"
ALL_CARDS = [r + s for s in "CDHS" for r in "A23456789TJQK"]
ENV = {
    "HOLLYWOOD_GIN_TEST_HOOKS": "1",
    "HOLLYWOOD_GIN_WS_MESSAGES_PER_SECOND": "10000",
    "HOLLYWOOD_GIN_WS_BURST": "10000",
}
SALT = re.compile(r'"salt":"[0-9a-f]{32}"')
COMMITMENT = re.compile(r'"deck_commitment":"[0-9a-f]{64}"')
# Whole seconds since a seat left: 0 here, unless a slow machine crosses a second.
AWAY = re.compile(r'"away_seconds":[0-9]+')


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("wire") / "tables.sqlite3"
    with running_server(data, env=ENV) as (base, _proc):
        yield base


def decks(seed: int, n: int) -> list[list[str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        deck = list(ALL_CARDS)
        rng.shuffle(deck)
        out.append(deck)
    return out


def dw(cards: list[str]) -> int:
    return deadwood([Card.parse(c) for c in cards])


def choose(state: dict[str, Any], knocks_so_far: list[int]) -> dict[str, Any]:
    """A fixed rule: knock at the least deadwood (every other knock naming its melds,
    `deadwood` sent back as shown), take a pile card that lowers deadwood, discard
    the card that leaves the least."""
    legal: list[dict[str, Any]] = playable(state["legal"])
    kinds = {a["kind"] for a in legal}
    knocks = [a for a in legal if a["kind"] == "knock"]
    if knocks:
        knock = dict(min(knocks, key=lambda a: (a["deadwood"], a["discard"])))
        knocks_so_far.append(1)
        if len(knocks_so_far) % 2:
            ten = [Card.parse(c) for c in state["hand"]["my_cards"] if c != knock["discard"]]
            melds, _ = arrange(ten)
            knock = {"kind": "knock", "discard": knock["discard"]}
            knock["melds"] = [[str(c) for c in m] for m in melds]
        return knock
    if kinds <= {"next_hand", "new_match"}:
        return legal[0]
    hand = state["hand"]
    mine: list[str] = hand["my_cards"]
    if kinds & {"take_upcard", "draw_discard"}:
        with_top = [*mine, hand["discard_top"]]
        best_after = min(dw([c for c in with_top if c != d]) for d in mine)
        take = best_after < dw(mine)
        wanted = ("take_upcard", "draw_discard") if take else ("pass", "draw_stock")
        return next(a for a in legal if a["kind"] in wanted)
    discards = [a for a in legal if a["kind"] == "discard"]
    if discards:
        return min(discards, key=lambda a: (dw([c for c in mine if c != a["card"]]), a["card"]))
    return legal[0]


class Recorder:
    """Every frame each socket received, in order, with the placeholders in."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.secrets: dict[str, str] = {}

    def hide(self, text: str) -> str:
        for secret, name in self.secrets.items():
            text = text.replace(secret, name)
        text = SALT.sub('"salt":"SALT"', text)
        text = AWAY.sub('"away_seconds":SECONDS', text)
        return COMMITMENT.sub('"deck_commitment":"COMMITMENT"', text)

    def add(self, who: str, text: str) -> None:
        self.lines.append(f"{who} {self.hide(text)}")


class Socket:
    def __init__(self, name: str, ws: ClientConnection, rec: Recorder) -> None:
        self.name, self.ws, self.rec = name, ws, rec
        self.state: dict[str, Any] = {}

    async def send(self, message: dict[str, Any] | str) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        self.rec.add(f"{self.name}>", text)
        await self.ws.send(text)

    async def drain(self) -> None:
        """Everything sent to this socket so far: read up to the `pong` of a `ping`."""
        await self.ws.send('{"type":"ping"}')
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), 10)
            assert isinstance(raw, str)
            msg = json.loads(raw)
            if msg["type"] == "pong":
                return
            self.rec.add(f"{self.name}<", raw)
            if msg["type"] == "state":
                self.state = msg


async def settle(sender: Socket, everyone: list[Socket]) -> None:
    """The sender's message handled (its `pong` follows), then everybody's frames read."""
    await sender.drain()
    for s in everyone:
        if s is not sender:
            await s.drain()


def http(rec: Recorder, what: str, answer: httpx.Response) -> dict[str, Any]:
    rec.add(f"http {what} {answer.status_code}", answer.text)
    result: dict[str, Any] = answer.json()
    return result


async def table(
    base: str, rec: Recorder, label: str, options: dict[str, Any], seed: int, hands: int
) -> None:
    body = {"name": "Ann", **options, "test_decks": decks(seed, 30), "test_first_dealer": 1}
    created = httpx.post(base + "/api/tables", json=body, timeout=10)
    table_id, token0 = created.json()["table_id"], created.json()["token"]
    rec.secrets[table_id] = f"TABLE{label}"
    rec.secrets[token0] = f"TOKEN{label}0"
    http(rec, "create", created)
    joined = httpx.post(base + f"/api/tables/{table_id}/seats", json={"name": "Bob"}, timeout=10)
    rec.secrets[joined.json()["token"]] = f"TOKEN{label}1"
    http(rec, "join", joined)
    tokens = [token0, joined.json()["token"]]
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    async with contextlib.AsyncExitStack() as stack:
        # Each socket says `hello` as its first message, and is read to the end before
        # the next one opens, so every run sees the same presence changes.
        everyone: list[Socket] = []
        for name, token in (("0", tokens[0]), ("1", tokens[1]), ("s", None)):
            ws = await stack.enter_async_context(connect(url, origin=base))  # type: ignore[arg-type]
            socket = Socket(name, ws, rec)
            everyone.append(socket)
            await socket.send({"type": "hello", "token": token, "version": 0})
            await settle(socket, everyone)
        seats, spectator = everyone[:2], everyone[2]
        # Refusals: each answered to its sender alone, nothing changed.
        await spectator.send({"type": "action", "version": 1, "action": {"kind": "pass"}})
        await seats[0].send("not json")
        await seats[1].send({"type": "action", "version": 0, "action": {"kind": "pass"}})
        await seats[1].send({"type": "action", "version": 1, "action": {"kind": "pass"}})
        await seats[0].send({"type": "action", "version": 1, "action": {"kind": "draw_stock"}})
        await seats[0].send({"type": "arrange", "cards": ["AS"]})
        mine = seats[0].state["hand"]["my_cards"]
        await seats[0].send({"type": "arrange", "cards": list(reversed(mine))})
        await settle(seats[0], everyone)
        knocked: list[int] = []
        while True:
            state0 = seats[0].state
            hand = state0.get("hand") or {}
            if hand.get("number", 0) > hands or state0["table"]["status"] == "match_over":
                break
            # The end actions (`resign` ...) are open to both seats: not a move.
            movers = [s for s in seats if playable(s.state["legal"])]
            assert movers, "nobody can move"
            for mover in movers:
                action = choose(mover.state, knocked)
                version = mover.state["version"]
                await mover.send({"type": "action", "version": version, "action": action})
                await settle(mover, everyone)
        if seats[0].state["table"]["status"] == "match_over":
            for mover in seats:
                action = mover.state["legal"][0]
                version = mover.state["version"]
                await mover.send({"type": "action", "version": version, "action": action})
                await settle(mover, everyone)
        http(rec, "public", httpx.get(base + f"/api/tables/{table_id}", timeout=10))
        http(rec, "hand 1", httpx.get(base + f"/api/tables/{table_id}/hands/1", timeout=10))
        http(rec, "hand 99", httpx.get(base + f"/api/tables/{table_id}/hands/99", timeout=10))


async def script(base: str) -> list[str]:
    rec = Recorder()
    rec.secrets[base] = "BASE"
    await table(base, rec, "A", {"rules": "oklahoma", "scoring": "hollywood"}, 5, 3)
    await table(base, rec, "B", {"rules": "standard", "scoring": "hand", "target": 100}, 7, 99)
    await table(base, rec, "C", {"rules": "straight", "scoring": "game"}, 9, 2)
    return rec.lines


@pytest.mark.anyio
async def test_a_recorded_match_replays_to_identical_frames(server: str) -> None:
    lines = await script(server)
    if os.environ.get("HOLLYWOOD_GIN_RECORD_WIRE") == "1":
        RECORDING.parent.mkdir(exist_ok=True)
        RECORDING.write_bytes(gzip.compress("\n".join(lines).encode() + b"\n", mtime=0))
    recorded = gzip.decompress(RECORDING.read_bytes()).decode().splitlines()
    if os.environ.get("HOLLYWOOD_GIN_WIRE_DUMP"):
        Path(os.environ["HOLLYWOOD_GIN_WIRE_DUMP"]).write_text("\n".join(lines) + "\n")
    assert len(lines) == len(recorded)
    for i, (now, then) in enumerate(zip(lines, recorded, strict=True)):
        assert now == then, f"frame {i} differs"
