"""`view(seat)`: the state body (docs/protocol-guide.md "The state"), and what it must never show
(docs/protocol-guide.md "Hidden information")."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.engine import BadAction, BadCard, Match, Options
from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.melds import arrange, discard_deadwoods
from hollywood_gin.engine.views import (
    Mine,
    MineFields,
    View,
    ViewFields,
    new_mine,
    new_view,
    view_from_wire,
)
from tests.engine.helpers import act, cards, deck_order, first_draw, new_match
from tests.engine.test_hand import A_DEALER, A_DECK, A_NON_DEALER
from tests.wire import sheet as wire_sheet
from tests.wire import wire


def text(m: Match, seat: int | None) -> str:
    return json.dumps(wire(m.view(seat)))


def hidden_from(m: Match, seat: int | None) -> set[str]:
    """Cards `seat` must not see now: the stock, and the hands it does not hold."""
    assert m.hand is not None
    out = {str(c) for c in m.hand.stock}
    for s in (0, 1):
        if s != seat:
            out |= {str(c) for c in m.hand.cards[s]}
    return out


def assert_hides(m: Match, seat: int | None, cards_: set[str]) -> None:
    t = text(m, seat)
    shown = {c for c in cards_ if f'"{c}"' in t}
    assert not shown, f"view({seat}) shows {sorted(shown)}"


def test_view_shape_for_a_seat_and_a_spectator() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    v = wire(m.view(0))
    assert set(v) == {"version", "you", "table", "hand", "legal", "sheet", "ready"}
    assert v["you"] == 0 and v["version"] == 1
    assert v["table"] == {
        "rules": "standard",
        "scoring": "hand",
        "target": 100,
        "status": "playing",
    }
    h = v["hand"]
    assert set(h) == {
        "number",
        "dealer",
        "turn",
        "phase",
        "knock_limit",
        "stock_count",
        "discard_top",
        "discard_count",
        "my_cards",
        "opponent_card_count",
        "my_melds",
        "my_deadwood",
        "card_counts",
        "deck_commitment",
        "last_action",
        "events",
    }
    assert h["last_action"] is None and h["events"] == [] and h["opponent_card_count"] == 10
    assert h["card_counts"] == [10, 10]
    s = wire(m.view(None))
    assert s["you"] is None and s["legal"] == []
    assert "my_cards" not in s["hand"] and "opponent_card_count" not in s["hand"]
    assert v["sheet"] == {
        "games": [
            {
                "seats": [
                    {"entries": [], "points": 0, "bonus": 0, "game_bonus": 0, "line_bonus": 0},
                    {"entries": [], "points": 0, "bonus": 0, "game_bonus": 0, "line_bonus": 0},
                ],
                "finished": False,
                "winner": None,
            }
        ],
        "totals": [0, 0],
        "match_winner": None,
    }
    json.dumps(v)


def test_my_cards_keep_the_arranged_order_and_a_drawn_card_goes_last() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    mine = cards(A_NON_DEALER)
    order = mine[5:] + mine[:5]
    m.arrange(0, order)
    assert wire(m.view(0))["hand"]["my_cards"] == order
    # Kept apart from the log (which arranging must not grow), with where it was made.
    assert m.orders[0].to_json() == {"hand": 1, "at": len(m.log), "cards": order}
    assert all(e.to_json()["event"] != "arrange" for e in m.log)
    first_draw(m)
    assert wire(m.view(0))["hand"]["my_cards"] == [*order, "QC"]
    act(m, 0, "discard", card="5S")
    assert wire(m.view(0))["hand"]["my_cards"] == [c for c in [*order, "QC"] if c != "5S"]
    # Seat 1 may arrange while it is not its turn; it changes only seat 1's cards.
    m.arrange(1, sorted(cards(A_DEALER)))
    assert wire(m.view(1))["hand"]["my_cards"] == sorted(cards(A_DEALER))


def test_my_drawn_names_the_drawn_card_to_its_seat_alone_until_the_discard() -> None:
    """A page that reloads marks the card it just drew: the drawing seat's state
    names it, no other state does (docs/protocol-guide.md "The state")."""
    m = new_match(dealer=1, deck=A_DECK)
    assert "my_drawn" not in wire(m.view(0))["hand"]
    first_draw(m)
    assert wire(m.view(0))["hand"]["my_drawn"] == "QC"
    m.arrange(0, sorted(wire(m.view(0))["hand"]["my_cards"]))  # kept whatever the order
    assert wire(m.view(0))["hand"]["my_drawn"] == "QC"
    assert "QC" not in json.dumps(wire(m.view(1))) and "QC" not in json.dumps(wire(m.view(None)))
    act(m, 0, "discard", card="5S")
    assert all("my_drawn" not in wire(m.view(s))["hand"] for s in (0, 1))
    act(m, 1, "draw_discard")  # from the pile: the 5S, public already
    assert wire(m.view(1))["hand"]["my_drawn"] == "5S"
    assert "my_drawn" not in wire(m.view(0))["hand"]
    # Replayed from the log (a restart), the same.
    again = Match.replay(m.options, m.log)
    assert wire(again.view(1))["hand"]["my_drawn"] == "5S"


@pytest.mark.parametrize(
    ("order", "error"),
    [
        (cards(A_NON_DEALER)[:9], BadAction),  # one missing
        ([*cards(A_NON_DEALER), "QC"], BadAction),  # one extra
        ([*cards(A_NON_DEALER)[:9], "QC"], BadAction),  # one not held
        ([*cards(A_NON_DEALER)[:9], "AC"], BadCard),  # a card twice
        ([*cards(A_NON_DEALER)[:9], "ZZ"], BadCard),
        ("AC 2C", BadAction),
        (None, BadAction),
    ],
)
def test_arrange_takes_only_a_permutation(order: object, error: type) -> None:
    m = new_match(dealer=1, deck=A_DECK)
    before = (m.view(0), len(m.log), m.version)
    with pytest.raises(error):
        m.arrange(0, order)  # type: ignore[arg-type]
    assert (m.view(0), len(m.log), m.version) == before


def test_last_action_names_only_public_cards() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    act(m, 0, "pass")
    assert wire(m.view(1))["hand"]["last_action"] == {"seat": 0, "kind": "pass"}
    act(m, 1, "pass")
    act(m, 0, "draw_stock")  # QC, from the stock
    for seat in (1, None):
        assert wire(m.view(seat))["hand"]["last_action"] == {"seat": 0, "kind": "draw_stock"}
        assert '"QC"' not in text(m, seat)
    assert wire(m.view(0))["hand"]["my_cards"][-1] == "QC"  # the drawer sees it in the hand
    act(m, 0, "discard", card="QC")
    assert wire(m.view(1))["hand"]["last_action"] == {"seat": 0, "kind": "discard", "card": "QC"}
    act(m, 1, "draw_discard")
    assert wire(m.view(0))["hand"]["last_action"] == {
        "seat": 1,
        "kind": "draw_discard",
        "card": "QC",
    }
    m2 = new_match(dealer=1, deck=A_DECK)
    act(m2, 0, "take_upcard")
    assert wire(m2.view(1))["hand"]["last_action"] == {
        "seat": 0,
        "kind": "take_upcard",
        "card": "4D",
    }


def test_events_list_the_hands_public_moves_in_order() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    first_draw(m)  # QC: private to seat 0
    act(m, 0, "discard", card="QC")
    act(m, 1, "draw_discard")
    expected = [
        {"seat": 0, "kind": "pass"},
        {"seat": 1, "kind": "pass"},
        {"seat": 0, "kind": "draw_stock"},
        {"seat": 0, "kind": "discard", "card": "QC"},
        {"seat": 1, "kind": "draw_discard", "card": "QC"},
    ]
    for seat in (0, 1, None):
        assert wire(m.view(seat))["hand"]["events"] == expected


def test_views_hide_the_other_hand_and_the_stock_until_the_result() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    act(m, 0, "take_upcard")
    for seat in (0, 1, None):
        hidden = hidden_from(m, seat) - {"4D"}  # 4D was taken face up: public
        assert len(hidden) >= 31
        assert_hides(m, seat, hidden)
    # The knock's discard is face down; the result then shows everything.
    act(m, 0, "knock", discard="KD")
    r = wire(m.view(1))["hand"]["result"]
    assert r["knock_discard"] == "KD"
    assert r["deck_reveal"]["deck"] == A_DECK
    shown0 = [c for meld in r["seats"][0]["melds"] for c in meld] + r["seats"][0]["deadwood"]
    assert sorted(shown0) == sorted(c for c in [*cards(A_NON_DEALER), "4D"] if c != "KD")
    d = r["seats"][1]
    shown1 = [c for meld in d["melds"] for c in meld] + d["deadwood"]
    shown1 += [x["card"] for x in d["layoffs"]]
    assert sorted(shown1) == sorted(cards(A_DEALER))


def test_deck_commitment_is_the_salted_hash_of_the_dealt_order() -> None:
    m = new_match(dealer=1, deck=[A_DECK, A_DECK], scoring="game")
    commitment = wire(m.view(None))["hand"]["deck_commitment"]
    assert "result" not in wire(m.view(None))["hand"]
    act(m, 0, "take_upcard")
    assert wire(m.view(1))["hand"]["deck_commitment"] == commitment  # fixed at the deal
    act(m, 0, "knock", discard="KD")
    reveal = wire(m.view(None))["hand"]["result"]["deck_reveal"]
    salt = reveal["salt"]
    assert len(salt) == 32 and all(ch in "0123456789abcdef" for ch in salt)
    text_ = salt + ":" + ",".join(reveal["deck"])
    assert hashlib.sha256(text_.encode("utf-8")).hexdigest() == commitment
    act(m, 0, "next_hand")
    act(m, 1, "next_hand")
    # Same deck order, new salt: a new commitment.
    assert wire(m.view(None))["hand"]["deck_commitment"] != commitment


def test_a_spectator_sees_the_result_but_no_hand_before() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    act(m, 0, "take_upcard")
    assert_hides(m, None, hidden_from(m, None) - {"4D"})
    act(m, 0, "knock", discard="KD")
    s = wire(m.view(None))
    assert s["hand"]["result"]["points"] == 39 and s["legal"] == []
    assert s["hand"]["turn"] is None and s["hand"]["phase"] == "over"
    assert s["table"]["status"] == "match_over"


def test_my_melds_and_my_deadwood_group_the_seats_own_cards() -> None:
    # Non-dealer (seat 0) holds 7H 8H 9H (run), QS QD QC (set), and 2C 3D 5S KH.
    # Least deadwood: both melds kept, 2 + 3 + 5 + 10 = 20.
    deck = deck_order(
        dealer="AC AD AH AS 4C 4D 4H 4S 6C 6D",
        non_dealer="7H 8H 9H QS QD QC 2C 3D 5S KH",
        upcard="TD",
    )
    m = new_match(dealer=1, deck=deck)
    h = wire(m.view(0))["hand"]
    assert sorted(map(sorted, h["my_melds"])) == [["7H", "8H", "9H"], ["QC", "QD", "QS"]]
    assert h["my_deadwood"] == 20
    # The dealer (seat 1): sets of aces and of fours, 6C 6D left: 6 + 6 = 12.
    assert wire(m.view(1))["hand"]["my_deadwood"] == 12
    assert "my_melds" not in wire(m.view(None))["hand"]


def test_holding_eleven_the_count_is_after_the_best_allowed_discard() -> None:
    # Seat 0 (non-dealer) holds 7H 8H 9H, QS QD QC, 2C 3D 5S KH and takes the upcard TH.
    # Eleven cards; the best discard is KH (10): kept 7H-8H-9H-TH run, Q set, and
    # 2C 3D 5S = 10 deadwood. TH was just taken, so it may not be the discard.
    deck = deck_order(
        dealer="AC AD AH AS 4C 4D 4H 4S 6C 6D",
        non_dealer="7H 8H 9H QS QD QC 2C 3D 5S KH",
        upcard="TH",
    )
    m = new_match(dealer=1, deck=deck)
    act(m, 0, kind="take_upcard")
    h = wire(m.view(0))["hand"]
    assert h["my_deadwood"] == 10
    assert sorted(map(sorted, h["my_melds"])) == [["7H", "8H", "9H", "TH"], ["QC", "QD", "QS"]]
    assert not any("KH" in meld for meld in h["my_melds"])


def fresh_grouping(held: list[Card], banned: Card | None) -> tuple[list[list[Card]], int]:
    """The grouping rule of `Hand.grouping`, with nothing kept from call to call."""
    kept = list(held)
    if len(kept) == 11:
        left = discard_deadwoods(kept)
        best = min((c for c in kept if c != banned), key=lambda c: (left[c], -c.value))
        kept.remove(best)
    melds, dead = arrange(kept)
    return melds, sum(c.value for c in dead)


@given(seed=st.integers(0, 2**32))
@settings(max_examples=10, deadline=None)
def test_the_kept_grouping_and_sheet_are_what_a_fresh_solve_gives(seed: int) -> None:
    """`view` and `Hand` keep each seat's grouping and solver answers, and the sheet,
    between changes; after every action and rearrangement they equal a solve from
    scratch with the solver's functions, and the sheet's view afresh."""
    rng = random.Random(seed)
    m = Match(Options("standard", "hollywood", 100), rng=random.Random(seed + 1))
    m.start()
    for _ in range(300):
        if m.status == "match_over":
            break
        assert m.hand is not None
        for s in (0, 1):
            view = wire(m.view(s))
            melds, deadwood = fresh_grouping(m.hand.cards[s], m.hand.taken_from_discard)
            assert view["hand"]["my_melds"] == [[str(c) for c in meld] for meld in melds]
            assert view["hand"]["my_deadwood"] == deadwood
            assert view["sheet"] == wire_sheet(m.sheet)
        seat = next(s for s in (0, 1) if wire(m.view(s))["legal"])
        if rng.random() < 0.1:
            mine = wire(m.view(seat))["hand"]["my_cards"]
            m.arrange(seat, rng.sample(mine, len(mine)))
        else:
            m.apply(seat, parse_action(rng.choice(wire(m.view(seat))["legal"])))


@given(seed=st.integers(0, 2**32), scoring=st.sampled_from(["hand", "game", "hollywood"]))
@settings(max_examples=15, deadline=None)
def test_a_view_read_back_from_the_wire_gives_the_same_wire(seed: int, scoring: str) -> None:
    """`view_from_wire` (what a client or a bot on a socket reads) loses nothing:
    every seat's and the spectator's state, at every step of a whole match."""
    rng = random.Random(seed)
    m = Match(Options("standard", scoring, 100), rng=random.Random(seed + 1))
    m.start()
    for _ in range(400):
        for who in (0, 1, None):
            body = wire(m.view(who))
            assert wire(view_from_wire(body)) == body
        if m.status == "match_over":
            break
        seat = next(s for s in (0, 1) if m.legal(s))
        m.apply(seat, rng.choice(m.legal(seat)))


def test_views_are_frozen_and_share_the_public_parts() -> None:
    m = new_match(dealer=0, deck=A_DECK)
    mine, theirs, watching = m.view(0), m.view(1), m.view(None)
    with pytest.raises(AttributeError):
        mine.version = 99  # type: ignore[misc]
    assert mine.hand is not None
    with pytest.raises(AttributeError):
        mine.hand.stock_count = 0  # type: ignore[misc]
    # One value of the table's public part per change, whoever looks.
    assert mine.hand is theirs.hand is watching.hand
    assert mine.sheet is theirs.sheet is watching.sheet
    assert mine.mine is not None and watching.mine is None
    act(m, 1, "pass")
    assert m.view(0).hand is not mine.hand  # a change: a new value
    assert wire(mine)["version"] == m.version - 1  # the old one is left as it was


def test_view_from_wire_refuses_what_is_no_state() -> None:
    body = wire(new_match(dealer=0, deck=A_DECK).view(0))
    del body["hand"]["discard_top"]
    with pytest.raises(ValueError, match="not a state body"):
        view_from_wire(body)


def test_the_fast_constructors_take_the_classes_own_fields_in_order() -> None:
    """`new_mine` / `new_view` skip the named tuples' own `__new__`; mypy checks
    their callers against `MineFields` / `ViewFields`, so those must be the fields."""
    import typing

    for cls, fields, make in ((Mine, MineFields, new_mine), (View, ViewFields, new_view)):
        hints = typing.get_type_hints(cls)
        assert typing.get_args(fields) == tuple(hints[name] for name in cls._fields)
        built = make(tuple(range(len(cls._fields))))
        assert type(built) is cls and built == cls(*range(len(cls._fields)))
