"""Hints over the wire (a real server on loopback, real SQLite, the computer's worker
processes): at a table with the computer a seat's `{"type": "hint"}` is answered with
the coach's best move and the priced choices, all of them moves `legal` offers;
between two people it is `not_allowed`, from a spectator `not_seated`, and in every
case the table is unchanged (docs/protocol-guide.md "Hints")."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from tests.conftest import running_server
from tests.engine.helpers import deck_order
from tests.sockets import SyncSocket
from tests.wire import playable

FAST = {
    "HOLLYWOOD_GIN_WS_MESSAGES_PER_SECOND": "10000",
    "HOLLYWOOD_GIN_WS_BURST": "10000",
    "HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0.05",
    "HOLLYWOOD_GIN_TEST_HOOKS": "1",
}

# Ten ranks each, no two cards of a suit within two ranks: with two cards more, a seat
# still has seven unmelded, 28 points at least, so nobody can knock in the three
# moves the test plays, whatever the computer and the coach choose. On a random deal
# a seat could (about one deal in a hundred): the hand ended before the third move.
NO_KNOCK = deck_order(
    non_dealer="AS 2H 3D 4C 5S 6H 7D 8C 9S TH",
    dealer="AH 2D 3C 4S 5H 6D 7C 8S 9H TD",
    upcard="KC",
)


class Socket(SyncSocket):
    """One socket of a table, at the table's own path (`/t/{id}/ws`)."""

    def __init__(self, base: str, table_id: str, token: str | None) -> None:
        url = base.replace("http://", "ws://") + f"/t/{table_id}/ws"
        super().__init__(connect(url, origin=base).__enter__(), timeout=30, hello=token)  # type: ignore[arg-type]

    def my_move(self) -> None:
        """Wait until the seat has a move of the hand to make."""
        deadline = time.monotonic() + 30
        while not [a for a in playable(self.state.get("legal") or []) if a["kind"] != "next_hand"]:
            assert time.monotonic() < deadline, self.state
            self.drain()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = Path(tmp_path_factory.mktemp("hints")) / "gin.sqlite3"
    with running_server(data, env=FAST) as (base, _proc):
        yield base


def test_a_hint_at_the_computers_table(server: str) -> None:
    body = {"computer": "rookie", "test_decks": [NO_KNOCK], "test_first_dealer": 1}
    made = httpx.post(server + "/api/tables", json=body).json()
    me = Socket(server, made["table_id"], made["token"])
    watcher = Socket(server, made["table_id"], None)
    for _ in range(3):  # the offer or a draw, then a discard (or the other way round)
        me.my_move()
        version = me.state["version"]
        # A `knock` in `legal` carries its `deadwood`, for display only: not in an action.
        legal = [
            {k: v for k, v in a.items() if k != "deadwood"} for a in playable(me.state["legal"])
        ]
        me.ws.send('{"type": "hint"}')
        hint = me.until("hint")
        assert hint["version"] == version
        actions = [c["action"] for c in hint["choices"]]
        assert hint["best"] == actions[0]
        assert all(a in legal for a in actions), (actions, legal)
        assert len(actions) == len({json.dumps(a, sort_keys=True) for a in actions})
        if me.state["hand"]["phase"] == "discard":
            assert len(actions) >= 2
        else:  # an offer or a draw: every choice priced
            assert len(actions) == len(legal)
        assert all(isinstance(c["expected"], int | float) for c in hint["choices"])
        me.drain()
        assert me.state["version"] == version  # a hint changes nothing
        # The same question again (another tab, a reload): the same answer.
        me.ws.send('{"type": "hint"}')
        assert me.until("hint") == hint
        # A spectator gets none.
        watcher.ws.send('{"type": "hint"}')
        assert watcher.until("error")["code"] == "not_seated"
        watcher.drain()
        assert watcher.state["version"] == version
        me.ws.send(json.dumps({"type": "action", "version": version, "action": hint["best"]}))
        me.drain()
    assert not me.errors
    # A hint with a field the protocol does not know is a bad message.
    me.ws.send('{"type": "hint", "card": "7H"}')
    assert me.until("error")["code"] == "bad_message"
    me.ws.close()
    watcher.ws.close()


def test_no_hint_between_two_people(server: str) -> None:
    made = httpx.post(server + "/api/tables", json={}).json()
    table_id = made["table_id"]
    joined = httpx.post(server + f"/api/tables/{table_id}/seats", json={"name": "Bob"}).json()
    ann = Socket(server, table_id, made["token"])
    bob = Socket(server, table_id, joined["token"])
    ann.drain()
    version = ann.state["version"]
    for seat in (ann, bob):
        seat.ws.send('{"type": "hint"}')
        error = seat.until("error")
        assert error["code"] == "not_allowed" and error["version"] == version
        seat.drain()
        assert seat.state["version"] == version and not seat.hints
    ann.ws.close()
    bob.ws.close()
