"""The parts of a match's views that every seat's view shares, each built once per
change: the table's, the hand's public part and the sheet's.

`Match.view` is asked for every seat (and spectator) on every change, so what a
change leaves alone is kept here, keyed by the values it is built from. Those are
given explicitly on each call: this module knows nothing of the match.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from hollywood_gin.engine.hand import Hand
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.scoring import Sheet
from hollywood_gin.engine.views import Ended, HandView, Outcome, SheetView, TableView, sheet_view
from hollywood_gin.engine.vocabulary import Status

# `card_counts` as a hand's view holds it: one tuple per pair of counts a hand has
# (0 to 11 cards a seat), not a new one each change that the collector walks.
_COUNTS = tuple(tuple((a, b) for b in range(12)) for a in range(12))


class SharedViews:
    """The shared parts of one match's views, kept until what they show changes.

    The hand's view is kept with the hand and the version in slots of their own,
    not in a tuple made each change (a new tracked object each young collection
    walks while the table waits for its next move)."""

    __slots__ = ("_hand", "_hand_version", "_hand_view", "_options", "_sheet", "_table")

    def __init__(self, options: Options) -> None:
        self._options = options
        self._table: TableView | None = None
        self._hand: Hand | None = None
        self._hand_version = -1
        self._hand_view: HandView
        # (the sheet, its wins of each seat, how the match ended, the view)
        self._sheet: tuple[Sheet, int, int, Ended | None, SheetView] | None = None

    def table(
        self, status: Status, ended: Ended | None, matches_won: tuple[int, int] = (0, 0)
    ) -> TableView:
        """The table's options, status, how it ended and the matches each seat won."""
        known = self._table
        won = matches_won if any(matches_won) else None
        if known is None or known.status != status or known.ended is not ended:
            o = self._options
            known = self._table = TableView(
                o.rules, o.scoring, o.target, status, ended, o.move_days, won
            )
        elif known.matches_won != won:  # (changes only with the status: never here)
            known = self._table = known._replace(matches_won=won)
        return known

    def hand(self, hand: Hand, version: int, outcome: Callable[[Hand], Outcome | None]) -> HandView:
        """The public part of `hand` at `version`; `outcome` gives its result as shown
        once it is over."""
        if self._hand is hand and self._hand_version == version:
            return self._hand_view
        discard = hand.discard
        cards = hand.cards
        try:
            counts = _COUNTS[len(cards[0])][len(cards[1])]
        except IndexError:  # (never: a seat holds at most eleven)
            counts = (len(cards[0]), len(cards[1]))
        view = HandView(
            hand.number,
            hand.dealer,
            hand.turn,
            hand.phase,
            hand.knock_limit,
            len(hand.stock),
            discard[-1].text if discard else None,
            len(discard),
            counts,
            hand.commitment,
            hand.last_action,
            tuple(hand.events),
            outcome(hand) if hand.phase == "over" else None,
        )
        self._hand = hand
        self._hand_version = version
        self._hand_view = view
        return view

    def sheet(self, sheet: Sheet, ended: Ended | None) -> SheetView:
        """The sheet's view; a match ended early names the winner its ending gives."""
        # `Sheet.record` is its only change and always counts a won hand; a new
        # match is a new sheet.
        known = self._sheet
        wins = sheet.wins
        if (
            known is None
            or known[0] is not sheet
            or known[1] != wins[0]
            or known[2] != wins[1]
            or known[3] is not ended
        ):
            view = sheet_view(sheet)
            if ended is not None:
                view = dataclasses.replace(view, match_winner=ended.winner)
            known = (sheet, wins[0], wins[1], ended, view)
            self._sheet = known
        return known[4]
