"""Ready signals over the wire (docs/protocol-guide.md "Actions"): a real
server on loopback, two seats' sockets that press "Next hand" and "Rematch" on the same
state, and the press that arrives second still counts."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.sync.client import connect

from tests.conftest import running_server
from tests.e2e.conftest import ANN, BOB, Server, deck
from tests.sockets import SyncSocket


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Test decks, and room for the many pings with which these sockets read."""
    env = {
        "HOLLYWOOD_GIN_TEST_HOOKS": "1",
        "HOLLYWOOD_GIN_WS_MESSAGES_PER_SECOND": "10000",
        "HOLLYWOOD_GIN_WS_BURST": "10000",
    }
    with running_server(tmp_path_factory.mktemp("ready") / "t.sqlite3", env=env) as (base, _p):
        yield Server(base)


class Seat(SyncSocket):
    """One seat's socket, its seat cookie sent with the handshake."""

    def __init__(self, base: str, table_id: str, token: str) -> None:
        url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
        headers = {"Cookie": f"gin_seat_{table_id}={token}"}
        ws = connect(url, additional_headers=headers, proxy=None).__enter__()
        super().__init__(ws, timeout=20)  # closed by `two_seats`

    def send(self, action: dict[str, Any], version: int | None = None) -> None:
        at = self.state["version"] if version is None else version
        self.ws.send(json.dumps({"type": "action", "version": at, "action": action}))


@contextlib.contextmanager
def two_seats(server: Server, hands: int, **body: Any) -> Iterator[tuple[Seat, Seat]]:
    """Ann deals the first hand (test hooks); the non-dealer holds three melds and the
    five of clubs, takes the upcard and knocks at once (`knock_at_once`)."""
    decks = [deck(BOB, ANN, "4H", [])] * hands
    table = server.create_table(name="Ann", test_decks=decks, test_first_dealer=0, **body)
    bob = server.join(table["table_id"], "Bob")
    seats = (
        Seat(server.base, table["table_id"], table["token"]),
        Seat(server.base, table["table_id"], bob["token"]),
    )
    try:
        yield seats
    finally:
        for s in seats:
            s.ws.close()


def knock_at_once(seats: tuple[Seat, Seat]) -> None:
    ann = seats[0]
    ann.drain()
    mover = seats[ann.state["hand"]["turn"]]
    mover.drain()
    kinds = {a["kind"] for a in mover.state["legal"]}
    assert "take_upcard" in kinds, mover.state["legal"]
    mover.send({"kind": "take_upcard"})
    mover.drain()
    mover.send({"kind": "knock", "discard": "5C"})
    mover.drain()  # the knock is made; the other socket's state follows it
    for s in seats:
        s.drain()
        assert s.errors == []
    assert ann.state["hand"]["phase"] == "over"


def test_next_hand_pressed_by_both_on_the_same_state_deals(server: Server) -> None:
    with two_seats(server, hands=12, scoring="hollywood", target=250) as seats:
        ann, bob = seats
        for i in range(10):
            knock_at_once(seats)
            assert ann.state["table"]["status"] == "hand_over", i
            seen = ann.state["version"]
            number = ann.state["hand"]["number"]
            # Both chosen on `seen`: the second to arrive is one version behind.
            ann.send({"kind": "next_hand"}, seen)
            bob.send({"kind": "next_hand"}, seen)
            ann.drain()
            bob.drain()
            for s in seats:
                s.drain()
                assert s.errors == []
                assert s.state["hand"]["number"] == number + 1
                assert s.state["version"] == seen + 2
                assert s.state["table"]["status"] == "playing"


def test_a_second_press_is_a_no_op_and_rematch_on_one_state_starts(server: Server) -> None:
    with two_seats(server, hands=3, scoring="hand") as seats:
        ann, bob = seats
        knock_at_once(seats)
        assert ann.state["table"]["status"] == "match_over"
        seen = ann.state["version"]
        bob.send({"kind": "new_match"}, seen)
        bob.send({"kind": "new_match"}, seen)  # pressed twice: nothing more, no error
        bob.send({"kind": "new_match"}, seen + 1)
        bob.drain()
        assert bob.errors == [] and bob.state["ready"] == [False, True]
        assert bob.state["version"] == seen + 1
        ann.send({"kind": "new_match"}, seen)
        ann.drain()
        for s in seats:
            s.drain()
            assert s.errors == []
            assert s.state["table"]["status"] == "playing"
            assert s.state["version"] == seen + 2
        # A play on an old version is still stale, and the current state follows.
        bob.send({"kind": "take_upcard"}, seen)
        bob.drain()
        assert [e["code"] for e in bob.errors] == ["stale_version"]
        assert bob.state["version"] == seen + 2
        # `resign` on an old version counts while it is open; pressed again, nothing.
        ann.send({"kind": "resign"}, seen)
        ann.drain()
        assert ann.state["table"]["ended"] == {"by": "resign", "seat": 0}
        ann.send({"kind": "resign"}, seen)
        ann.send({"kind": "resign"}, ann.state["version"])
        before = ann.state["version"]
        ann.drain()
        assert ann.errors == [] and ann.state["version"] == before
