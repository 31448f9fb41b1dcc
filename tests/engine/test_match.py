"""The match: statuses, versions, errors, who deals, rematches, records, replay."""

from __future__ import annotations

import json
import random

import pytest

from hollywood_gin.engine import (
    BadAction,
    BadCard,
    IllegalAction,
    Match,
    NotSeated,
    NotYourTurn,
    Options,
    RuleError,
    StaleVersion,
    replay,
)
from hollywood_gin.engine.actions import Action, parse_action
from hollywood_gin.engine.events import ActionTaken, Arranged, Deal, log_from_json
from hollywood_gin.engine.options import Order
from tests.engine.helpers import act, deck_order, new_match, snapshot, through_json
from tests.engine.test_hand import A_DECK
from tests.wire import wire

UNDERCUT_DECK = deck_order(
    dealer="2H 3H 4H 6C 6D 6H JS JC JD 4S",
    non_dealer="AC 2C 3C 5H 5D 5S 7S 8S 9S 8D",
    upcard="KD",
    stock="QC",
)


def knock_a(m: Match) -> None:
    """Scenario A: seat 0 takes the upcard and knocks, winning 39."""
    act(m, 0, "take_upcard")
    act(m, 0, "knock", discard="KD")


def undercut(m: Match, knocker: int) -> None:
    act(m, knocker, "pass")
    act(m, 1 - knocker, "pass")
    act(m, knocker, "draw_stock")
    act(m, knocker, "knock", discard="QC")


def test_waiting_until_start() -> None:
    m = Match(Options(), rng=random.Random(1))
    assert (m.version, m.status) == (0, "waiting")
    v = wire(m.view(0))
    assert "hand" not in v and v["legal"] == [] and v["ready"] == [False, False]
    assert v["table"] == {
        "rules": "standard",
        "scoring": "hand",
        "target": 100,
        "status": "waiting",
    }
    with pytest.raises(IllegalAction):
        m.apply(0, parse_action({"kind": "pass"}))
    with pytest.raises(BadAction):
        m.arrange(0, [])
    m.start()
    assert (m.version, m.status) == (1, "playing")
    with pytest.raises(IllegalAction):
        m.start()
    assert m.version == 1


def test_version_goes_up_by_one_per_applied_action_only() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    assert m.version == 1
    act(m, 0, "pass")
    assert m.version == 2
    m.arrange(0, list(reversed(wire(m.view(0))["hand"]["my_cards"])))
    assert m.version == 2  # arranging is not an action
    with pytest.raises(NotYourTurn):
        act(m, 0, "pass")
    assert m.version == 2
    act(m, 1, "pass")
    assert m.version == 3
    assert m.apply(0, parse_action({"kind": "draw_stock"})) is m  # no version given: not checked
    assert m.version == 4


def test_stale_version_is_refused_before_anything_else() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    act(m, 0, "pass")
    before = snapshot(m)
    with pytest.raises(StaleVersion):
        m.apply(
            1, parse_action({"kind": "pass"}), version=1
        )  # chosen on the state before seat 0 passed
    with pytest.raises(StaleVersion):
        m.apply(1, parse_action({"kind": "knock", "discard": "AS"}), version=m.version + 1)
    with pytest.raises(StaleVersion):
        m.apply(7, parse_action({"kind": "pass"}), version=0)
    assert snapshot(m) == before
    m.apply(1, parse_action({"kind": "pass"}), version=2)
    assert m.version == 3


def ready(m: Match, seat: int, kind: str, version: int) -> None:
    m.apply(seat, parse_action({"kind": kind}), version=version)


def test_ready_signals_are_taken_at_any_version_while_open() -> None:
    """docs/protocol-guide.md "Actions": both players press "Next hand" on
    the same state, and the second press deals instead of being stale."""
    m = new_match(dealer=1, deck=[A_DECK, A_DECK, A_DECK], scoring="game")
    m.endings = True
    knock_a(m)
    seen = m.version  # both pages show the hand's end
    ready(m, 0, "next_hand", seen)
    ready(m, 1, "next_hand", seen)  # chosen on `seen`, one version old: taken
    assert m.status == "playing" and m.version == seen + 2
    # Now a late next_hand is neither open nor sent already: stale as ever.
    before = snapshot(m)
    with pytest.raises(StaleVersion):
        ready(m, 0, "next_hand", seen)
    assert snapshot(m) == before
    # A play on an old version stays stale.
    act(m, 1, "pass")
    with pytest.raises(StaleVersion):
        m.apply(0, parse_action({"kind": "pass"}), version=m.version - 1)
    # `resign` on an old version, while open, ends the match; a second one is nothing.
    ready(m, 0, "resign", m.version - 1)
    assert m.status == "match_over" and m.ended is not None and m.ended.seat == 0
    after = snapshot(m)
    ready(m, 0, "resign", m.version - 1)
    ready(m, 0, "resign", m.version)
    assert snapshot(m) == after
    with pytest.raises(StaleVersion):  # Bob never resigned: not his to repeat
        ready(m, 1, "resign", m.version - 1)
    # Rematch pressed by both on the same state, one press twice.
    seen = m.version
    ready(m, 1, "new_match", seen)
    ready(m, 1, "new_match", seen)  # a second press: a no-op
    assert m.version == seen + 1 and m.ready == [False, True]
    ready(m, 0, "new_match", seen)
    assert m.status == "playing" and m.version == seen + 2 and m.ended is None
    with pytest.raises(StaleVersion):  # a bad seat on an old version: stale first
        ready(m, 7, "next_hand", 0)


@pytest.mark.parametrize(
    ("action", "error"),
    [
        ("pass", BadAction),
        ({}, BadAction),
        ({"kind": "fly"}, BadAction),
        ({"kind": 3}, BadAction),
        ({"kind": "pass", "card": "7H"}, BadAction),
        ({"kind": "discard"}, BadAction),
        ({"kind": "discard", "card": "7X"}, BadCard),
        ({"kind": "discard", "card": 7}, BadCard),
        ({"kind": "knock"}, BadAction),
        ({"kind": "knock", "discard": "KD", "melds": [["AC"]], "extra": 1}, BadAction),
        ({"kind": "draw_stock"}, IllegalAction),  # well formed, but the offer comes first
    ],
)
def test_bad_actions_are_typed_and_change_nothing(action: object, error: type) -> None:
    m = new_match(dealer=1, deck=A_DECK)
    before = snapshot(m)
    with pytest.raises(error) as info:
        m.apply(0, parse_action(action), version=m.version)  # type: ignore[arg-type]
    assert info.value.code in ("bad_message", "illegal_action")
    assert snapshot(m) == before


def test_not_seated() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    for seat in (2, -1, True, "0", None):
        with pytest.raises(NotSeated):
            m.apply(seat, parse_action({"kind": "pass"}))  # type: ignore[arg-type]
    with pytest.raises(NotSeated):
        m.view(2)
    with pytest.raises(NotSeated):
        wire(m.view(5))["legal"]


def test_hand_over_needs_next_hand_from_both_and_the_winner_deals() -> None:
    m = new_match(dealer=1, deck=[A_DECK, A_DECK], scoring="game")
    knock_a(m)
    assert m.status == "hand_over"
    assert wire(m.view(0))["hand"]["result"]["games"] == [0]
    assert wire(m.view(0))["legal"] == wire(m.view(1))["legal"] == [{"kind": "next_hand"}]
    with pytest.raises(IllegalAction):
        act(m, 0, "new_match")
    with pytest.raises(IllegalAction):
        act(m, 0, "pass")  # no hand is being played
    v = m.version
    act(m, 1, "next_hand")
    assert m.version == v + 1 and m.status == "hand_over"
    assert wire(m.view(None))["ready"] == [False, True]
    assert wire(m.view(1))["legal"] == [] and wire(m.view(0))["legal"] == [{"kind": "next_hand"}]
    act(m, 1, "next_hand")  # sent already: a no-op, not an error (docs/protocol-guide.md "Actions")
    assert m.version == v + 1 and m.ready == [False, True]
    act(m, 0, "next_hand")  # the second one deals
    assert m.version == v + 2 and m.status == "playing"
    h = wire(m.view(None))["hand"]
    # Seat 0 won hand 1, so seat 0 deals hand 2 and seat 1 gets the offer.
    assert (h["number"], h["dealer"], h["turn"], h["phase"]) == (2, 0, 1, "upcard_offer")
    assert wire(m.view(None))["ready"] == [False, False]
    # Dealt from the second deck: the non-dealer (now seat 1) has the even positions.
    assert wire(m.view(1))["hand"]["my_cards"] == A_DECK[0:20:2]
    # The sheet carries on within the match.
    assert wire(m.view(None))["sheet"]["games"][0]["seats"][0]["entries"] == [39]


def test_after_an_undercut_the_defender_deals() -> None:
    m = new_match(dealer=1, deck=[UNDERCUT_DECK, A_DECK], scoring="game")
    undercut(m, knocker=0)
    assert wire(m.view(None))["hand"]["result"]["winner"] == 1
    act(m, 0, "next_hand")
    act(m, 1, "next_hand")
    assert wire(m.view(None))["hand"]["dealer"] == 1


def test_hand_scoring_match_over_and_rematch_winner_deals() -> None:
    m = new_match(dealer=1, deck=[A_DECK, A_DECK])
    knock_a(m)
    assert m.status == "match_over"
    sheet = wire(m.view(None))["sheet"]
    assert sheet["match_winner"] == 0 and sheet["totals"] == [39, 0]
    assert wire(m.view(0))["legal"] == [{"kind": "new_match"}]
    with pytest.raises(IllegalAction):
        act(m, 0, "next_hand")
    act(m, 0, "new_match")
    assert m.status == "match_over" and wire(m.view(1))["ready"] == [True, False]
    act(m, 1, "new_match")
    assert m.status == "playing"
    v = wire(m.view(None))
    assert v["hand"]["number"] == 2 and v["hand"]["dealer"] == 0
    assert v["sheet"]["games"][0]["seats"][0]["entries"] == []  # a fresh sheet
    assert v["sheet"]["match_winner"] is None


def test_game_scoring_match_ends_at_the_target() -> None:
    decks = [A_DECK, UNDERCUT_DECK, UNDERCUT_DECK, UNDERCUT_DECK]
    m = new_match(dealer=1, deck=decks, scoring="game")
    knock_a(m)  # seat 0: 39
    for total in (68, 97):
        act(m, 0, "next_hand")
        act(m, 1, "next_hand")
        # Seat 0 won and deals; seat 1 knocks with 8 and seat 0 undercuts: +29.
        undercut(m, knocker=1)
        assert m.status == "hand_over"
        assert wire(m.view(None))["sheet"]["games"][0]["seats"][0]["points"] == total
    act(m, 0, "next_hand")
    act(m, 1, "next_hand")
    undercut(m, knocker=1)  # 97 + 29 = 126 >= 100
    assert m.status == "match_over"
    assert wire(m.view(0))["legal"] == wire(m.view(1))["legal"] == [{"kind": "new_match"}]
    sheet = wire(m.view(None))["sheet"]
    g = sheet["games"][0]
    assert g["finished"] and g["winner"] == 0
    assert [s["entries"] for s in g["seats"]] == [[39, 29, 29, 29], []]
    # Seat 1 scored nothing: shutout 200, plus 4 x 25 line bonus = 300;
    # total 126 + 300 = 426.
    assert [s["bonus"] for s in g["seats"]] == [300, 0]
    assert sheet["totals"] == [426, 0] and sheet["match_winner"] == 0


def test_first_dealer_is_random_unless_given() -> None:
    dealers = set()
    for seed in range(20):
        m = Match(Options(), rng=random.Random(seed))
        m.start()
        dealers.add(wire(m.view(None))["hand"]["dealer"])
    assert dealers == {0, 1}
    for dealer in (0, 1):
        m = Match(Options(), rng=random.Random(3), first_dealer=dealer)
        m.start()
        assert wire(m.view(None))["hand"]["dealer"] == dealer


def test_deck_orders_then_shuffles_when_used_up() -> None:
    m = new_match(dealer=1, deck=A_DECK, scoring="game")
    knock_a(m)
    act(m, 0, "next_hand")
    act(m, 1, "next_hand")
    deck2 = [[c.text for c in e.deck] for e in m.log if isinstance(e, Deal)][1]
    assert sorted(deck2) == sorted(A_DECK) and deck2 != A_DECK


def test_hand_record() -> None:
    m = new_match(dealer=1, deck=[A_DECK, A_DECK], scoring="game")
    assert m.hand_record(1) is None  # still being played
    knock_a(m)
    rec = m.hand_record(1)
    assert rec is not None
    assert rec["options"] == {"rules": "standard", "scoring": "game", "target": 100}
    assert (rec["number"], rec["dealer"], rec["deck"]) == (1, 1, A_DECK)
    assert len(rec["salt"]) == 32 and int(rec["salt"], 16) >= 0
    assert rec["actions"] == [
        {"seat": 0, "action": {"kind": "take_upcard"}},
        {"seat": 0, "action": {"kind": "knock", "discard": "KD"}},
    ]
    assert rec["reshuffles"] == []
    assert rec["result"]["points"] == 39
    rec["actions"].clear()  # a copy: the match's record is not changed
    rec["result"]["seats"].clear()
    again = m.hand_record(1)
    assert again is not None
    assert len(again["actions"]) == 2 and len(again["result"]["seats"]) == 2
    assert m.hand_record(2) is None and m.hand_record(0) is None
    json.dumps(rec)


def test_replay_rebuilds_the_same_state() -> None:
    m = new_match(dealer=1, deck=[UNDERCUT_DECK, A_DECK], scoring="hollywood")
    undercut(m, knocker=0)
    act(m, 1, "next_hand")
    act(m, 0, "next_hand")
    act(m, 0, "pass")
    m.arrange(0, sorted(wire(m.view(0))["hand"]["my_cards"]))
    log = through_json(m.log)  # as stored
    r = replay(m.options, log, orders=m.orders)
    assert r.version == m.version and r.status == m.status
    for seat in (0, 1, None):
        assert r.view(seat) == m.view(seat)
    assert r.log == m.log
    assert r.hand_record(1) == m.hand_record(1)
    # The replayed match plays on like the original.
    act(m, 1, "pass")
    act(r, 1, "pass")
    assert r.view(0) == m.view(0)


def test_replay_refuses_a_log_that_does_not_add_up() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    act(m, 0, "pass")
    bad_action = [*m.log, ActionTaken(0, Action.of("pass"))]
    with pytest.raises(NotYourTurn):
        Match.replay(m.options, bad_action)
    no_deal = [e for e in m.log if not isinstance(e, Deal)]
    with pytest.raises(BadAction):
        Match.replay(m.options, no_deal)
    with pytest.raises(RuleError):
        Match.replay(m.options, log_from_json([{"event": "start"}, {"event": "deal", "hand": 1}]))
    with pytest.raises(BadAction):
        log_from_json([*(e.to_json() for e in m.log), {"event": "party"}])
    deal = next(e for e in m.log if isinstance(e, Deal))
    with pytest.raises(BadAction):
        Match.replay(m.options, [*m.log, deal])  # a deal never reached


def test_results_go_into_hollywood_games() -> None:
    m = new_match(dealer=1, deck=[A_DECK, A_DECK, A_DECK], scoring="hollywood")
    knock_a(m)
    assert wire(m.view(None))["hand"]["result"]["games"] == [0]  # seat 0's 1st win
    act(m, 0, "next_hand")
    act(m, 1, "next_hand")
    act(m, 1, "take_upcard")  # seat 0 deals; seat 1 has Scenario A's hand
    act(m, 1, "knock", discard="KD")
    assert wire(m.view(None))["hand"]["result"]["games"] == [0]  # seat 1's 1st win
    act(m, 0, "next_hand")
    act(m, 1, "next_hand")
    act(m, 0, "take_upcard")
    act(m, 0, "knock", discard="KD")
    assert wire(m.view(None))["hand"]["result"]["games"] == [0, 1]  # seat 0's 2nd win
    games = wire(m.view(None))["sheet"]["games"]
    assert [g["seats"][0]["entries"] for g in games] == [[39, 39], [39], []]
    assert [g["seats"][1]["entries"] for g in games] == [[39], [], []]


def test_options() -> None:
    assert Options.from_dict({}) == Options("standard", "hand", 100)
    o = Options.from_dict({"rules": "oklahoma", "scoring": "hollywood", "target": 250})
    assert o.to_dict() == {"rules": "oklahoma", "scoring": "hollywood", "target": 250}
    assert Options.from_dict(o.to_dict()) == o
    for bad in (
        {"rules": "big"},
        {"scoring": "rubber"},
        {"target": 150},
        {"target": "100"},
        {"target": True},
        {"rules": None},
        {"colour": "red"},
    ):
        with pytest.raises(BadAction):
            Options.from_dict(bad)


def test_a_bad_deck_order_is_refused_before_anything_changes() -> None:
    short = A_DECK[:51]
    m = new_match(dealer=1, deck=[A_DECK, short], scoring="game")
    knock_a(m)
    act(m, 0, "next_hand")
    before = snapshot(m)
    with pytest.raises(BadAction):
        act(m, 1, "next_hand")
    assert snapshot(m) == before
    with pytest.raises(BadAction):
        new_match(dealer=1, deck=[[*A_DECK[:51], A_DECK[0]]])  # a card twice


def test_arranging_does_not_grow_the_log_and_a_replay_puts_the_order_back() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    act(m, 0, "pass")
    length = len(m.log)
    mine = wire(m.view(0))["hand"]["my_cards"]
    for i in range(200):
        m.arrange(0, mine[i % 10 :] + mine[: i % 10])
    assert len(m.log) == length
    m.arrange(0, sorted(mine))
    act(m, 1, "pass")
    act(m, 0, "draw_stock")  # the drawn card goes last, after the arranged ten
    again = replay(m.options, through_json(m.log), orders=m.orders)
    assert again.view(0) == m.view(0) and wire(again.view(0))["hand"]["my_cards"][:10] == sorted(
        mine
    )
    # Without the orders the cards come back in dealt order: the orders are what kept it.
    assert (
        wire(replay(m.options, m.log).view(0))["hand"]["my_cards"]
        != wire(m.view(0))["hand"]["my_cards"]
    )


def test_a_log_written_with_arrange_events_still_replays_entry_for_entry() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    act(m, 0, "pass")
    order = sorted(wire(m.view(0))["hand"]["my_cards"])
    log = [*m.log, Arranged(0, tuple(order))]
    again = replay(m.options, through_json(log))
    assert again.log == log
    assert wire(again.view(0))["hand"]["my_cards"] == order


def test_a_stored_order_that_no_longer_fits_is_dropped_not_fatal() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    assert Order.from_json({"hand": 1, "at": "x", "cards": None}) is None  # not read at all
    bad = {0: Order(1, len(m.log), ("AS", "2S"))}
    again = replay(m.options, m.log, orders=bad)
    assert again.view(0) == m.view(0)
