"""The coach is fair under a flood (docs/protocol-guide.md "Hand review"), on a real
`python -m hollywood_gin` over real HTTP: an attacker on 127.0.0.2 polls the review
keys of its own tables as fast as it likes; a victim on 127.0.0.1 asks for its own
hand's review once, then every so often, and its review arrives before the
attacker's third (before this change, reviews ran one at a time for the whole
server in the order first asked, behind a queue of 16: the victim waited for every
attacker review queued before it)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import connect

from tests.bots.coach_hands import MELD_BREAK, UNDERCUT
from tests.conftest import running_server

ATTACKER = "127.0.0.2"
ENV = {
    "HOLLYWOOD_GIN_TEST_HOOKS": "true",
    # One worker: the attacker and the victim must share it.
    "HOLLYWOOD_GIN_REVIEW_PROCESSES": "1",
    "HOLLYWOOD_GIN_REVIEW_SAMPLES": "200",
    "HOLLYWOOD_GIN_WS_MESSAGES_PER_SECOND": "10000",
    "HOLLYWOOD_GIN_WS_BURST": "10000",
}


def client(base: str, local: str = "127.0.0.1") -> httpx.Client:
    return httpx.Client(
        base_url=base, transport=httpx.HTTPTransport(local_address=local), timeout=30
    )


async def play(base: str, record: Mapping[str, Any]) -> str:
    """A table dealt `record`'s deck, its hand 1 played through both seats' sockets."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        made = await http.post(
            "/api/tables",
            json={"name": "Ann", "test_decks": [record["deck"]], "test_first_dealer": 0},
        )
        assert made.status_code == 201, made.text
        table_id: str = made.json()["table_id"]
        joined = await http.post(f"/api/tables/{table_id}/seats", json={"name": "Bob"})
        assert joined.status_code == 201, joined.text
    tokens = (made.json()["token"], joined.json()["token"])
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    socks = []
    versions = [0, 0]
    for token in tokens:
        ws = await connect(url, origin=None, proxy=None)
        await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
        socks.append(ws)

    async def until_version(seat: int, at: int) -> None:
        while versions[seat] < at:
            message = orjson.loads(await asyncio.wait_for(socks[seat].recv(), 30))
            assert message.get("type") != "error", message
            if message.get("type") == "state" and message.get("you") is not None:
                versions[seat] = message["version"]

    for n, entry in enumerate(record["actions"]):
        seat = entry["seat"]
        await until_version(seat, 1 + n)
        action = {"type": "action", "version": versions[seat], "action": entry["action"]}
        await socks[seat].send(orjson.dumps(action).decode())
    await until_version(0, 1 + len(record["actions"]))
    for ws in socks:
        await ws.close()
    return table_id


def test_a_flooding_address_cannot_starve_another_tables_review(tmp_path: Path) -> None:
    with running_server(tmp_path / "tables.sqlite3", env=ENV) as (base, _proc):
        attacker_tables = [asyncio.run(play(base, UNDERCUT)) for _ in range(5)]
        victim_table = asyncio.run(play(base, MELD_BREAK))
        keys = [f"/api/tables/{t}/hands/1/review?seat={s}" for t in attacker_tables for s in (0, 1)]
        done: dict[str, float] = {}  # attacker's key -> when its review arrived
        statuses: set[int] = set()
        stop = threading.Event()

        def flood() -> None:
            with client(base, ATTACKER) as http:
                while not stop.is_set():
                    for key in keys:
                        if key in done or stop.is_set():
                            continue
                        r = http.get(key)
                        statuses.add(r.status_code)
                        if r.status_code == 200:
                            done[key] = time.monotonic()
                        time.sleep(0.02)

        attacker = threading.Thread(target=flood, daemon=True)
        attacker.start()
        try:
            while not statuses:  # the flood is on before the victim asks
                time.sleep(0.05)
            with client(base) as http:
                url = f"/api/tables/{victim_table}/hands/1/review?seat=1"
                progress = []
                for _ in range(3000):  # bounds a hang; no wall-clock assertion
                    r = http.get(url)
                    if r.status_code == 200:
                        arrived = time.monotonic()
                        break
                    assert r.status_code == 202, r.text
                    assert r.json()["status"] == "computing", r.text
                    progress.append(r.json())
                    time.sleep(0.1)
                else:
                    raise AssertionError("the victim's review never came")
                review = r.json()
        finally:
            stop.set()
            attacker.join(timeout=60)
        before = sorted(t for t in done.values() if t <= arrived)
        assert len(before) < 3, f"{len(before)} attacker reviews came before the victim's"
        assert [d["index"] for d in review["decisions"]] == [0, 2, 3]
        # Its progress: of its 3 decisions, never going back.
        assert all(body["of"] == 3 for body in progress), progress
        assert [b["done"] for b in progress] == sorted(b["done"] for b in progress)
        # Past its caps the attacker was told so, not queued.
        assert 429 in statuses
        with client(base, ATTACKER) as http:
            r = http.get(keys[-1])
            if r.status_code == 429:
                assert r.json()["error"] == "rate_limited"
