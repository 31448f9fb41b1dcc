"""The Match's three owned helpers on their own, without a Match: the `DealBook`
(docs/protocol-guide.md "Deals nobody can choose"), the `History` (the log, hand records,
compaction) and the `SharedViews` (the view parts every seat shares)."""

from __future__ import annotations

import random

import pytest

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import full_deck
from hollywood_gin.engine.dealer import Dealer, derive_deck, secret_commitment
from hollywood_gin.engine.deals import DealBook
from hollywood_gin.engine.errors import BadAction, IllegalAction
from hollywood_gin.engine.events import (
    ActionTaken,
    Deal,
    DealSource,
    Entropy,
    Event,
    NextDeal,
    Snapshot,
)
from hollywood_gin.engine.hand import Hand
from hollywood_gin.engine.history import History
from hollywood_gin.engine.options import Options, Order
from hollywood_gin.engine.scoring import Sheet
from hollywood_gin.engine.shared_views import SharedViews
from hollywood_gin.engine.views import Ended, sheet_json, sheet_view

SECRET = bytes(range(32))
E0, E1 = "00" * 16, "ab" * 16


def fair_book() -> DealBook:
    return DealBook(Dealer(random.Random(1), fair=True, chosen_secrets=[SECRET]))


# --- DealBook ---------------------------------------------------------------------


def test_a_deal_is_committed_to_before_entropy_and_made_from_both() -> None:
    book = fair_book()
    assert not book.pending and book.commitment is None
    assert book.open(1) == NextDeal(1, SECRET.hex())
    assert book.pending and book.commitment == secret_commitment(SECRET)
    assert book.add(0, E0) == Entropy(1, 0, E0)
    assert book.add(1, E1) == Entropy(1, 1, E1)
    deck, _salt = book.deck(1, dealer=0)
    assert deck == derive_deck(SECRET, [bytes.fromhex(E0), bytes.fromhex(E1)])
    assert book.dealt(1) == DealSource(SECRET.hex(), (E0, E1))
    assert book.revealed == (SECRET.hex(), (E0, E1))
    assert not book.pending and book.commitment is None


def test_a_seats_entropy_is_recorded_once_unless_taken_back() -> None:
    book = fair_book()
    with pytest.raises(IllegalAction):
        book.add(0, E0)  # nothing committed to yet
    book.open(1)
    book.add(0, E0)
    with pytest.raises(IllegalAction):
        book.add(0, E1)
    book.withdraw(0)
    assert book.add(0, E1) == Entropy(1, 0, E1)
    assert book.dealt(1) == DealSource(SECRET.hex(), (E1, None))


def test_a_deal_without_secret_or_entropy_has_no_source() -> None:
    stacked = [str(c) for c in full_deck()]
    book = DealBook(Dealer(random.Random(2), [stacked], first_dealer=1))
    assert book.first_dealer() == 1
    assert book.open(1) is None  # a stacked deck: no secret
    assert book.pending and book.commitment is None
    deck, _salt = book.deck(1, dealer=1)
    assert [str(c) for c in deck] == stacked
    assert book.dealt(1) is None
    assert book.revealed == (None, (None, None))


def test_a_resumed_deal_is_prepared_as_its_event_says() -> None:
    deck = tuple(derive_deck(SECRET, [bytes.fromhex(E0), None]))
    book = DealBook(Dealer(random.Random(3)))
    book.resume(Deal(4, 0, deck, "salt", DealSource(SECRET.hex(), (E0, None))))
    assert book.commitment == secret_commitment(SECRET)
    assert book.deck(4, dealer=0)[0] == list(deck)
    assert book.dealt(4) == DealSource(SECRET.hex(), (E0, None))


# --- History ----------------------------------------------------------------------


def snapshot(hands_dealt: int) -> Snapshot:
    return Snapshot(hands_dealt, hands_dealt * 10, Sheet("hand", 100).to_state())


EMPTY = sheet_view(Sheet("hand", 100))


def deal(n: int) -> Deal:
    return Deal(n, n % 2, tuple(full_deck()), f"salt{n}")


def test_each_deal_starts_from_a_snapshot_and_finished_hands_have_records() -> None:
    history = History(Options())
    history.dealt(snapshot(0), deal(1))
    history.append(ActionTaken(1, Action.of("draw_stock")))
    history.finished(1, None, EMPTY)
    assert history.log == [snapshot(0), deal(1), ActionTaken(1, Action.of("draw_stock"))]
    record = history.hand_record(1)
    assert record is not None
    assert record["number"] == 1 and record["dealer"] == 1 and record["salt"] == "salt1"
    assert record["actions"] == [{"seat": 1, "action": {"kind": "draw_stock"}}]
    assert record["server_secret"] is None and record["entropy"] == [None, None]
    assert record["sheet"] == sheet_json(EMPTY)  # the sheet right after the hand
    assert history.hand_record(2) is None


def test_compaction_drops_the_hands_before_the_last_snapshot_and_keeps_the_rest() -> None:
    history = History(Options())
    history.dealt(snapshot(0), deal(1))
    history.arranged(0, 1, ("AC", "2C"))  # at 2: before the cut, dropped with it
    history.append(ActionTaken(1, Action.of("draw_stock")))
    history.finished(1, None, EMPTY)
    history.dealt(snapshot(1), deal(2))
    history.arranged(1, 2, ("KS", "QS"))  # at 5: after the cut, kept at 2
    first = history.hand_record(1)
    cut, records = history.compaction()
    assert (cut, records) == (3, {1: first})
    assert history.log[:2] == [snapshot(0), deal(1)]  # compaction only tells
    assert history.compact() == 3
    assert history.log == [snapshot(1), deal(2)]
    assert history.orders == {1: Order(2, 2, ("KS", "QS"))}
    assert history.hand_record(1) is None
    assert history.compact() == 0
    history.finished(2, None, EMPTY)  # the hand dealt before the cut is found where it went
    record = history.hand_record(2)
    assert record is not None and record["salt"] == "salt2"


def test_a_replay_writes_a_snapshot_only_where_its_log_has_one() -> None:
    events: list[Event] = [deal(1), snapshot(1), deal(2)]  # old: no snapshot before hand 1
    history = History(Options())
    history.replaying(events)
    history.dealt(snapshot(0), deal(1))
    history.dealt(snapshot(1), deal(2))
    history.replayed(events)
    assert history.log == events
    again = History(Options())
    again.replaying(events)
    again.dealt(snapshot(0), deal(1))
    again.dealt(snapshot(5), deal(2))  # not what the log's snapshot says
    with pytest.raises(BadAction):
        again.replayed(events)


# --- SharedViews ------------------------------------------------------------------


def test_the_shared_parts_are_kept_until_what_they_show_changes() -> None:
    shared = SharedViews(Options("straight", "game", 250))
    table = shared.table("playing", None)
    assert table == ("straight", "game", 250, "playing", None, None, None)  # no move_days, record
    assert shared.table("playing", None) is table
    ended = Ended("resign", 0)
    assert shared.table("match_over", ended, (0, 1)) == (
        "straight",
        "game",
        250,
        "match_over",
        ended,
        None,
        (0, 1),  # the record between the two seats
    )

    hand = Hand(number=1, dealer=0, deck=full_deck(), salt="s", rules="standard", wall=False)
    asked: list[Hand] = []

    def outcome(h: Hand) -> None:
        asked.append(h)

    view = shared.hand(hand, 3, outcome)
    assert shared.hand(hand, 3, outcome) is view
    assert shared.hand(hand, 4, outcome) is not view
    assert view.number == 1 and view.stock_count == len(hand.stock)
    assert asked == []  # asked for only once the hand is over

    sheet = Sheet("game", 250)
    plain = shared.sheet(sheet, None)
    assert shared.sheet(sheet, None) is plain and plain.match_winner is None
    assert shared.sheet(sheet, ended).match_winner == 1  # seat 0 resigned
    assert shared.sheet(sheet, Ended("claim", 0)).match_winner == 0
