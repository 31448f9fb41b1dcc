"""docs/protocol-guide.md "Around the match": reactions, resign, claim, stand-in and
the turn clock, over the socket of the real app (Starlette's TestClient, a real SQLite file).

Time is the registry's injected clock: a test sets it and calls the presence's
`tick()` in the app's loop. Nothing here sleeps for a timer.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from hollywood_gin.engine.events import ActionTaken, Back
from hollywood_gin.engine.match import Match
from hollywood_gin.main import create_app
from hollywood_gin.tables.table import Table, rebuild_match
from hollywood_gin.web.socket.messages import ReactionMessage
from hollywood_gin.web.socket.state_bodies import StateMessage
from tests.e2e.test_socket_play import choose
from tests.tables.helpers import (
    INDEX_DECK,
    exchange,
    gin_deck,
    make_settings,
    of_type,
    snapshot,
    until_pong,
)
from tests.web.helpers import registry_of
from tests.wire import playable

CLAIM_AFTER = 2.0


class Clock:
    """The registry's clock in a test: moves only when told."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def stood_in(table: Table) -> list[ActionTaken]:
    """The moves the computer made standing in for a seat."""
    return [e for e in table.match.log if isinstance(e, ActionTaken) and e.by == "stand_in"]


@pytest.fixture
def clock() -> Clock:
    return Clock()


_OPEN: list[ExitStack] = []


@pytest.fixture
def client(tmp_path: Path, clock: Clock) -> Iterator[TestClient]:
    settings = make_settings(
        tmp_path, claim_after_seconds=CLAIM_AFTER, ws_burst=10_000, ws_messages_per_second=10_000.0
    )
    with TestClient(create_app(settings)) as c, ExitStack() as sockets:
        registry_of(c).clock = clock
        _OPEN.append(sockets)
        try:
            yield c
        finally:
            _OPEN.pop()
            # Every socket a test opened closes before the app does, whatever failed.
            sockets.close()


def new_table(client: TestClient, **body: Any) -> tuple[str, str, str]:
    r = client.post(
        "/api/tables",
        json={"name": "Ann", "test_decks": [INDEX_DECK] * 40, "test_first_dealer": 0, **body},
    )
    assert r.status_code == 201, r.text
    table_id, token0 = r.json()["table_id"], r.json()["token"]
    r = client.post(f"/api/tables/{table_id}/seats", json={"name": "Bob"})
    assert r.status_code == 201
    client.cookies.clear()
    return table_id, token0, r.json()["token"]


def table_of(client: TestClient, table_id: str) -> Table:
    table = registry_of(client).get(table_id)
    assert table is not None
    return table


def connect(client: TestClient, table_id: str, token: str | None) -> Any:
    """A socket that says hello with `token` (None: a spectator)."""
    ws = _OPEN[-1].enter_context(client.websocket_connect(f"/ws/tables/{table_id}"))
    assert ws.receive_json()["type"] == "state"
    if token is not None:
        ws.send_json({"type": "hello", "token": token})
    _LAST.pop(id(ws), None)
    remember(ws, until_pong(ws))
    return ws


_LAST: dict[int, dict[str, Any]] = {}


def remember(ws: WebSocketTestSession, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    states = of_type(frames, "state")
    if states:
        _LAST[id(ws)] = states[-1]
    return frames


def latest(ws: WebSocketTestSession) -> dict[str, Any]:
    """The newest state this socket has been sent (read up to a pong)."""
    remember(ws, until_pong(ws))
    assert id(ws) in _LAST, "no state"
    return _LAST[id(ws)]


def wait_until(condition: Callable[[], bool]) -> None:
    """Wait for the app's loop to catch up (a socket closed, a stored change sent;
    not a timer)."""
    for _ in range(1000):
        if condition():
            return
        time.sleep(0.005)
    raise AssertionError("the server never got there")


def tick(client: TestClient) -> None:
    async def run() -> None:
        await registry_of(client).presence.tick(wait=True)

    client.portal.call(run)  # type: ignore[union-attr]


def kinds(state: dict[str, Any]) -> list[str]:
    return [a["kind"] for a in state["legal"]]


def act(ws: WebSocketTestSession, state: dict[str, Any], action: dict[str, Any]) -> list[Any]:
    return remember(
        ws, exchange(ws, {"type": "action", "version": state["version"], "action": action})
    )


# --- reactions ---------------------------------------------------------------------------


def test_a_reaction_reaches_every_connection_and_the_limits_hold(
    client: TestClient, clock: Clock
) -> None:
    now = [500.0]
    client.app.state.ws_clock = lambda: now[0]  # type: ignore[attr-defined]
    table_id, token0, token1 = new_table(client)
    table = table_of(client, table_id)
    ws0 = connect(client, table_id, token0)
    ws0b = connect(client, table_id, token0)
    ws1 = connect(client, table_id, token1)
    spec = connect(client, table_id, None)
    for ws in (ws0, ws0b, ws1, spec):
        until_pong(ws)
    before = snapshot(table)
    frames = exchange(ws0, {"type": "react", "reaction": "gg"})
    assert frames == [{"type": "reaction", "seat": 0, "reaction": "gg"}]
    ReactionMessage.model_validate(frames[0])
    for ws in (ws0b, ws1, spec):
        assert until_pong(ws) == [{"type": "reaction", "seat": 0, "reaction": "gg"}]
    assert snapshot(table) == before  # not stored, no version
    # One per seat per 2 s, over all of the seat's tabs; the other seat has its own.
    now[0] += 1.9
    assert [f.get("code") for f in exchange(ws0b, {"type": "react", "reaction": "nice"})] == [
        "rate_limited"
    ]
    assert exchange(ws1, {"type": "react", "reaction": "thanks"}) == [
        {"type": "reaction", "seat": 1, "reaction": "thanks"}
    ]
    for ws in (ws0, ws0b, spec):
        assert until_pong(ws) == [{"type": "reaction", "seat": 1, "reaction": "thanks"}]
    now[0] += 0.1
    assert exchange(ws0b, {"type": "react", "reaction": "nice"})[0]["type"] == "reaction"
    for ws in (ws0, ws1, spec):
        assert until_pong(ws) == [{"type": "reaction", "seat": 0, "reaction": "nice"}]
    # A spectator cannot react; an unknown reaction is a bad message; nothing changed.
    now[0] += 10
    assert [f.get("code") for f in exchange(spec, {"type": "react", "reaction": "gg"})] == [
        "not_seated"
    ]
    assert [f.get("code") for f in exchange(ws1, {"type": "react", "reaction": "boo"})] == [
        "bad_message"
    ]
    assert [f.get("code") for f in exchange(ws1, {"type": "react"})] == ["bad_message"]
    assert snapshot(table) == before
    for ws in (ws0, ws0b, ws1, spec):
        ws.close()


# --- resign -------------------------------------------------------------------------------


def test_resign_ends_the_match_for_both_and_a_new_match_follows(client: TestClient) -> None:
    table_id, token0, token1 = new_table(client, scoring="hollywood")
    ws0 = connect(client, table_id, token0)
    ws1 = connect(client, table_id, token1)
    s1 = latest(ws1)
    assert "resign" in kinds(s1) and "claim" not in kinds(s1)
    act(ws1, s1, {"kind": "resign"})
    for ws, seat in ((ws0, 0), (ws1, 1)):
        state = latest(ws)
        StateMessage.model_validate(state)
        assert state["you"] == seat
        assert state["table"]["status"] == "match_over"
        assert state["table"]["ended"] == {"by": "resign", "seat": 1}
        assert state["sheet"]["match_winner"] == 0
        assert kinds(state) == ["new_match"]
    table = table_of(client, table_id)
    # Stored like any action: a restart's replay gives the same state.
    replayed = rebuild_match(table.record())[1]
    assert [replayed.view(s).wire() for s in (0, 1)] == [table.view(s).wire() for s in (0, 1)]
    # A new match works after it.
    act(ws0, latest(ws0), {"kind": "new_match"})
    act(ws1, latest(ws1), {"kind": "new_match"})
    state = latest(ws0)
    assert state["table"]["status"] == "playing" and "ended" not in state["table"]
    assert state["sheet"]["match_winner"] is None
    ws0.close()
    ws1.close()


def test_resign_during_hand_over(client: TestClient) -> None:
    table_id, token0, token1 = new_table(client, scoring="game")
    ws0 = connect(client, table_id, token0)
    ws1 = connect(client, table_id, token1)
    import random

    rng = random.Random(3)
    for _ in range(200):
        s0, s1 = latest(ws0), latest(ws1)
        if s0["table"]["status"] == "hand_over":
            break
        for ws, s in ((ws0, s0), (ws1, s1)):
            if playable(s["legal"]):
                act(ws, s, choose(s, rng))
                break
    s0 = latest(ws0)
    assert s0["table"]["status"] == "hand_over"
    assert kinds(s0) == ["next_hand", "resign"]
    act(ws0, s0, {"kind": "resign"})
    s1 = latest(ws1)
    assert s1["table"]["ended"] == {"by": "resign", "seat": 0}
    assert s1["sheet"]["match_winner"] == 1
    ws0.close()
    ws1.close()


# --- away: claim and stand-in -------------------------------------------------------------


def leave(client: TestClient, table_id: str, ws: Any, seat: int) -> None:
    ws.close()
    wait_until(lambda: not registry_of(client).hub.connected(table_id, seat))


def test_claim_opens_only_after_the_away_time(client: TestClient, clock: Clock) -> None:
    table_id, token0, token1 = new_table(client)
    ws0 = connect(client, table_id, token0)
    ws1 = connect(client, table_id, token1)
    leave(client, table_id, ws1, 1)
    state = latest(ws0)
    bob = state["table"]["players"][1]
    assert bob["connected"] is False and bob["away_seconds"] == 0
    assert "claim" not in kinds(state)
    clock.now += CLAIM_AFTER - 0.01
    tick(client)
    assert "claim" not in kinds(latest(ws0))
    # A claim sent before its time is refused and changes nothing.
    table = table_of(client, table_id)
    before = snapshot(table)
    frames = act(ws0, table.view(0).wire(), {"kind": "claim"})
    assert [f.get("code") for f in of_type(frames, "error")] == ["illegal_action"]
    assert snapshot(table) == before
    clock.now += 0.01
    tick(client)
    state = latest(ws0)
    assert kinds(state)[-3:] == ["resign", "claim", "stand_in"]
    assert state["table"]["players"][1]["away_seconds"] == int(CLAIM_AFTER)
    act(ws0, state, {"kind": "claim"})
    state = latest(ws0)
    assert state["table"]["status"] == "match_over"
    assert state["table"]["ended"] == {"by": "claim", "seat": 0}
    assert state["sheet"]["match_winner"] == 0
    # Bob comes back and sees how it ended.
    ws1 = connect(client, table_id, token1)
    state = latest(ws1)
    assert state["table"]["ended"] == {"by": "claim", "seat": 0}
    assert state["table"]["players"][1]["away_seconds"] is None
    replayed = rebuild_match(table.record())[1]
    assert replayed.view(1).wire() == table.view(1).wire()
    ws0.close()
    ws1.close()


def test_a_stand_in_plays_legal_moves_until_the_seat_says_hello_again(
    client: TestClient, clock: Clock
) -> None:
    import random

    table_id, token0, token1 = new_table(client, scoring="game")
    table = table_of(client, table_id)
    ws0 = connect(client, table_id, token0)
    ws1 = connect(client, table_id, token1)
    leave(client, table_id, ws1, 1)
    clock.now += CLAIM_AFTER
    tick(client)
    state = latest(ws0)
    assert "stand_in" in kinds(state)
    act(ws0, state, {"kind": "stand_in"})
    state = latest(ws0)
    assert state["table"]["players"][1]["stand_in"] is True
    assert "stand_in" not in kinds(state) and "claim" in kinds(state)
    # Ann plays; the computer plays Bob's moves (the engine refuses any illegal one).
    rng = random.Random(5)
    stood: list[ActionTaken] = []
    # A generous bound (up to ~30 s): on a loaded machine the computer's worker
    # processes answer late, and this waits for moves, it does not time them.
    for _ in range(3000):
        stood = stood_in(table)
        if len(stood) >= 6:
            break
        state = latest(ws0)
        if playable(state["legal"]) and state["version"] == table.version:
            act(ws0, state, choose(state, rng))
        else:
            time.sleep(0.01)  # the stand-in thinks in its own task
    assert len(stood) >= 6 and all(e.seat == 1 for e in stood)
    # At normal strength, decided in the computer's worker processes, not the server's.
    mine = registry_of(client).computer.seats(table.id)
    assert mine is not None and mine.stand_in_bots[1].strength == "normal"
    thinkers = registry_of(client).thinkers
    assert thinkers is not None and thinkers.pids and os.getpid() not in thinkers.pids
    # Bob says hello again: the stand-in stops, stored as `back`.
    ws1 = connect(client, table_id, token1)
    wait_until(lambda: not table.match.presence.stand_in[1])
    assert Back(1) in table.match.log
    # The change is sent once it is stored (the writer commits, then broadcasts), so
    # the flag can flip a moment before Bob's socket has the state that says so.
    wait_until(lambda: latest(ws1)["table"]["players"][1]["stand_in"] is False)
    state = latest(ws1)
    assert state["table"]["players"][1]["stand_in"] is False
    moves = len(stood_in(table))
    # Whatever Bob's turn, nobody plays it for him any more.
    for _ in range(20):
        s0 = latest(ws0)
        if playable(s0["legal"]) and s0["version"] == table.version:
            act(ws0, s0, choose(s0, rng))
    assert (
        len([e for e in table.match.log if isinstance(e, ActionTaken) and e.by == "stand_in"])
        == moves
    )
    # The log replays to the same table (a restart).
    replayed = rebuild_match(table.record())[1]
    assert replayed.presence.stand_in == [False, False]
    assert [replayed.view(s).wire() for s in (0, 1)] == [table.view(s).wire() for s in (0, 1)]
    ws0.close()
    ws1.close()


# --- the turn clock -----------------------------------------------------------------------


def test_turn_seconds_is_checked_at_creation(client: TestClient) -> None:
    for bad in (14, 601, "60", 30.5, True):
        r = client.post("/api/tables", json={"turn_seconds": bad})
        assert r.status_code == 422, bad
    r = client.post("/api/tables", json={"turn_seconds": None})
    assert r.status_code == 201


def test_the_timeout_move_happens_once_and_only_after_the_deadline(
    client: TestClient, clock: Clock
) -> None:
    table_id, token0, token1 = new_table(client, turn_seconds=15)
    table = table_of(client, table_id)
    ws0 = connect(client, table_id, token0)
    ws1 = connect(client, table_id, token1)
    state = latest(ws1)
    assert state["server_time"] == int(clock.now * 1000)
    deadline = state["hand"]["turn_deadline"]
    assert deadline == int((clock.now + 15) * 1000)
    assert [p["timeouts"] for p in state["table"]["players"]] == [0, 0]
    version = table.version
    clock.now += 14.99
    tick(client)
    assert table.version == version  # not before the deadline
    clock.now += 0.01
    tick(client)
    tick(client)
    assert table.version == version + 1  # once
    entry = table.match.log[-1]
    assert isinstance(entry, ActionTaken)
    assert entry.seat == 1 and entry.by == "timeout"
    assert entry.action.kind in ("take_upcard", "pass")
    state = latest(ws1)
    assert state["table"]["players"][1]["timeouts"] == 1
    # The next action due has its own deadline, from now.
    assert state["hand"]["turn_deadline"] == int((clock.now + 15) * 1000)
    tick(client)
    assert table.version == version + 1
    # A seat's own move resets its count.
    seat = state["hand"]["turn"]
    ws = ws1 if seat == 1 else ws0
    mine = latest(ws)
    act(ws, mine, playable(mine["legal"])[0])
    assert table.match.presence.timeouts[seat] == 0
    assert table.match.presence.timeouts[1] == (1 if seat == 0 else 0)
    ws0.close()
    ws1.close()


def test_three_timeouts_in_a_row_make_a_seat_away(client: TestClient, clock: Clock) -> None:
    table_id, token0, token1 = new_table(client, turn_seconds=15)
    table = table_of(client, table_id)
    ws0 = connect(client, table_id, token0)
    ws1 = connect(client, table_id, token1)
    # Nobody moves: the clock moves for whoever must act, each time.
    for _ in range(8):
        if max(table.match.presence.timeouts) >= 3:
            break
        clock.now += 15
        tick(client)
    away = 0 if table.match.presence.timeouts[0] >= 3 else 1
    assert table.match.presence.timeouts[away] == 3
    other = ws1 if away == 0 else ws0
    state = latest(other)
    assert state["table"]["players"][away]["timeouts"] == 3
    assert {"claim", "stand_in"} <= set(kinds(state))
    # Replayed from the log, the counts are the same (a restart).
    replayed: Match = rebuild_match(table.record())[1]
    assert replayed.presence.timeouts == table.match.presence.timeouts
    ws0.close()
    ws1.close()


def gin_then_hand_over(client: TestClient) -> tuple[Table, Any, Any]:
    """A clocked table whose first hand Bob (seat 1) wins by gin in two moves; the
    sockets of Ann and Bob, the hand over."""
    deck = gin_deck()
    table_id, token0, token1 = new_table(
        client, turn_seconds=15, scoring="game", target=250, test_decks=[deck] * 40
    )
    table = table_of(client, table_id)
    ws0 = connect(client, table_id, token0)
    ws1 = connect(client, table_id, token1)
    act(ws1, latest(ws1), {"kind": "take_upcard"})
    act(ws1, latest(ws1), {"kind": "knock", "discard": "KS"})
    assert table.status == "hand_over"
    return table, ws0, ws1


def test_between_hands_the_clock_runs_only_for_a_seat_someone_waits_for(
    client: TestClient, clock: Clock
) -> None:
    """Issue 41: a connected seat that never sends `next_hand` stalled the other for
    ever (the clock ran only while a hand was played). Now its `next_hand` is timed
    like a move once the other has sent its own; three timeouts in a row and claim
    opens. With nobody waiting there is no clock: a table both left stops there."""
    table, ws0, ws1 = gin_then_hand_over(client)
    version = table.version
    state = latest(ws0)
    assert state["hand"]["turn_deadline"] is None
    clock.now += 600
    tick(client)
    assert table.version == version and table.match.presence.timeouts == [0, 0]
    act(ws0, state, {"kind": "next_hand"})  # Ann is ready; Bob stalls, connected
    state = latest(ws0)
    assert state["table"]["status"] == "hand_over"
    assert state["hand"]["turn_deadline"] == int((clock.now + 15) * 1000)
    assert latest(ws1)["hand"]["turn_deadline"] == state["hand"]["turn_deadline"]
    clock.now += 14.99
    tick(client)
    assert table.status == "hand_over"
    clock.now += 0.01
    tick(client)
    # Bob's `next_hand`, made by the clock (the deal compacted it out of the log).
    assert table.match.presence.timeouts == [0, 1]
    assert table.status == "playing" and table.match.hand is not None
    assert table.match.hand.number == 2
    assert latest(ws0)["table"]["players"][1]["timeouts"] == 1
    # Bob goes on stalling; Ann plays her turns. Two more timeouts and Bob is away.
    for _ in range(20):
        if table.match.presence.timeouts[1] >= 3:
            break
        mine = latest(ws0)
        if playable(mine["legal"]):
            act(ws0, mine, choose(mine, random.Random(1)))
        else:
            clock.now += 15
            tick(client)
    assert table.match.presence.timeouts[1] == 3
    state = latest(ws0)
    assert {"claim", "stand_in"} <= set(kinds(state))
    replayed: Match = rebuild_match(table.record())[1]
    assert replayed.presence.timeouts == table.match.presence.timeouts
    act(ws0, state, {"kind": "claim"})
    assert table.status == "match_over" and table.match.match_winner == 0
    ws0.close()
    ws1.close()


def test_a_rematch_one_seat_asked_for_is_timed_too(client: TestClient, clock: Clock) -> None:
    table, ws0, ws1 = gin_then_hand_over(client)
    act(ws1, latest(ws1), {"kind": "resign"})
    assert table.status == "match_over"
    clock.now += 600
    tick(client)
    assert table.status == "match_over"  # nobody asked for a rematch: no clock
    act(ws1, latest(ws1), {"kind": "new_match"})  # Bob wants one; Ann stalls
    assert latest(ws1)["hand"]["turn_deadline"] == int((clock.now + 15) * 1000)
    clock.now += 15
    tick(client)
    # Ann's `new_match`, made by the clock: the rematch is dealt, her timeout counted.
    assert table.status == "playing" and table.match.presence.timeouts == [1, 0]
    ws0.close()
    ws1.close()


def test_no_clock_no_deadline(client: TestClient) -> None:
    table_id, token0, _ = new_table(client)
    ws0 = connect(client, table_id, token0)
    state = latest(ws0)
    assert "server_time" not in state and "turn_deadline" not in state["hand"]
    assert "timeouts" not in state["table"]["players"][0]
    ws0.close()


def test_a_late_join_is_not_away_before_its_page_opens(client: TestClient, clock: Clock) -> None:
    r = client.post("/api/tables", json={"name": "Ann"})
    table_id, token0 = r.json()["table_id"], r.json()["token"]
    client.cookies.clear()
    ws0 = connect(client, table_id, token0)
    clock.now += 3600  # an hour later the friend opens the link
    r = client.post(f"/api/tables/{table_id}/seats", json={"name": "Bob"})
    client.cookies.clear()
    tick(client)
    state = latest(ws0)
    assert state["table"]["players"][1]["away_seconds"] == 0
    assert "claim" not in kinds(state)
    ws0.close()


def test_asking_for_a_stand_in_does_not_reset_the_clock(client: TestClient, clock: Clock) -> None:
    table_id, token0, token1 = new_table(client, turn_seconds=15)
    table = table_of(client, table_id)
    ws0 = connect(client, table_id, token0)
    ws1 = connect(client, table_id, token1)
    deadline = latest(ws0)["hand"]["turn_deadline"]  # Bob's upcard decision
    leave(client, table_id, ws1, 1)
    clock.now += CLAIM_AFTER
    tick(client)
    state = latest(ws0)
    assert state["hand"]["turn"] == 1 and "stand_in" in kinds(state)
    registry_of(client).computer.delay = 3600.0  # the stand-in waits: the clock is looked at
    act(ws0, state, {"kind": "stand_in"})
    state = latest(ws0)
    assert state["version"] == table.version and state["hand"]["turn_deadline"] == deadline
    ws0.close()
