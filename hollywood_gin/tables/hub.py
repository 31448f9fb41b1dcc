"""Connections per table, presence, and the broadcast of each seat's own view.

The hub never touches a socket: each `Connection` is an outbox that the web
layer's writer task drains. So a slow or stalled browser can delay only its
own outbox, never the table's lock or the other players.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from hollywood_gin.engine.views import View
from hollywood_gin.tables.frames import EncodedParts, LegalBytes, StateFrames

Seat = int | None

# Close codes (RFC 6455 and the 4000-4999 private range).
CLOSE_POLICY = 1008
CLOSE_TRY_AGAIN = 1013
CLOSE_RESTART = 1012
CLOSE_GONE = 4404


class Viewable(Protocol):
    """What the hub needs of a table: its id and a view per seat."""

    @property
    def id(self) -> str: ...

    def view(self, seat: Seat) -> View: ...


Stamp = tuple[dict[str, object], dict[str, object]]


class Seating(Protocol):
    """Where the hub reads a table's players and turn clock, and tells a seat's first
    tab opened or its last one closed (`tables.presence.Presence`)."""

    def players(self, table: Any) -> list[dict[str, object]]: ...

    def stamp(self, table: Any) -> Stamp | None: ...

    def seated(self, table_id: str, seat: int, connected: bool) -> None: ...


class Described:
    """Seating for tables that describe themselves (`players()`, maybe `stamp()`):
    the hub's tests' boards."""

    def players(self, table: Any) -> list[dict[str, object]]:
        players: list[dict[str, object]] = table.players()
        return players

    def stamp(self, table: Any) -> Stamp | None:
        stamp = getattr(table, "stamp", None)
        return None if stamp is None else stamp()

    def seated(self, table_id: str, seat: int, connected: bool) -> None:
        return None


def state_message(
    table: Viewable,
    seat: Seat,
    players: list[dict[str, object]] | None = None,
    seating: Seating | None = None,
) -> dict[str, object]:
    """The `state` body (docs/protocol-guide.md "The state"): the engine's view plus
    the table's identity, players (`seating`'s) and turn clock.

    `players`: the table's players list, when the caller has it already (a broadcast
    builds it once for all seats).
    """
    seating = seating or DESCRIBED
    message = table.view(seat).wire(
        {"type": "state"},
        id=table.id,
        players=seating.players(table) if players is None else players,
    )
    stamped = seating.stamp(table)
    if stamped is not None:  # a table with a turn clock: its deadline and the server's time
        hand = message.get("hand")
        if isinstance(hand, dict):
            hand.update(stamped[0])
        message.update(stamped[1])
    return message


DESCRIBED = Described()


class Connection:
    """One open socket's outbox. States replace each other: only the newest waits."""

    # One for each open socket: no `__dict__`.
    __slots__ = (
        "_frames",
        "_loop",
        "_waiter",
        "close_code",
        "close_reason",
        "max_pending",
        "seat",
        "sent_states",
    )

    def __init__(self, seat: Seat, *, max_pending: int = 64) -> None:
        self.seat: Seat = seat
        self.max_pending = max_pending
        # A list, not a deque: it holds one frame or none nearly always, and an empty
        # deque takes 760 bytes of every open socket's memory (a list 56).
        self._frames: list[tuple[bool, bytes]] = []
        # The writer's wait for the next frame (an Event would make a future per wait
        # through its loop look-up: a few % of the server's time at full load).
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.close_code: int | None = None
        self.close_reason = ""
        self.sent_states = 0

    @property
    def closed(self) -> bool:
        return self.close_code is not None

    def send(self, frame: bytes, *, state: bool = False) -> None:
        if self.close_code is not None:  # (`closed`, without a property's call)
            return
        frames = self._frames
        if state and frames:
            # A state is the whole view, never a diff: an unsent older one is worthless.
            frames = self._frames = [f for f in frames if not f[0]]
        frames.append((state, frame))
        if len(frames) > self.max_pending:
            self.close(CLOSE_POLICY, "not reading")
        waiter = self._waiter  # (`_wake`, inline: once per frame)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def pending(self) -> list[bytes]:
        """The frames not yet taken by the writer (tests and diagnostics)."""
        return [frame for _, frame in self._frames]

    def send_message(self, message: dict[str, object]) -> None:
        self.send(orjson.dumps(message))

    def close(self, code: int, reason: str = "") -> None:
        if self.close_code is None:
            self.close_code = code
            self.close_reason = reason
        self._wake()

    async def next_frame(self) -> bytes | None:
        """The next frame to send, or None when the socket is to be closed."""
        while True:
            if self.close_code is not None:
                return None
            if self._frames:
                state, frame = self._frames.pop(0)
                if state:
                    self.sent_states += 1
                return frame
            loop = self._loop
            if loop is None:
                # Looked up once: each look-up costs a getpid() system call (CPython
                # 3.11 checks the process), and a socket waits once per frame.
                loop = self._loop = asyncio.get_running_loop()
            self._waiter = loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None


class TooManyConnections(Exception):
    """The seat already has `max_tabs_per_seat` tabs, or spectators are full."""


@dataclass
class _TableConnections:
    by_seat: dict[Seat, set[Connection]] = field(default_factory=dict)
    # The parts of this table's states kept encoded between changes (`EncodedParts`):
    # the shared ones and, per seat, its own cards and `legal`, so never share one
    # `EncodedParts` between tables or hand its per-seat parts to another seat.
    parts: EncodedParts = field(default_factory=EncodedParts)
    # When each seat last reacted (the socket's clock), over all of its tabs.
    reacted: list[float] = field(default_factory=lambda: [-math.inf, -math.inf])

    def all(self) -> Iterable[Connection]:
        for conns in self.by_seat.values():
            yield from conns


class Hub:
    """In-process broadcast. A multi-process hub (Redis) would keep these calls."""

    def __init__(
        self, *, max_tabs_per_seat: int, max_spectators: int, seating: Seating | None = None
    ) -> None:
        # Where players, the turn clock and a seat's comings and goings go: the
        # tables' presence (set where the tables are put together: `lifecycle`).
        self.seating: Seating = seating or DESCRIBED
        self.max_tabs_per_seat = max_tabs_per_seat
        self.max_spectators = max_spectators
        self._tables: dict[str, _TableConnections] = {}
        # Tables whose memory runs ahead of their store (`hold`): the table held, and
        # whether a state was withheld meanwhile (an arrival, a departure, a broadcast).
        self._held: dict[str, tuple[Viewable, bool]] = {}
        # Tables released as changed after a state was withheld: the change's broadcast
        # goes to everybody, even when the change itself was one seat's (a card order).
        self._widened: set[str] = set()
        # Counts encodings, so tests can check "once per seat per change".
        self.encodings = 0
        # The actions of `legal` encoded once, for every table of this hub.
        self.legal = LegalBytes()

    def hold(self, table: Viewable) -> None:
        """From now until `release`, send nobody a state of this table.

        The registry changes a table in memory, then stores the change; until it is
        stored it may yet be undone. A state sent meanwhile (a player arriving or
        leaving changes everybody's players list) would show a version that may
        never have happened, and a worker that slept through losing the table would
        show its clients a move the new owner never saw.
        """
        self._held[table.id] = (table, False)

    def release(self, table: Viewable, *, changed: bool) -> None:
        """End a `hold`. `changed`: the change was stored and the caller broadcasts
        it now; otherwise whoever was withheld a state gets the present one."""
        held, withheld = self._held.get(table.id, (None, False))
        if held is not table:  # dropped meanwhile (`close_table`), maybe claimed anew
            return
        del self._held[table.id]
        if withheld and changed:
            self._widened.add(table.id)
        elif withheld:
            self.broadcast(table)

    def _withheld(self, table_id: str) -> bool:
        held = self._held.get(table_id)
        if held is None:
            return False
        self._held[table_id] = (held[0], True)
        return True

    def connected(self, table_id: str, seat: int) -> bool:
        conns = self._tables.get(table_id)
        return bool(conns and conns.by_seat.get(seat))

    def count(self, table_id: str) -> int:
        conns = self._tables.get(table_id)
        return sum(len(c) for c in conns.by_seat.values()) if conns else 0

    def room_for(self, table_id: str, seat: Seat) -> bool:
        conns = self._tables.get(table_id)
        have = len(conns.by_seat.get(seat, ())) if conns else 0
        limit = self.max_spectators if seat is None else self.max_tabs_per_seat
        return have < limit

    def attach(self, table: Viewable, conn: Connection) -> None:
        """Add a connection and send the table its news; raise TooManyConnections."""
        if not self.room_for(table.id, conn.seat):
            raise TooManyConnections(conn.seat)
        conns = self._tables.get(table.id)
        if conns is None:
            conns = self._tables[table.id] = _TableConnections(parts=EncodedParts(self.legal))
        was_connected = conn.seat is not None and bool(conns.by_seat.get(conn.seat))
        conns.by_seat.setdefault(conn.seat, set()).add(conn)
        if conn.seat is not None and not was_connected:
            self.seating.seated(table.id, conn.seat, True)
        if self._withheld(table.id):
            return
        if conn.seat is not None and not was_connected:
            self.broadcast(table)  # presence changed: everybody's players list differs
        else:
            conn.send(self._encode(self._state_frames(table), conn.seat), state=True)

    def detach(self, table: Viewable, conn: Connection) -> None:
        conns = self._tables.get(table.id)
        if conns is None:
            return
        seat_conns = conns.by_seat.get(conn.seat)
        if not seat_conns or conn not in seat_conns:
            return
        seat_conns.discard(conn)
        if not seat_conns:
            del conns.by_seat[conn.seat]
        if not conns.by_seat:
            del self._tables[table.id]
        if conn.seat is not None and not seat_conns:
            self.seating.seated(table.id, conn.seat, False)
        if conn.seat is not None and not seat_conns and not self._withheld(table.id):
            self.broadcast(table)

    def _state_frames(
        self, table: Viewable, players: list[dict[str, object]] | None = None
    ) -> StateFrames:
        """The state frames of `table` as it is now (`players`: built already)."""
        conns = self._tables.get(table.id)
        parts = conns.parts if conns is not None else EncodedParts(self.legal)
        seating = self.seating
        players = seating.players(table) if players is None else players
        return StateFrames(table, players, parts, lambda: seating.stamp(table))

    def _encode(self, frames: StateFrames, seat: Seat) -> bytes:
        self.encodings += 1
        return frames.frame(seat)

    def broadcast(self, table: Viewable, seats: Iterable[Seat] | None = None) -> None:
        """Send every connection (of `seats`, default all) its own state, encoded once per seat."""
        conns = self._tables.get(table.id)
        if conns is None or self._withheld(table.id):
            return
        wanted = set(conns.by_seat) if seats is None else set(seats) & set(conns.by_seat)
        frames = self._state_frames(table)
        self.encodings += len(wanted)
        for seat in wanted:
            frame = frames.frame(seat)
            for conn in conns.by_seat[seat]:
                conn.send(frame, state=True)

    def changed(self, table: Viewable, seats: Iterable[Seat] | None = None) -> None:
        """A stored change (the writer's listener): each connection gets its state."""
        if table.id in self._widened:  # somebody arrived or left while it was stored
            self._widened.discard(table.id)
            seats = None
        self.broadcast(table, seats)

    def send_all(self, table_id: str, message: dict[str, object]) -> int:
        """One message (not a state: a reaction) to every connection of the table,
        seats and spectators, encoded once; returns how many got it."""
        conns = self._tables.get(table_id)
        if conns is None:
            return 0
        frame = orjson.dumps(message)
        sent = 0
        for conn in conns.all():
            conn.send(frame)
            sent += 1
        return sent

    def may_react(self, table_id: str, seat: int, now: float, every: float) -> bool:
        """Whether the seat may react at `now`, one reaction every `every` seconds over
        all of its tabs (docs/protocol-guide.md "Around the match"); noted when it may."""
        conns = self._tables.get(table_id)
        if conns is None:  # no tab of the table open: nobody to tell anyway
            return True
        if now - conns.reacted[seat] < every:
            return False
        conns.reacted[seat] = now
        return True

    def send_state(self, table: Viewable, conn: Connection) -> None:
        if not self._withheld(table.id):
            conn.send(self._encode(self._state_frames(table), conn.seat), state=True)

    def total(self) -> int:
        """Open connections over all tables (a metric; walks every table)."""
        return sum(self.count(table_id) for table_id in self._tables)

    def close_table(self, table_id: str, code: int, reason: str = "") -> None:
        self._held.pop(table_id, None)
        self._widened.discard(table_id)
        conns = self._tables.pop(table_id, None)
        for conn in conns.all() if conns else ():
            conn.close(code, reason)

    def close_all(self, code: int, reason: str = "") -> None:
        for table_id in list(self._tables):
            self.close_table(table_id, code, reason)
