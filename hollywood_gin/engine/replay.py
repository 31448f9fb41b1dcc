"""A match's log, read back: the snapshot each deal starts from, cutting the log
at the last one (`compact`), and rebuilding a match from a log (`Match.replay`).

Plain functions on the `Match`, which keeps the state.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from hollywood_gin.engine import deals
from hollywood_gin.engine.dealer import Replayed
from hollywood_gin.engine.errors import BadAction
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
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.options import Order
from hollywood_gin.engine.scoring import Sheet

if TYPE_CHECKING:
    from hollywood_gin.engine.match import Match

# -- snapshots -------------------------------------------------------------


def snapshot(match: Match, hands_dealt: int) -> Snapshot:
    """What the next deal starts from: everything earlier hands leave behind.
    Presence carried over from earlier hands only when there is some (so the
    logs of tables that never had any stay as they were)."""
    timeouts = (match.timeouts[0], match.timeouts[1]) if any(match.timeouts) else None
    stand_in = (match.stand_in[0], match.stand_in[1]) if any(match.stand_in) else None
    return Snapshot(hands_dealt, match.version, match.sheet.to_state(), timeouts, stand_in)


def restore(match: Match, snapshot: Snapshot) -> None:
    """Take up the state a snapshot describes (a replay that starts with one)."""
    match._hands_dealt = snapshot.hands_dealt
    match.version = snapshot.version
    match.timeouts = list(snapshot.timeouts or (0, 0))
    match.stand_in = list(snapshot.stand_in or (False, False))
    options = match.options
    try:
        match.sheet = Sheet.from_state(snapshot.sheet, options.scoring, options.target)
    except ValueError as exc:
        raise BadAction(f"a snapshot's sheet: {exc}") from None


def compaction(match: Match) -> tuple[int, dict[int, JsonObject]]:
    """What `compact` would drop: how many entries, and the records of those hands."""
    last = last_snapshot(match)
    records = {}
    for n, (start, _end, _outcome) in match._records.items():
        if start < last:
            record = match.hand_record(n)
            assert record is not None
            records[n] = record
    return last, records


def last_snapshot(match: Match) -> int:
    log = match.log
    for i in range(len(log) - 1, -1, -1):
        if isinstance(log[i], Snapshot):
            return i
    return 0


def compact(match: Match) -> int:
    """`Match.compact`: drop the log before the last snapshot; how many entries went."""
    last = last_snapshot(match)
    if last == 0:
        return 0
    del match.log[:last]
    match._hand_log_start -= last
    match.orders = {
        seat: dataclasses.replace(order, at=order.at - last)
        for seat, order in match.orders.items()
        if order.at >= last
    }
    match._records = {
        n: (start - last, end - last, outcome)
        for n, (start, end, outcome) in match._records.items()
        if start >= last
    }
    return last


# -- replay --------------------------------------------------------------


def rebuild(
    match: Match, events: list[Event], dealer: Replayed, orders: Mapping[int, Order] | None
) -> None:
    """`Match.replay` on a new `match` dealt by `dealer` (which reads `events`)."""
    match._trusted = True
    match._replay_snapshots = {
        after.hand
        for e, after in itertools.pairwise(events)
        if isinstance(e, Snapshot) and isinstance(after, Deal)
    }
    arranged: dict[int, list[tuple[int, Order]]] = {}
    for seat, order in (orders or {}).items():
        arranged.setdefault(order.at, []).append((seat, order))
    for i, event in enumerate([*events, None]):
        for seat, order in arranged.get(i, ()):
            match._rearrange(seat, order)
        if event is None:
            break
        replay_one(match, event, events, i)
    dealer.done()
    if match.log != events:
        # Snapshots are written by the replay itself: each must be what it says.
        raise BadAction("the log's snapshots do not follow from its hands")
    match._replay_snapshots = None
    match._trusted = False


def replay_one(match: Match, event: Event, events: Sequence[Event], i: int) -> None:
    """Event `i` of a replayed log, done again (deals and reshuffles are the
    dealer's: `Replayed` deals them when the actions come to them)."""
    following = events[i + 1] if i + 1 < len(events) else None
    match event:
        case Snapshot() if i == 0:
            # A compacted log: the match goes on from here, with this hand.
            if not isinstance(following, Deal):
                raise BadAction("a snapshot is followed by its deal")
            restore(match, event)
            deals.resume_deal(match, following)
            match._deal(match._new_hand(following.dealer))
            match.version += 1
        case Snapshot():
            # Written again by the deal it comes before; checked there.
            if not isinstance(following, Deal):
                raise BadAction("a snapshot is followed by its deal")
        case Start():
            match.start()
        case Entropy(seat=seat, entropy=entropy):
            match.contribute(seat, entropy)
        case ActionTaken(seat=seat, action=action, by=by):
            match.apply(seat, action, by=by)
        case Back(seat=seat):
            if not match.back(seat):
                raise BadAction("a seat came back that nobody stood in for")
        case Arranged(seat=seat, cards=cards):
            # Logs written before orders were kept apart: apply, and keep the
            # event, so the log stays the stored one entry for entry.
            match.arrange(seat, cards)
            match.log.append(event)
        case Deal() | Reshuffle() | NextDeal():
            pass
