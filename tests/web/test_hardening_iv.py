"""Issue 41 on a real `python -m hollywood_gin` over real sockets, the attacker on
127.0.0.2 and the players on 127.0.0.1: a replay page is built once per finished hand
however often and from wherever it is asked for, and a flood of card orders costs no
store write per order yet survives a restart (graceful shutdown flushes it)."""

from __future__ import annotations

import asyncio
import re
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from websockets.asyncio.client import ClientConnection, connect

from hollywood_gin.web.guard.seats import cookie_name
from hollywood_gin.web.http.replay import hand_steps
from tests.bots.coach_hands import MELD_BREAK
from tests.conftest import running_server

ATTACKER = "127.0.0.2"
ENV = {
    "HOLLYWOOD_GIN_TEST_HOOKS": "true",
    "HOLLYWOOD_GIN_METRICS": "true",
    "HOLLYWOOD_GIN_WS_MESSAGES_PER_SECOND": "10000",
    "HOLLYWOOD_GIN_WS_BURST": "10000",
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("hard4") / "tables.sqlite3"
    with running_server(data, env=ENV) as (url, _proc):
        yield url


def client(base: str, local: str = "127.0.0.1") -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=local)
    return httpx.Client(base_url=base, transport=transport, timeout=30)


def metric(base: str, name: str, labels: str = "") -> float:
    """A counter's value from `/metrics` (a counter without labels is there from the
    start, at 0)."""
    text = httpx.get(base + "/metrics", timeout=10).text
    found = re.search(rf"^{re.escape(name + labels)} (\S+)$", text, re.M)
    assert found, f"{name} is not counted"
    return float(found.group(1))


def meld_break_table(base: str, name: str = "Bob") -> tuple[str, str, str]:
    """A table dealt MELD_BREAK's deck (seat 0 deals); (id, seat 0's token, seat 1's)."""
    with client(base) as http:
        made = http.post(
            "/api/tables",
            json={"name": "Ann", "test_decks": [MELD_BREAK["deck"]], "test_first_dealer": 0},
        )
        assert made.status_code == 201, made.text
        table_id = made.json()["table_id"]
        joined = http.post(f"/api/tables/{table_id}/seats", json={"name": name})
        assert joined.status_code == 201, joined.text
    return table_id, made.json()["token"], joined.json()["token"]


class Seat:
    """One socket of a seat, reading its states."""

    def __init__(self, ws: ClientConnection, state: dict[str, Any]) -> None:
        self.ws = ws
        self.state = state

    @classmethod
    async def open(cls, base: str, table_id: str, token: str, local: str = "127.0.0.1") -> Seat:
        url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
        ws = await connect(url, origin=None, proxy=None, local_addr=(local, 0))
        await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
        while True:
            message = orjson.loads(await ws.recv())
            if message.get("type") == "state" and message.get("you") is not None:
                return cls(ws, message)

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(orjson.dumps(message).decode())

    async def until(self, check: Any) -> dict[str, Any]:
        """The first message (a state, or an error) for which `check` is true."""
        while True:
            message = orjson.loads(await asyncio.wait_for(self.ws.recv(), 30))
            if message.get("type") == "state":
                self.state = message
            if check(message):
                return dict(message)

    async def act(self, action: dict[str, Any], at: int | None = None) -> dict[str, Any]:
        """Send `action` (once this socket has seen version `at`); the answer."""
        if at is not None and self.state["version"] < at:
            await self.until(lambda m: m.get("type") == "state" and m["version"] >= at)
        version = self.state["version"]
        await self.send({"type": "action", "version": version, "action": action})
        return await self.until(
            lambda m: (
                m.get("type") == "error" or (m.get("type") == "state" and m["version"] > version)
            )
        )


async def play_meld_break(base: str, table_id: str, tokens: tuple[str, str]) -> None:
    seats = [await Seat.open(base, table_id, t) for t in tokens]
    for n, entry in enumerate(MELD_BREAK["actions"]):
        answer = await seats[entry["seat"]].act(entry["action"], at=1 + n)
        assert answer["type"] == "state", answer
    for seat in seats:
        await seat.ws.close()


def replay_config(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="replay-config">(.*?)</script>', page)
    assert found, "no replay config in the page"
    config: dict[str, Any] = orjson.loads(found.group(1))
    return config


# --- item 3: a replay page is built once -----------------------------------------------------
def test_a_replay_page_is_built_once_whoever_asks_and_however_often(base: str) -> None:
    # A name that would end the page's script were it not escaped.
    table_id, token0, token1 = meld_break_table(base, name="</script><b>")
    with client(base) as http:
        assert http.get(f"/t/{table_id}/hands/1").status_code == 404  # in play
    asyncio.run(play_meld_break(base, table_id, (token0, token1)))
    before = metric(base, "hollywood_gin_replay_builds_total")
    pages = []
    for local in ("127.0.0.1", ATTACKER):
        with client(base, local) as http:
            for _ in range(8):
                r = http.get(f"/t/{table_id}/hands/1")
                assert r.status_code == 200
                pages.append(r.text)
            assert http.get(f"/t/{table_id}/hands/2").status_code == 404  # never dealt
    assert metric(base, "hollywood_gin_replay_builds_total") - before == 1
    with client(base) as http:
        record = http.get(f"/api/tables/{table_id}/hands/1").json()
    config = replay_config(pages[0])
    assert config["steps"] == orjson.loads(orjson.dumps(hand_steps(record)))
    assert config["result"] == record["result"] and config["sheet"] == record["sheet"]
    assert config["hand"] == 1 and config["you"] is None and config["dealer"] == 0
    assert config["players"][1]["name"] == "</script><b>"
    assert "</script><b>" not in pages[0]
    assert all(replay_config(p)["steps"] == config["steps"] for p in pages[1:])
    # Pages are kept whole too, by reader: a seat's own page says which seat it is.
    cookies = {cookie_name(table_id): token1}
    with client(base, ATTACKER) as http:
        mine = http.get(f"/t/{table_id}/hands/1", cookies=cookies)
        plain = http.get(f"/t/{table_id}/hands/1", headers={"accept-encoding": "identity"})
    assert replay_config(mine.text)["you"] == 1
    assert replay_config(plain.text)["you"] is None and plain.text == pages[0]
    assert "content-encoding" not in plain.headers


# --- item 4: card orders are coalesced -------------------------------------------------------
def stored_orders(data: Path, table_id: str) -> list[list[str] | None]:
    """Each seat's card order as the SQLite file holds it now."""
    with sqlite3.connect(f"file:{data}?mode=ro", uri=True) as db:
        (raw,) = db.execute("SELECT seats FROM tables WHERE id = ?", (table_id,)).fetchone()
    return [(s.get("order") or {}).get("cards") for s in orjson.loads(raw)]


async def arrange_until_shown(seat: Seat, cards: list[str]) -> None:
    await seat.send({"type": "arrange", "cards": cards})
    await seat.until(lambda m: m.get("type") == "state" and m["hand"]["my_cards"] == cards)


def test_a_flood_of_card_orders_writes_little_and_the_last_order_survives(
    tmp_path: Path,
) -> None:
    data = tmp_path / "tables.sqlite3"
    last: list[list[str]] = [[], []]

    async def flood(base: str, table_id: str, tokens: tuple[str, str]) -> None:
        # Two sockets per seat from the attacker's address, 15 orders each.
        socks = [await Seat.open(base, table_id, t, ATTACKER) for t in (*tokens, *tokens)]
        for n in range(15):
            for sock in socks:
                cards = list(sock.state["hand"]["my_cards"])
                await sock.send({"type": "arrange", "cards": cards[n % 10 :] + cards[: n % 10]})
        for sock in socks:  # each socket's messages are taken in order: all handled
            await sock.send({"type": "ping"})
            await sock.until(lambda m: m.get("type") == "pong")
        for seat in (0, 1):
            last[seat] = sorted(socks[seat].state["hand"]["my_cards"], reverse=seat == 1)
            await arrange_until_shown(socks[seat], last[seat])
        for sock in socks:
            await sock.ws.close()

    async def move_then_arrange(base: str, table_id: str, tokens: tuple[str, str]) -> None:
        seats = [await Seat.open(base, table_id, t) for t in tokens]
        answer = await seats[1].act({"kind": "pass"})  # the non-dealer's first move
        assert answer["type"] == "state", answer
        # Written with that move, before its state was sent.
        assert stored_orders(data, table_id) == last
        last[0] = sorted(last[0], reverse=True)
        await arrange_until_shown(seats[0], last[0])
        for seat in seats:
            await seat.ws.close()

    with running_server(data, env=ENV) as (base, proc):
        table_id, token0, token1 = meld_break_table(base)
        before = metric(base, "hollywood_gin_seat_writes_total")
        asyncio.run(flood(base, table_id, (token0, token1)))
        # 62 orders; at most one write every few seconds (none yet, mostly).
        assert metric(base, "hollywood_gin_seat_writes_total") - before < 10
        asyncio.run(move_then_arrange(base, table_id, (token0, token1)))
        proc.send_signal(signal.SIGTERM)  # a graceful shut-down writes the order waiting
        assert proc.wait(timeout=60) in (0, -signal.SIGTERM)  # uvicorn raises it again
    assert stored_orders(data, table_id) == last

    async def shown(base: str) -> list[list[str]]:
        seats = [await Seat.open(base, table_id, t) for t in (token0, token1)]
        for seat in seats:
            await seat.ws.close()
        return [seat.state["hand"]["my_cards"] for seat in seats]

    with running_server(data, env=ENV) as (base, _proc):
        assert asyncio.run(shown(base)) == last
