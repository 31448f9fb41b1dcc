"""Deals nobody can choose, over the wire (a real server on loopback, real SQLite):
the commitment is in the state before any entropy for its deal is accepted, a hand
played with chosen entropies reveals a deck that the protocol's derivation gives,
a restart deals the same, and malformed entropy changes nothing."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from hollywood_gin.cli import main
from tests.conftest import running_server
from tests.engine.test_fair_deal import reference_deck
from tests.sockets import SyncSocket
from tests.wire import playable

E0 = "0123456789abcdef0123456789abcdef"
E1 = "fedcba9876543210fedcba9876543210"
E2 = "00000000000000000000000000000001"
# Every message is followed by a ping: the socket rate limit has tests of its own.
FAST = {"HOLLYWOOD_GIN_WS_MESSAGES_PER_SECOND": "10000", "HOLLYWOOD_GIN_WS_BURST": "10000"}


class Seat(SyncSocket):
    """One seat's socket (a spectator's: no token), read up to the `pong` of a `ping`
    after every message."""

    def __init__(self, base: str, table_id: str, token: str | None) -> None:
        url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
        super().__init__(connect(url, origin=base).__enter__(), timeout=10, hello=token)  # type: ignore[arg-type]

    def send(self, action: dict[str, Any]) -> None:
        """Send `action` on the latest version."""
        self.drain()
        self.ws.send(
            json.dumps({"type": "action", "version": self.state["version"], "action": action})
        )
        self.drain()

    def close(self) -> None:
        self.ws.close()


def play_hand(seats: list[Seat]) -> dict[str, Any]:
    """Knock when open, else take nothing from the pile and discard the first card."""
    while True:
        for s in seats:
            s.drain()
        state = seats[0].state
        if state["hand"]["phase"] == "over":
            return state
        # `resign` is open to both seats: the mover is the seat with a move to make.
        mover = next(s for s in seats if playable(s.state["legal"]))
        legal = mover.state["legal"]
        knocks = [a for a in legal if a["kind"] == "knock"]
        plain = [a for a in legal if a["kind"] in ("pass", "draw_stock", "discard")]
        mover.send({k: v for k, v in (knocks or plain)[0].items() if k != "deadwood"})


def check_reveal(reveal: dict[str, Any], commitment: str, entropy: list[str | None]) -> None:
    secret = bytes.fromhex(reveal["server_secret"])
    assert hashlib.sha256(secret).hexdigest() == commitment
    assert reveal["entropy"] == entropy
    raw = [None if e is None else bytes.fromhex(e) for e in entropy]
    assert reveal["deck"] == reference_deck(secret, raw[0], raw[1])


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "tables.sqlite3"


@pytest.fixture
def server(data: Path) -> Iterator[str]:
    with running_server(data, env=FAST) as (base, _proc):
        yield base


def test_chosen_entropies_reproduce_the_deck_and_a_restart_deals_the_same(data: Path) -> None:
    with running_server(data, env=FAST) as (base, _proc):
        created = httpx.post(
            base + "/api/tables", json={"name": "Ann", "scoring": "game", "entropy": E0}
        ).json()
        table_id = created["table_id"]
        first = created["next_deal"]["commitment"]
        watcher = Seat(base, table_id, None)
        # Waiting: the commitment is in the state before the joiner can add its part.
        assert watcher.state["table"]["status"] == "waiting"
        assert watcher.state["next_deal"] == {"commitment": first}
        joined = httpx.post(
            base + f"/api/tables/{table_id}/seats", json={"name": "Bob", "entropy": E1}
        )
        assert joined.status_code == 201
        tokens = [created["token"], joined.json()["token"]]
        seats = [Seat(base, table_id, t) for t in tokens]
        assert "next_deal" not in seats[0].state  # dealt: no deal is open
        state = play_hand(seats)
        reveal = state["hand"]["result"]["deck_reveal"]
        check_reveal(reveal, first, [E0, E1])
        # The secret was in no frame before the hand was over.
        for s in [watcher, *seats]:
            s.drain()
            over = next(i for i, f in enumerate(s.frames) if '"deck_reveal"' in f)
            assert not any(reveal["server_secret"] in f for f in s.frames[:over])
        # From the end of the hand: the next deal's commitment, before any next_hand.
        second = state["next_deal"]["commitment"]
        assert second != first
        assert seats[1].state["next_deal"] == {"commitment": second}
        record = httpx.get(base + f"/api/tables/{table_id}/hands/1").json()
        assert record["deck"] == reveal["deck"]
        assert record["server_secret"] == reveal["server_secret"]
        assert record["entropy"] == [E0, E1]
        # Seat 0 adds its part with next_hand; seat 1 (as the computer would) none.
        seats[0].send({"kind": "next_hand", "entropy": E2})
        seats[1].send({"kind": "next_hand"})
        dealt = seats[0].drain()["hand"]
        assert dealt["number"] == 2
        for s in seats:
            s.close()
        watcher.close()
    # A restart: the dealt hand 2 is replayed from the log, and its reveal still holds.
    with running_server(data, env=FAST) as (base, _proc):
        seats = [Seat(base, table_id, t) for t in tokens]
        assert seats[0].state["hand"]["my_cards"] == dealt["my_cards"]
        assert seats[0].state["hand"]["deck_commitment"] == dealt["deck_commitment"]
        state = play_hand(seats)
        check_reveal(state["hand"]["result"]["deck_reveal"], second, [E2, None])
        record = httpx.get(base + f"/api/tables/{table_id}/hands/2").json()
        assert record["entropy"] == [E2, None]
        # The downloaded record checks with the command, and names what was seen.
        saved = data.parent / "hand2.json"
        saved.write_text(json.dumps(record))
        assert main(["verify", str(saved), "--commitment", second, "--entropy", E2]) == 0
        for s in seats:
            s.close()


@pytest.mark.parametrize("bad", ["abc", "g" * 32, "0" * 31, "0" * 33, 7, ["0" * 32]])
def test_malformed_entropy_is_refused_and_changes_nothing(server: str, bad: Any) -> None:
    r = httpx.post(server + "/api/tables", json={"entropy": bad})
    assert r.status_code == 422 and r.json()["error"] == "bad_request"
    created = httpx.post(server + "/api/tables", json={"scoring": "game"}).json()
    table_id = created["table_id"]
    r = httpx.post(server + f"/api/tables/{table_id}/seats", json={"entropy": bad})
    assert r.status_code == 422
    assert httpx.get(server + f"/api/tables/{table_id}").json()["open_seats"] == [1]
    joined = httpx.post(server + f"/api/tables/{table_id}/seats", json={}).json()
    seats = [Seat(server, table_id, t) for t in (created["token"], joined["token"])]
    play_hand(seats)
    before = seats[0].state
    seats[0].send({"kind": "next_hand", "entropy": bad})
    assert [e["code"] for e in seats[0].errors] == ["bad_message"]
    assert seats[0].drain() == before  # nothing changed; the socket still answers
    seats[0].send({"kind": "next_hand", "entropy": E0})
    assert seats[0].state["ready"] == [True, False]
    # A second next_hand is a no-op (docs/protocol-guide.md "Actions"): its entropy is
    # not a second part.
    ready = seats[0].state
    seats[0].send({"kind": "next_hand", "entropy": E1})
    assert [e["code"] for e in seats[0].errors] == ["bad_message"]
    assert seats[0].state == ready
    seats[1].send({"kind": "next_hand"})
    assert seats[0].drain()["hand"]["number"] == 2
    assert seats[0].state["version"] == ready["version"] + 1
    for s in seats:
        s.close()


def test_test_decks_report_no_server_secret(tmp_path: Path) -> None:
    deck = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    with running_server(tmp_path / "t.sqlite3", env={**FAST, "HOLLYWOOD_GIN_TEST_HOOKS": "1"}) as (
        base,
        _proc,
    ):
        created = httpx.post(
            base + "/api/tables", json={"test_decks": [deck], "entropy": E0}
        ).json()
        assert "next_deal" not in created
        joined = httpx.post(base + f"/api/tables/{created['table_id']}/seats", json={}).json()
        seats = [Seat(base, created["table_id"], t) for t in (created["token"], joined["token"])]
        reveal = play_hand(seats)["hand"]["result"]["deck_reveal"]
        assert reveal["deck"] == deck
        assert reveal["server_secret"] is None and reveal["entropy"] == [E0, None]
        for s in seats:
            s.close()
