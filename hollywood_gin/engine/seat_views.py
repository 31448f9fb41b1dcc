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
from hollywood_gin.engine.views import (
    Ended,
    HandView,
    Mine,
    Outcome,
    SheetView,
    TableView,
    View,
    new_mine,
    new_view,
)
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


# `ready` as every view holds it: one tuple per value of the match's two flags
# (bools), not a new one each change that the collector walks while the table waits.
_READY: tuple[tuple[tuple[bool, bool], tuple[bool, bool]], ...] = (
    ((False, False), (False, True)),
    ((True, False), (True, True)),
)


class SeatViews:
    """The views of one match, for its seats and spectators.

    What every seat's view of one change shares is kept in slots with the version
    and the hand it was taken at (the table's view, the hand's public view, the
    sheet's view, `ready` and `next_deal`): slots of this long-lived object, not a
    tuple made on each change that lives until the next and that each young
    collection walks.
    """

    __slots__ = (
        "_hand",
        "_hand_view",
        "_next_deal",
        "_ready",
        "_shared",
        "_sheet",
        "_table",
        "_version",
    )

    def __init__(self, options: Options) -> None:
        self._shared = SharedViews(options)
        self._version = -1  # none taken yet: the first view takes them (`_change`)
        self._hand: Hand | None = None
        self._table: TableView
        self._hand_view: HandView | None = None
        self._sheet: SheetView
        self._ready: tuple[bool, bool] = (False, False)
        self._next_deal: str | None = None

    def _change(self, match: Seen, hand: Hand | None, version: int) -> None:
        """Take the parts of this change's views that every seat's view shares."""
        shared = self._shared
        ended = match.ended
        ready = match.ready
        self._version = version
        self._hand = hand
        self._table = shared.table(match.status, ended, match.matches_won)
        self._hand_view = None if hand is None else shared.hand(hand, version, match.outcome)
        self._sheet = shared.sheet(match.sheet, ended)
        self._ready = _READY[ready[0]][ready[1]]
        self._next_deal = match.next_deal

    def view(self, match: Seen, seat: int | None) -> View:
        """What `seat` (0 or 1, checked; None: a spectator) may see of `match` now;
        `View.wire()` is the `state` body (docs/protocol-guide.md "The state")."""
        hand = match.hand
        version = match.version
        # The shared parts once per change: the table, the hand's public part, the
        # sheet, `ready` and `next_deal` change only with the version (each change of
        # the match is one; a new hand is another `Hand`), as the hand's public view
        # is kept by its version already (`SharedViews.hand`).
        if self._version != version or self._hand is not hand:
            self._change(match, hand, version)
        mine: Mine | None = None
        legal: tuple[Action, ...] = ()
        knock_deadwood: tuple[int, ...] = ()
        if seat is not None:
            if hand is None:
                legal = match.actions(seat)
            else:
                # The seat's own part is worked out once per change of its cards.
                own = hand.own(seat)
                legal = match.actions(seat, own)
                melds, deadwood = own.grouping
                turn = hand.turn == seat
                drawn = hand.drawn if turn else None
                mine = new_mine(
                    (
                        own.texts,
                        len(hand.cards[1 - seat]),
                        melds,
                        deadwood,
                        None if drawn is None else drawn.text,
                    )
                )
                if turn and hand.phase == "discard" and match.status == "playing":
                    # `legal` lists the knocks after the discards (Hand.legal), each
                    # with its discard, then the end actions.
                    knock_deadwood = own.knock_deadwood
        # Every field, in View's order (`new_view`: see there).
        return new_view(
            (
                version,
                seat,
                self._table,
                self._hand_view,
                mine,
                legal,
                self._sheet,
                self._ready,
                knock_deadwood,
                self._next_deal,
            ),
        )

    def sheet(self, sheet: Sheet, ended: Ended | None) -> SheetView:
        """The sheet's view (the one every seat's view of this change holds)."""
        return self._shared.sheet(sheet, ended)
