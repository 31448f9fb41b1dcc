"""The Match's `Presence` and the log reader `replay.redo` on their own, without a Match.

Presence from docs/protocol-guide.md "Around the match": a seat is away when it has had no
connection for the claim time or has let the turn clock run out 3 times in a row
(reset by the seat's own move); `claim` and `stand_in` are open against an away
seat, `stand_in` until the computer stands in already; a stand-in ends when the
seat's connection says hello again (or the seat moves itself)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import full_deck
from hollywood_gin.engine.errors import BadAction, IllegalAction, RuleError
from hollywood_gin.engine.events import (
    START,
    ActionTaken,
    Arranged,
    Back,
    Deal,
    Entropy,
    Event,
    Snapshot,
)
from hollywood_gin.engine.hand import Hand
from hollywood_gin.engine.options import Order
from hollywood_gin.engine.presence import Presence
from hollywood_gin.engine.replay import redo
from hollywood_gin.engine.scoring import Sheet

CLAIM, STAND_IN = Action.of("claim"), Action.of("stand_in")

# --- Presence ----------------------------------------------------------------------


def test_a_seat_is_away_after_three_timeouts_in_a_row_and_its_own_move_resets_them() -> None:
    p = Presence()
    for n in (1, 2):
        p.moved(1, "timeout")
        assert p.timeouts == [0, n] and not p.away(1) and p.against(0) == ()
    p.moved(1, "timeout")
    assert p.away(1) and p.against(0) == (CLAIM, STAND_IN)
    assert p.against(1) == ()  # nothing opens against the seat that is there
    p.moved(1, None)
    assert p.timeouts == [0, 0] and not p.away(1)


def test_a_seat_absent_for_the_claim_time_is_away() -> None:
    p = Presence()
    p.absent = [True, False]
    assert p.away(0) and not p.away(1)
    assert p.against(1) == (CLAIM, STAND_IN) and p.against(0) == ()


def test_a_stand_in_closes_stand_in_and_ends_on_hello_or_the_seats_own_move() -> None:
    p = Presence()
    p.absent[1] = True
    p.stand_in[1] = True
    assert p.against(0) == (CLAIM,)  # claim stays open, a second stand-in does not
    assert p.mover(1, "stand_in") == "stand_in"
    p.moved(1, "stand_in")
    assert p.stand_in == [False, True] and p.timeouts == [0, 0]
    assert p.back(1) and p.stand_in == [False, False]
    assert not p.back(1)  # nobody stood in any more
    p.stand_in[1] = True
    p.moved(1, None)
    assert p.stand_in == [False, False]


def test_a_mover_is_checked() -> None:
    p = Presence()
    assert p.mover(0, None) is None and p.mover(0, "timeout") == "timeout"
    with pytest.raises(BadAction):
        p.mover(0, "computer")
    with pytest.raises(BadAction):
        p.mover(0, 3)
    with pytest.raises(IllegalAction):
        p.mover(0, "stand_in")  # nobody stands in for seat 0


def test_a_replay_believes_the_logs_claims() -> None:
    p = Presence()
    p.trusted = True
    assert p.against(0) == (CLAIM, STAND_IN)


def test_presence_is_carried_by_a_snapshot_only_when_there_is_some() -> None:
    p = Presence()
    assert p.carried() == (None, None)
    p.timeouts = [0, 2]
    assert p.carried() == ((0, 2), None)
    p.stand_in = [True, False]
    snapshot = Snapshot(3, 40, Sheet("game", 100).to_state(), *p.carried())
    assert snapshot.timeouts == (0, 2) and snapshot.stand_in == (True, False)
    q = Presence()
    q.restore(snapshot)
    assert q.timeouts == [0, 2] and q.stand_in == [True, False] and q.absent == [False, False]


# --- replay.redo ------------------------------------------------------------------


class Recorder:
    """A `Replaying` that writes down what the replay asks of it."""

    def __init__(self, hand: Hand | None = None) -> None:
        self.hand = hand
        self.calls: list[tuple[object, ...]] = []

    def start(self) -> None:
        self.calls.append(("start",))

    def contribute(self, seat: int, entropy: object) -> None:
        self.calls.append(("contribute", seat, entropy))

    def apply(self, seat: int, action: Action, *, by: str | None = None) -> object:
        self.calls.append(("apply", seat, action.kind, by))
        return self

    def back(self, seat: int) -> bool:
        self.calls.append(("back", seat))
        return seat == 1

    def arrange(self, seat: int, cards: Sequence[object]) -> None:
        if cards == ("bad",):
            raise BadAction("not the seat's cards")
        self.calls.append(("arrange", seat, tuple(cards)))

    def resume(self, snapshot: Snapshot, deal: Deal) -> None:
        self.calls.append(("resume", snapshot.hands_dealt, deal.hand))

    def keep_arranged(self, event: Arranged) -> None:
        self.calls.append(("keep_arranged", event.seat))


def a_hand(number: int) -> Hand:
    return Hand(number=number, dealer=0, deck=full_deck(), salt="s", rules="standard", wall=False)


def test_each_event_is_done_again_through_the_matchs_moves() -> None:
    deal = Deal(1, 0, tuple(a_hand(1).deck), "s", None)
    events: list[Event] = [
        START,
        Entropy(2, 0, "00" * 16),
        ActionTaken(0, Action.of("draw_stock"), "timeout"),
        Back(1),
        Arranged(1, ("AS",)),
        deal,
    ]
    rec = Recorder()
    redo(rec, events, {})
    assert rec.calls == [
        ("start",),
        ("contribute", 0, "00" * 16),
        ("apply", 0, "draw_stock", "timeout"),
        ("back", 1),
        ("keep_arranged", 1),
    ]


def test_a_compacted_log_resumes_from_its_first_snapshot() -> None:
    sheet = Sheet("game", 100).to_state()
    deal = Deal(4, 1, tuple(a_hand(4).deck), "s", None)
    rec = Recorder()
    redo(rec, [Snapshot(3, 30, sheet), deal, Snapshot(4, 35, sheet), deal], {})
    assert rec.calls == [("resume", 3, 4)]  # a later snapshot is the deal's own
    with pytest.raises(BadAction):
        redo(Recorder(), [Snapshot(3, 30, sheet), START], {})
    with pytest.raises(BadAction):
        redo(Recorder(), [START, Snapshot(3, 30, sheet)], {})


def test_a_seat_nobody_stood_in_for_cannot_come_back() -> None:
    with pytest.raises(RuleError):
        redo(Recorder(), [Back(0)], {})


def test_card_orders_go_back_where_they_were_made_and_a_misfit_is_dropped() -> None:
    events: list[Event] = [START, ActionTaken(0, Action.of("pass"), None)]
    rec = Recorder(a_hand(2))
    orders = {0: Order(2, 1, ("AS", "2S")), 1: Order(1, 1, ("KS",))}  # 1: another hand's
    redo(rec, events, orders)
    assert rec.calls == [("start",), ("arrange", 0, ("AS", "2S")), ("apply", 0, "pass", None)]
    rec = Recorder(a_hand(2))
    redo(rec, events, {0: Order(2, 2, ("bad",))})  # after the last event; does not fit
    assert rec.calls == [("start",), ("apply", 0, "pass", None)]
