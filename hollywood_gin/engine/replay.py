"""Reading a match's log back: each event done again through the match's own moves,
so a log is held to the same rules as the play that wrote it.

`Match.replay` builds the match, gives it a dealer that deals what the log recorded
(`hollywood_gin.engine.dealer.Replayed`) and hands it here with the log's events and
the seats' card orders (`redo`). This module knows the match only as `Replaying`: its
moves, plus the two things only a log asks for (taking up a compacted log's first
snapshot, and keeping a card order an old log has as an event).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Protocol

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.errors import BadAction, RuleError
from hollywood_gin.engine.events import (
    ActionTaken,
    Arranged,
    Back,
    Deal,
    Entropy,
    Event,
    NextDeal,
    Reshuffle,
    Snapshot,
    Start,
)
from hollywood_gin.engine.hand import Hand
from hollywood_gin.engine.options import Order


class Replaying(Protocol):
    """What a replay does to the match it rebuilds (`Match` is one)."""

    @property
    def hand(self) -> Hand | None: ...

    def start(self) -> None: ...

    def contribute(self, seat: int, entropy: object) -> None: ...

    def apply(self, seat: int, action: Action, *, by: str | None = None) -> object: ...

    def back(self, seat: int) -> bool: ...

    def arrange(self, seat: int, cards: Sequence[object]) -> None: ...

    def resume(self, snapshot: Snapshot, deal: Deal) -> None: ...

    def keep_arranged(self, event: Arranged) -> None: ...


def redo(rebuilt: Replaying, events: Sequence[Event], orders: Mapping[int, Order]) -> None:
    """Do `events` again on `rebuilt` (a new match whose dealer deals and reshuffles
    as the log recorded). Each seat's latest card order (`orders`) goes back where in
    the log it was made; one the log does not reach, or that no longer fits, is left
    out. A stored log is read into events with `events.log_from_json`.

    :raises RuleError: the log does not describe a possible match.
    """
    arranged: dict[int, list[tuple[int, Order]]] = {}
    for seat, order in orders.items():
        arranged.setdefault(order.at, []).append((seat, order))
    for i, event in enumerate([*events, None]):
        for seat, order in arranged.get(i, ()):
            _rearrange(rebuilt, seat, order)
        if event is None:
            break
        _redo_one(rebuilt, event, events[i + 1] if i + 1 < len(events) else None, first=i == 0)


def _redo_one(rebuilt: Replaying, event: Event, following: Event | None, *, first: bool) -> None:
    """One event of a replayed log, done again (deals and reshuffles are the dealer's:
    it deals them when the actions come to them)."""
    match event:
        case Snapshot() if first:
            # A compacted log: the match goes on from here, with this hand.
            if not isinstance(following, Deal):
                raise BadAction("a snapshot is followed by its deal")
            rebuilt.resume(event, following)
        case Snapshot():
            # Written again by the deal it comes before; checked there.
            if not isinstance(following, Deal):
                raise BadAction("a snapshot is followed by its deal")
        case Start():
            rebuilt.start()
        case Entropy(seat=seat, entropy=entropy):
            rebuilt.contribute(seat, entropy)
        case ActionTaken(seat=seat, action=action, by=by):
            rebuilt.apply(seat, action, by=by)
        case Back(seat=seat):
            if not rebuilt.back(seat):
                raise BadAction("a seat came back that nobody stood in for")
        case Arranged():
            rebuilt.keep_arranged(event)
        case Deal() | Reshuffle() | NextDeal():
            pass


def _rearrange(rebuilt: Replaying, seat: int, order: Order) -> None:
    """A stored order: only how the cards are shown, so one that does not fit (another
    hand's) is dropped, never a reason to lose the table."""
    hand = rebuilt.hand
    if hand is None or hand.number != order.hand:
        return
    with contextlib.suppress(RuleError):
        rebuilt.arrange(seat, order.cards)
