"""What each seat sees of a match: `Match.view(seat)` is built here, from the match's
public state (`Seen`), and nowhere else is hidden information decided.

A seat's view holds its own cards (worked out once per change of them, `Hand.own`)
and never the other seat's before the result, any stock card, or the card the other
seat drew from the stock. `view` is asked for every seat on every change, so the
parts every seat's view shares are kept in a `SharedViews` until what they show
changes: the views of one change share them.
"""

from __future__ import annotations

from typing import Protocol

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.hand import Hand
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.own import Own
from hollywood_gin.engine.scoring import Sheet
from hollywood_gin.engine.shared_views import SharedViews
from hollywood_gin.engine.views import Ended, Mine, Outcome, SheetView, View, new_mine, new_view
from hollywood_gin.engine.vocabulary import Status


class Seen(Protocol):
    """The state of a match that its views show (`Match` is one)."""

    @property
    def version(self) -> int: ...
    @property
    def status(self) -> Status: ...
    @property
    def hand(self) -> Hand | None: ...
    @property
    def sheet(self) -> Sheet: ...
    @property
    def ready(self) -> list[bool]: ...
    @property
    def ended(self) -> Ended | None: ...
    @property
    def next_deal(self) -> str | None: ...
    @property
    def matches_won(self) -> tuple[int, int]: ...
    def actions(self, seat: int, own: Own | None = None) -> tuple[Action, ...]: ...
    def outcome(self, hand: Hand) -> Outcome | None: ...


class SeatViews:
    """The views of one match, for its seats and spectators."""

    __slots__ = ("_shared",)

    def __init__(self, options: Options) -> None:
        self._shared = SharedViews(options)

    def view(self, match: Seen, seat: int | None) -> View:
        """What `seat` (0 or 1, checked; None: a spectator) may see of `match` now;
        `View.wire()` is the `state` body (docs/protocol-guide.md "The state")."""
        hand = match.hand
        status = match.status
        ended = match.ended
        mine: Mine | None = None
        legal: tuple[Action, ...] = ()
        knock_deadwood: tuple[int, ...] = ()
        shared = self._shared
        if seat is None:
            hand_view = None if hand is None else shared.hand(hand, match.version, match.outcome)
        else:
            if hand is None:
                legal = match.actions(seat)
                hand_view = None
            else:
                # The seat's own part is worked out once per change of its cards.
                own = hand.own(seat)
                legal = match.actions(seat, own)
                melds, deadwood = own.grouping
                drawn = hand.drawn if hand.turn == seat else None
                mine = new_mine(
                    (
                        own.texts,
                        len(hand.cards[1 - seat]),
                        melds,
                        deadwood,
                        None if drawn is None else drawn.text,
                    )
                )
                if status == "playing" and hand.phase == "discard" and hand.turn == seat:
                    # `legal` lists the knocks after the discards (Hand.legal), each
                    # with its discard, then the end actions.
                    knock_deadwood = own.knock_deadwood
                hand_view = shared.hand(hand, match.version, match.outcome)
        ready = match.ready
        # Every field, in View's order (`new_view`: see there).
        return new_view(
            (
                match.version,
                seat,
                shared.table(status, ended, match.matches_won),
                hand_view,
                mine,
                legal,
                shared.sheet(match.sheet, ended),
                (ready[0], ready[1]),
                knock_deadwood,
                match.next_deal,
            ),
        )

    def sheet(self, sheet: Sheet, ended: Ended | None) -> SheetView:
        """The sheet's view (the one every seat's view of this change holds)."""
        return self._shared.sheet(sheet, ended)
