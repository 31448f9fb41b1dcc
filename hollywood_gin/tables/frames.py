"""A `state` frame's bytes, put together from parts encoded once per change.

On every change the hub sends each seat (and the spectators) its own state. Most
of it is the same for all of them: the table with its players, the hand's public
part and its moves, the sheet, `ready`, `next_deal`. What differs is `you`, the
seat's own cards (`my_cards`, `my_melds` …) and `legal`. So `StateFrames` encodes
the shared parts once for a change and each seat's frame is its own parts joined
to them: the same bytes, key for key, as `orjson.dumps(state_message(...))` with
its dicts built per seat (`tests/tables/test_frames.py` checks that over whole
matches, turn clocks, resignations and spectators).

Parts are also kept encoded from one change to the next while what they show
stays (`EncodedParts`, one per table): the hand's moves (a hand only appends
moves), the sheet, the table object with its players and the message's tail. Each
is compared with everything its bytes come from before it is used again
(`tests/tables/test_frames_kept.py`). A seat's own keys and its `legal` are
encoded anew for each frame: a move changes both seats' own keys (the mover's
cards, the other's count of them) and the mover's `legal`, so a kept copy was
nearly never used again, and comparing it cost more than encoding (and kept a
seat's `Mine` and `legal` alive until the next move, for the collector to walk:
`tests/tables/test_frames_tracked.py`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Protocol

import orjson

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.views import (
    PER_SEAT,
    TAIL_KEYS,
    TableView,
    View,
    hand_back,
    hand_front,
    mine_wire,
    table_wire,
    tail_wire,
)

Seat = int | None

_YOU = {0: b"0", 1: b"1", None: b"null"}


def compact(encoded: bytes) -> bytes:
    """A copy of `orjson.dumps`' bytes to keep: its own bytes hold the whole write
    buffer, 4 KB however short the text (tracemalloc), and a kept one keeps it all."""
    return memoryview(encoded).tobytes()


class LegalBytes:
    """`legal` lists encoded from each action's bytes, encoded once: the engine's
    shared actions (`Action.of`, every action `legal` lists) and each knock with the
    deadwood `legal` shows next to it. One per hub (`Hub.legal`), so per app, shared
    by its tables; kept by identity, which is safe because the shared actions live
    as long as the process (`actions._SHARED`)."""

    __slots__ = ("_encoded", "_knocks")

    def __init__(self) -> None:
        self._encoded: dict[int, bytes] = {}
        self._knocks: dict[tuple[int, int], bytes] = {}

    def _encode_action(self, action: Action) -> bytes:
        encoded = compact(orjson.dumps(action.to_dict()))
        if action.melds is None and Action.of(action.kind, action.card) is action:
            self._encoded[id(action)] = encoded
        return encoded

    def encode(self, view: View) -> bytes:
        """`orjson.dumps(view.legal_wire())`."""
        legal = view.legal
        if not legal:
            return b"[]"
        encoded = self._encoded
        try:
            parts = [encoded[id(a)] for a in legal]
        except KeyError:
            parts = [encoded.get(id(a)) or self._encode_action(a) for a in legal]
        if view.knock_deadwood:
            # The knocks, in `knock_deadwood`'s order (as `View.legal_wire`).
            lefts = iter(view.knock_deadwood)
            knocks = self._knocks
            for i, action in enumerate(legal):
                if action.kind == "knock":
                    key = (id(action), next(lefts))
                    knock = knocks.get(key)
                    if knock is None:
                        knock = parts[i][:-1] + b',"deadwood":' + orjson.dumps(key[1]) + b"}"
                        if key[0] in encoded:
                            knocks[key] = knock
                    parts[i] = knock
        return b"[" + b",".join(parts) + b"]"


def legal_bytes(view: View) -> bytes:
    """`orjson.dumps(view.legal_wire())` through a `LegalBytes` of its own."""
    return LegalBytes().encode(view)


# What a turn clock adds to a state: its deadline to the hand, the server's time to
# the message (`tables.presence.Presence.stamp`).
Stamped = tuple[Mapping[str, object], Mapping[str, object]]


class Framed(Protocol):
    """What a frame needs of a table: its id and a view per seat."""

    @property
    def id(self) -> str: ...

    def view(self, seat: Seat) -> View: ...


class EncodedParts:
    """The encoded parts of one table's frames that outlive a change, kept between
    changes: the sheet and the hand's moves, and the `table` object and the body's
    tail (the sheet, `ready`, `next_deal`) while what they show stays. Views are
    frozen, so the same object means the same bytes."""

    # The hand's moves change with every move: kept in slots of their own, not in a
    # tuple made each move that lives until the next one for the collector to walk.
    __slots__ = (
        "_events",
        "_events_encoded",
        "_events_fragment",
        "_sheet",
        "_table",
        "_tail",
        "legal_bytes",
    )

    def __init__(self, legal_bytes: LegalBytes | None = None) -> None:
        # The app's encoded actions (the hub's), else this table's own.
        self.legal_bytes = LegalBytes() if legal_bytes is None else legal_bytes
        self._sheet: tuple[object, orjson.Fragment] | None = None
        # The hand's moves last encoded, their encoded list and its fragment.
        self._events: Sequence[object] = ()
        self._events_encoded = b"[]"
        self._events_fragment = orjson.Fragment(b"[]")
        self._table: tuple[TableView, list[dict[str, object]], str, bytes] | None = None
        self._tail: tuple[object, object, bytes] | None = None

    def table(self, view: View, table_id: str, players: list[dict[str, object]]) -> bytes:
        """`,"table":` and the table object (`View.table_wire` with the id and players).
        `players` is compared by value with the last call's: it must be a new list
        each time (`Presence.players`), never one changed in place."""
        known = self._table
        if (
            known is None
            or known[0] is not view.table
            or known[1] != players
            or known[2] != table_id
        ):
            encoded = orjson.dumps(table_wire(view, id=table_id, players=players))
            known = self._table = (view.table, players, table_id, b',"table":' + encoded)
        return known[3]

    def tail(self, view: View, extra: Mapping[str, object]) -> bytes:
        """The body from `,"sheet":` to its end (`tail_wire`, then `extra`: a turn
        clock's time, never kept)."""
        known = self._tail
        # The sheet by identity (one value per change of the sheet: comparing two by
        # value would walk their games in Python), the rest by value.
        shown = _tail_fields(view)
        if extra or known is None or known[0] is not view.sheet or known[1] != shown:
            tail = tail_wire(view)
            tail["sheet"] = self.sheet(view.sheet)
            tail.update(extra)
            encoded = b"," + orjson.dumps(tail)[1:]
            if extra:
                return encoded
            known = self._tail = (view.sheet, shown, encoded)
        return known[2]

    def sheet(self, sheet: object) -> orjson.Fragment:
        known = self._sheet
        if known is None or known[0] is not sheet:
            known = self._sheet = (sheet, orjson.Fragment(compact(orjson.dumps(sheet))))
        return known[1]

    def events(self, moves: Sequence[object]) -> orjson.Fragment:
        """A hand's public moves, encoded: the same bytes as `orjson.dumps(moves)`.

        A hand only ever appends to them (a new hand, a replay, a rollback make new
        move objects), so the moves of the next version are encoded by adding the
        new ones to the last encoding (`_events`: the moves, their encoded list, the
        fragment of those same bytes): a move costs one small encoding, not the
        whole hand's list again. One copy of the bytes is kept, not the list's
        items apart as well (a table's longest kept part)."""
        last = self._events
        n = len(last)
        if 0 < n <= len(moves) and moves[n - 1] is last[n - 1] and moves[0] is last[0]:
            if n == len(moves):
                return self._events_fragment
            if n + 1 == len(moves):
                new = orjson.dumps(moves[n])
            else:
                new = b",".join([orjson.dumps(m) for m in moves[n:]])
            encoded = b"".join((self._events_encoded[:-1], b",", new, b"]"))
        else:
            encoded = b"[" + b",".join([orjson.dumps(m) for m in moves]) + b"]"
        fragment = self._events_fragment = orjson.Fragment(encoded)
        self._events = moves
        self._events_encoded = encoded
        return fragment


# The view's fields every seat of one change shares (`PER_SEAT`: the others), the
# version first, as it tells one change from the next; and those of the body's tail.
_SHARED_FIELDS = ("version", *(f for f in View._fields if f not in PER_SEAT and f != "version"))
_shared_fields = operator.attrgetter(*_SHARED_FIELDS)
_tail_fields = operator.attrgetter(
    *(k.field for k in TAIL_KEYS if k.field is not None and k.field != "sheet")
)


class _Shared:
    """The encoded parts of one change that every seat's frame holds, and the view
    fields they were made from (held, so an equal value means the same bytes)."""

    __slots__ = ("hand_back", "head", "middle", "shown", "tail")

    def __init__(self, view: View) -> None:
        self.shown: tuple[object, ...] = _shared_fields(view)
        self.head = b""  # up to `"you":`
        self.middle = b""  # from `,"table":` up to the seat's own cards
        self.hand_back = b""  # from the hand's `card_counts` to its end
        self.tail = b""  # from `,"sheet":` to the end

    def fits(self, view: View) -> bool:
        # A tuple compares items by identity first: the same parts cost no `__eq__`.
        return _shared_fields(view) == self.shown


# No turn clock: nothing added to the hand or to the message.
_NO_STAMP: tuple[Mapping[str, object], Mapping[str, object]] = (
    MappingProxyType({}),
    MappingProxyType({}),
)


class StateFrames:
    """The `state` frames of one table at one moment (a broadcast, or one send):
    `frame(seat)` is that seat's frame, the bytes of `orjson.dumps(state_message(...))`.

    The parts come from the views' wire parts (`table_wire`, `hand_front`,
    `mine_wire`, `hand_back`, `View.legal_wire`, `tail_wire`), written from the
    state's wire table (`engine.views.STATE_KEYS`), so `View.wire` and the frames
    share one statement of the shape."""

    __slots__ = ("_legal_bytes", "_parts", "_players", "_shared", "_stamp", "_stamped", "_table")

    def __init__(
        self,
        table: Framed,
        players: list[dict[str, object]],
        parts: EncodedParts,
        stamp: Callable[[], Stamped | None],
    ) -> None:
        self._table = table
        self._stamp = stamp
        self._players = players
        self._parts = parts
        self._legal_bytes = parts.legal_bytes
        self._shared: _Shared | None = None
        # What a turn clock adds: keys at the hand's end and at the message's end.
        self._stamped: tuple[Mapping[str, object], Mapping[str, object]] | None = None

    def frame(self, seat: Seat) -> bytes:
        view = self._table.view(seat)
        shared = self._shared
        if shared is None or not shared.fits(view):
            shared = self._shared = self._share(view)
        mine = view.mine
        own = b""
        if mine is not None and view.hand is not None:
            # `,` and the seat's own keys of the hand object
            own = b"," + orjson.dumps(mine_wire(mine))[1:-1]
        you = _YOU.get(view.you)
        if you is None:
            you = orjson.dumps(view.you)
        return b"".join(
            (
                shared.head,
                you,
                shared.middle,
                own,
                shared.hand_back,
                b',"legal":',
                self._legal_bytes.encode(view),
                shared.tail,
            )
        )

    def _stamps(self) -> tuple[Mapping[str, object], Mapping[str, object]]:
        """What the table's `stamp` adds (a turn clock's deadline and time), asked once."""
        stamped = self._stamped
        if stamped is None:
            got = self._stamp()
            stamped = self._stamped = _NO_STAMP if got is None else got
        return stamped

    def _share(self, view: View) -> _Shared:
        shared = _Shared(view)
        shared.head = b'{"type":"state","version":' + orjson.dumps(view.version) + b',"you":'
        hand_extra, top_extra = self._stamps()
        middle = self._parts.table(view, self._table.id, self._players)
        hand = view.hand
        if hand is not None:
            # open: the seat's own keys come next
            middle += b',"hand":' + orjson.dumps(hand_front(hand))[:-1]
            back = hand_back(hand)
            back["events"] = self._parts.events(hand.events)
            back.update(hand_extra)
            shared.hand_back = b"," + orjson.dumps(back)[1:]
        shared.middle = middle
        shared.tail = self._parts.tail(view, top_extra)
        return shared
