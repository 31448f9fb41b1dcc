"""A match's history: its log of events, where each finished hand is in it (the hand
records are built from there), each seat's latest card order beside it, and compaction.

A `Match` owns one `History` and appends every event to it; `log` is the list the
tables layer stores and `Match.replay` reads back. Each hand starts with a snapshot
of what the hands before it left (`dealt`), so the log before it can go
(`compact`) once the caller has kept the records of the hands it drops
(`compaction`): a table's log stays about one hand long.
"""

from __future__ import annotations

import dataclasses
import itertools

from hollywood_gin.engine.errors import BadAction
from hollywood_gin.engine.events import ActionTaken, Deal, Event, Reshuffle, Snapshot
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.options import Options, Order
from hollywood_gin.engine.views import Outcome, SheetView, sheet_json


class History:
    """The log of one match, and the finished hands' places in it."""

    __slots__ = ("_hand_start", "_options", "_records", "_replay_snapshots", "log", "orders")

    def __init__(self, options: Options) -> None:
        self._options = options
        self.log: list[Event] = []
        # Each seat's latest card order. Not in the log: arranging is not a move, and
        # the log must not grow with it; `at` is where in the log it was made.
        self.orders: dict[int, Order] = {}
        # Finished hands: (log start, log end, result, the sheet's view right after
        # it) of each.
        self._records: dict[int, tuple[int, int, Outcome | None, SheetView]] = {}
        self._hand_start = 0
        # The hands whose deal the replayed log has a snapshot before, with it (None:
        # not replaying, every deal gets one).
        self._replay_snapshots: dict[int, Snapshot] | None = None

    def append(self, event: Event) -> None:
        self.log.append(event)

    def arranged(self, seat: int, hand: int, cards: tuple[str, ...]) -> None:
        """`seat` keeps its cards of hand `hand` in this order, from here in the log."""
        self.orders[seat] = Order(hand, len(self.log), cards)

    def dealt(self, snapshot: Snapshot, deal: Deal) -> None:
        """A hand is dealt: the snapshot it starts from, then its deal. A replay
        writes the snapshot only where its log has one, so it rebuilds it exactly."""
        if self._replay_snapshots is None or deal.hand in self._replay_snapshots:
            self.log.append(snapshot)
        self._hand_start = len(self.log)  # where the deal event goes
        self.log.append(deal)

    def finished(self, number: int, outcome: Outcome | None, sheet: SheetView) -> None:
        """Hand `number` is over: its deck, actions and reshuffles are in the log
        already, so only where they are is kept (its record is built when asked for),
        with the sheet as it stands now (the view's own value, immutable: no copy).
        A later hand may finish an earlier game, so the sheet is not to be had later."""
        self._records[number] = (self._hand_start, len(self.log), outcome, sheet)

    def hand_record(self, n: int) -> JsonObject | None:
        """The full record of finished hand `n` (1-based, counted over the
        table's life), or None while it is unknown or still being played.
        Built anew on each call: the caller may change what it gets."""
        known = self._records.get(n)
        if known is None:
            return None
        start, end, outcome, sheet = known
        events = self.log[start:end]
        deal = events[0]
        assert isinstance(deal, Deal)  # a hand's events start with its deal
        source = deal.source
        return {
            "options": self._options.to_dict(),
            "number": n,
            "dealer": deal.dealer,
            "deck": [c.text for c in deal.deck],
            "salt": deal.salt,
            "server_secret": None if source is None else source.server_secret,
            "entropy": [None, None] if source is None else list(source.entropy),
            "actions": [_recorded(e) for e in events if isinstance(e, ActionTaken)],
            "reshuffles": [
                {"after": e.after, "stock": [c.text for c in e.stock]}
                for e in events
                if isinstance(e, Reshuffle)
            ],
            "result": None if outcome is None else outcome.wire(),
            "sheet": sheet_json(sheet),
        }

    def compaction(self) -> tuple[int, dict[int, JsonObject]]:
        """What `compact` would drop: how many entries, and the records of those hands."""
        last = self._last_snapshot()
        records = {}
        for n, (start, *_rest) in self._records.items():
            if start < last:
                record = self.hand_record(n)
                assert record is not None
                records[n] = record
        return last, records

    def compact(self) -> int:
        """Drop the log before the last snapshot (and the orders made there); return
        how many entries went."""
        last = self._last_snapshot()
        if last == 0:
            return 0
        del self.log[:last]
        self._hand_start -= last
        self.orders = {
            seat: dataclasses.replace(order, at=order.at - last)
            for seat, order in self.orders.items()
            if order.at >= last
        }
        self._records = {
            n: (start - last, end - last, outcome, sheet)
            for n, (start, end, outcome, sheet) in self._records.items()
            if start >= last
        }
        return last

    def _last_snapshot(self) -> int:
        for i in range(len(self.log) - 1, -1, -1):
            if isinstance(self.log[i], Snapshot):
                return i
        return 0

    # -- replay --------------------------------------------------------------

    def replaying(self, events: list[Event]) -> None:
        """`events` are being replayed: write a snapshot before a deal only where
        they have one."""
        self._replay_snapshots = {
            after.hand: e
            for e, after in itertools.pairwise(events)
            if isinstance(e, Snapshot) and isinstance(after, Deal)
        }

    def stored_snapshot(self, hand: int) -> Snapshot | None:
        """In a replay, the snapshot the log has before hand `hand`'s deal (None: none,
        or not replaying)."""
        known = self._replay_snapshots
        return None if known is None else known.get(hand)

    def replayed(self, events: list[Event]) -> None:
        """The replay of `events` is done: the log must be them, entry for entry.

        :raises BadAction: it is not (the snapshots are written by the replay itself:
            each must be what it says).
        """
        if self.log != events:
            raise BadAction("the log's snapshots do not follow from its hands")
        self._replay_snapshots = None


def _recorded(e: ActionTaken) -> JsonObject:
    """An action of a hand record; `by` only on a move made for the seat (the turn
    clock, a stand-in), so a seat's own moves keep their shape."""
    if e.by is None:
        return {"seat": e.seat, "action": e.action.to_dict()}
    return {"seat": e.seat, "action": e.action.to_dict(), "by": e.by}
