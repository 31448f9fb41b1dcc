"""The hub's outboxes and presence, with a stand-in table (the hub needs only three calls)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import orjson
import pytest

from hollywood_gin.bots import Bot
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.views import View
from hollywood_gin.tables.hub import Connection, Hub, Seat, TooManyConnections, state_message


class Board:
    """A stand-in for a Table: an id, a version, players from the hub's presence."""

    def __init__(self, hub: Hub) -> None:
        self.id = "board"
        self.version = 1
        self.hub = hub
        self.match = Match(Options(), rng=random.Random(1))
        self.match.start()

    def view(self, seat: Seat) -> View:
        return self.match.view(seat)._replace(version=self.version)

    def players(self) -> list[dict[str, Any]]:
        return [{"seat": s, "connected": self.hub.connected(self.id, s)} for s in (0, 1)]


def decoded(conn: Connection) -> list[dict[str, Any]]:
    return [orjson.loads(f) for f in conn.pending()]


def test_state_message_adds_the_table_identity() -> None:
    hub = Hub(max_tabs_per_seat=2, max_spectators=1)
    board = Board(hub)
    message = state_message(board, 0)
    assert message["type"] == "state" and message["you"] == 0
    assert message["table"] == {
        "rules": "standard",
        "scoring": "hand",
        "target": 100,
        "status": "playing",
        "id": "board",
        "players": [{"seat": 0, "connected": False}, {"seat": 1, "connected": False}],
    }


@pytest.mark.anyio
async def test_presence_changes_reach_everybody_other_tabs_only_the_new_one() -> None:
    hub = Hub(max_tabs_per_seat=2, max_spectators=1)
    board = Board(hub)
    watcher = Connection(None)
    hub.attach(board, watcher)
    assert len(decoded(watcher)) == 1
    tab1 = Connection(0)
    hub.attach(board, tab1)  # seat 0 comes online: everybody hears of it
    assert decoded(watcher)[-1]["table"]["players"][0]["connected"] is True
    watcher_frames = len(watcher.pending())
    tab2 = Connection(0)
    hub.attach(board, tab2)  # a second tab: nothing changes for the others
    assert len(watcher.pending()) == watcher_frames
    assert len(decoded(tab2)) == 1
    hub.detach(board, tab1)  # one tab left: still online, no news
    assert len(watcher.pending()) == watcher_frames
    hub.detach(board, tab2)
    assert decoded(watcher)[-1]["table"]["players"][0]["connected"] is False


@pytest.mark.anyio
async def test_limits_per_seat_and_for_spectators() -> None:
    hub = Hub(max_tabs_per_seat=2, max_spectators=1)
    board = Board(hub)
    hub.attach(board, Connection(0))
    hub.attach(board, Connection(0))
    hub.attach(board, Connection(None))
    hub.attach(board, Connection(1))
    for seat in (0, None):
        assert not hub.room_for(board.id, seat)
        with pytest.raises(TooManyConnections):
            hub.attach(board, Connection(seat))
    assert hub.room_for(board.id, 1)
    assert hub.count(board.id) == 4


@pytest.mark.anyio
async def test_unsent_states_are_replaced_but_other_frames_are_kept() -> None:
    conn = Connection(0)
    conn.send(b'{"version":1}', state=True)
    conn.send_message({"type": "pong"})
    conn.send(b'{"version":2}', state=True)
    conn.send(b'{"version":3}', state=True)
    assert conn.pending() == [b'{"type":"pong"}', b'{"version":3}']
    assert await conn.next_frame() == b'{"type":"pong"}'
    assert await conn.next_frame() == b'{"version":3}'
    conn.close(1012, "restart")
    assert await conn.next_frame() is None
    assert (conn.close_code, conn.close_reason) == (1012, "restart")
    conn.send(b"late")  # ignored once closed
    assert conn.pending() == []


def test_a_socket_that_never_reads_is_closed_not_buffered_forever() -> None:
    conn = Connection(None, max_pending=8)
    for _ in range(9):
        conn.send_message({"type": "pong"})
    assert conn.closed and conn.close_code == 1008


@pytest.mark.anyio
async def test_close_table_and_close_all() -> None:
    hub = Hub(max_tabs_per_seat=2, max_spectators=2)
    board = Board(hub)
    conns = [Connection(0), Connection(None)]
    for conn in conns:
        hub.attach(board, conn)
    hub.close_table(board.id, 4404, "table expired")
    assert [c.close_code for c in conns] == [4404, 4404]
    assert hub.count(board.id) == 0
    again = Connection(1)
    hub.attach(board, again)
    hub.close_all(1012)
    assert again.close_code == 1012


@pytest.mark.anyio
async def test_next_frame_waits_for_a_frame() -> None:
    conn = Connection(0)
    waiting = asyncio.create_task(conn.next_frame())
    await asyncio.sleep(0)
    assert not waiting.done()
    conn.send(b"x", state=True)
    assert await asyncio.wait_for(waiting, 5) == b"x"


def test_shared_parts_are_encoded_once_and_frames_stay_the_same_bytes() -> None:
    """The sheet and the hand's moves are encoded once for every seat: each frame is
    byte for byte the plain encoding of that seat's state message, through a whole
    Hollywood match (the sheet changes between hands, the moves on every move)."""
    hub = Hub(max_tabs_per_seat=2, max_spectators=1)
    board = Board(hub)
    board.match = Match(Options("standard", "hollywood", 100), rng=random.Random(4))
    board.match.start()
    conns = {seat: Connection(seat) for seat in (0, 1, None)}
    for conn in conns.values():
        hub.attach(board, conn)
    bots = (Bot("easy", random.Random(5)), Bot("easy", random.Random(6)))
    for _ in range(3000):
        if board.match.status == "match_over":
            break
        seat = next(s for s in (0, 1) if board.match.legal(s))
        board.match.apply(seat, bots[seat].choose(board.match.view(seat)))
        board.version = board.match.version
        hub.broadcast(board)
        players = board.players()
        for who, conn in conns.items():
            frame = conn.pending()[-1]
            assert frame == orjson.dumps(state_message(board, who, players))
    assert board.match.status == "match_over"


@pytest.mark.anyio
async def test_a_tab_that_arrives_while_one_seats_change_is_stored_gets_the_state() -> None:
    # A card order changes one seat's view only, so its broadcast goes to that seat;
    # a tab of the other seat that opened while the order was being stored was
    # withheld its first state, and must get one from that broadcast all the same.
    hub = Hub(max_tabs_per_seat=2, max_spectators=1)
    board = Board(hub)
    arranging = Connection(0)
    hub.attach(board, arranging)
    hub.hold(board)
    arriving = Connection(1)
    hub.attach(board, arriving)
    assert arriving.pending() == []  # held: nothing shown that may be undone
    board.version += 1
    hub.release(board, changed=True)
    hub.changed(board, [0])
    assert decoded(arriving)[-1]["version"] == board.version
    assert decoded(arranging)[-1]["version"] == board.version
    # The next one-seat change goes to that seat alone again.
    seen = len(arriving.pending())
    board.version += 1
    hub.changed(board, [0])
    assert len(arriving.pending()) == seen
    assert decoded(arranging)[-1]["version"] == board.version


@pytest.mark.anyio
async def test_a_tab_withheld_during_a_change_that_was_undone_gets_the_present_state() -> None:
    hub = Hub(max_tabs_per_seat=2, max_spectators=1)
    board = Board(hub)
    hub.hold(board)
    arriving = Connection(1)
    hub.attach(board, arriving)
    hub.release(board, changed=False)
    assert decoded(arriving)[-1]["version"] == board.version
