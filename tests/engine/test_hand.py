"""One hand, rule by rule (docs/rules.md "A hand"), with hand-built decks.

In most tests seat 1 deals, so seat 0 is the non-dealer: it gets the even
deck positions and the first say on the upcard.
"""

from __future__ import annotations

from typing import Any

import pytest

from hollywood_gin.engine import BadAction, BadCard, IllegalAction, Match, NotYourTurn
from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.events import ActionTaken, Reshuffle
from tests.engine.helpers import act, cards, deck_order, first_draw, new_match, snapshot
from tests.wire import wire

# Scenario A: seat 0 holds A-2-3 of clubs, three fives, 7-8-9 of spades and KD.
A_NON_DEALER = "AC 2C 3C 5H 5D 5S 7S 8S 9S KD"
A_DEALER = "TS JS 6S 5C 2H 4H 8H QH KC 9D"
A_DECK = deck_order(dealer=A_DEALER, non_dealer=A_NON_DEALER, upcard="4D", stock="QC")


def hand_of(m: Match, seat: int) -> list[str]:
    return wire(m.view(seat))["hand"]["my_cards"]


def knocks(m: Match, seat: int) -> dict[str, int]:
    legal = wire(m.view(seat))["legal"]
    return {a["discard"]: a["deadwood"] for a in legal if a["kind"] == "knock"}


# -- docs/rules.md "The deal" --------------------------------------------------


def test_deal_follows_the_deck_order() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    # Even positions to the non-dealer (seat 0), odd ones to the dealer.
    assert hand_of(m, 0) == cards(A_NON_DEALER)
    assert hand_of(m, 1) == cards(A_DEALER)
    h = wire(m.view(None))["hand"]
    assert (h["discard_top"], h["discard_count"], h["stock_count"]) == ("4D", 1, 31)
    assert (h["dealer"], h["turn"], h["phase"]) == (1, 0, "upcard_offer")
    # Card 21 is the top of the stock.
    first_draw(m)
    assert hand_of(m, 0)[-1] == A_DECK[21] == "QC"
    assert wire(m.view(0))["hand"]["stock_count"] == 30


def test_dealer_zero_gives_seat_one_the_even_positions() -> None:
    m = new_match(dealer=0, deck=A_DECK)
    assert hand_of(m, 1) == cards(A_NON_DEALER)
    assert wire(m.view(None))["hand"]["turn"] == 1


# -- docs/rules.md "The upcard offer" ------------------------------------------


def test_non_dealer_takes_the_upcard_then_the_dealer_has_a_normal_turn() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    assert wire(m.view(0))["legal"] == [{"kind": "take_upcard"}, {"kind": "pass"}]
    assert wire(m.view(1))["legal"] == []
    act(m, 0, "take_upcard")
    h = wire(m.view(0))["hand"]
    assert (h["phase"], h["turn"], h["my_cards"][-1]) == ("discard", 0, "4D")
    assert h["discard_count"] == 0
    # The upcard was taken from the discard pile: it cannot go straight back.
    assert {"kind": "discard", "card": "4D"} not in wire(m.view(0))["legal"]
    with pytest.raises(IllegalAction):
        act(m, 0, "discard", card="4D")
    act(m, 0, "discard", card="KD")
    assert wire(m.view(1))["hand"]["turn"] == 1
    assert wire(m.view(1))["legal"] == [{"kind": "draw_stock"}, {"kind": "draw_discard"}]


def test_non_dealer_passes_and_the_dealer_takes() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    act(m, 0, "pass")
    h = wire(m.view(1))["hand"]
    assert (h["phase"], h["turn"]) == ("upcard_offer", 1)
    assert wire(m.view(1))["legal"] == [{"kind": "take_upcard"}, {"kind": "pass"}]
    act(m, 1, "take_upcard")
    assert wire(m.view(1))["hand"]["phase"] == "discard"
    act(m, 1, "discard", card="9D")
    # The non-dealer now takes the next normal turn, either pile allowed.
    assert wire(m.view(0))["hand"]["turn"] == 0
    assert wire(m.view(0))["legal"] == [{"kind": "draw_stock"}, {"kind": "draw_discard"}]
    act(m, 0, "draw_discard")
    assert hand_of(m, 0)[-1] == "9D"


def test_both_pass_and_the_non_dealer_must_draw_from_the_stock() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    act(m, 0, "pass")
    act(m, 1, "pass")
    h = wire(m.view(0))["hand"]
    assert (h["phase"], h["turn"], h["discard_top"]) == ("draw", 0, "4D")
    assert wire(m.view(0))["legal"] == [{"kind": "draw_stock"}]
    before = snapshot(m)
    with pytest.raises(IllegalAction):
        act(m, 0, "draw_discard")
    assert snapshot(m) == before
    act(m, 0, "draw_stock")
    act(m, 0, "discard", card="QC")
    # From the next turn on, the discard pile is open again.
    assert wire(m.view(1))["legal"] == [{"kind": "draw_stock"}, {"kind": "draw_discard"}]


def test_out_of_turn_and_out_of_phase() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    before = snapshot(m)
    with pytest.raises(NotYourTurn):
        act(m, 1, "take_upcard")
    with pytest.raises(NotYourTurn):
        act(m, 1, "draw_stock")
    with pytest.raises(IllegalAction):
        act(m, 0, "draw_stock")  # the offer comes first
    with pytest.raises(IllegalAction):
        act(m, 0, "discard", card="KD")
    with pytest.raises(IllegalAction):
        act(m, 0, "next_hand")
    assert snapshot(m) == before


# -- normal turns and the re-discard ban: docs/rules.md "A turn" ---------------


BAN_DEALER = "AH 2H 3H 6C 6D 6H JS JC JD 4S"  # deadwood 4 (4S)
BAN_DECK = deck_order(dealer=BAN_DEALER, non_dealer=A_NON_DEALER, upcard="8C", stock="QC")


def test_a_card_taken_from_the_discard_pile_cannot_be_discarded_or_knocked_away() -> None:
    m = new_match(dealer=1, deck=BAN_DECK)
    first_draw(m)
    act(m, 0, "discard", card="QC")
    act(m, 1, "draw_discard")
    assert wire(m.view(1))["hand"]["last_action"] == {
        "seat": 1,
        "kind": "draw_discard",
        "card": "QC",
    }
    # Discarding QC would leave deadwood 4 (4S) and discarding 4S leaves 10
    # (QC): both within 10, but QC came from the discard pile this turn.
    assert knocks(m, 1) == {"4S": 10}
    before = snapshot(m)
    with pytest.raises(IllegalAction):
        act(m, 1, "discard", card="QC")
    with pytest.raises(IllegalAction):
        act(m, 1, "knock", discard="QC")
    with pytest.raises(IllegalAction):
        act(m, 1, "discard", card="KD")  # not in seat 1's hand
    assert snapshot(m) == before
    act(m, 1, "discard", card="4S")
    # The next turn lifts the ban: QC is just a card now.
    act(m, 0, "draw_discard")  # takes 4S
    act(m, 0, "discard", card="KD")
    act(m, 1, "draw_stock")
    assert {"kind": "discard", "card": "QC"} in wire(m.view(1))["legal"]


# -- knock limits: docs/rules.md "Knocking" ------------------------------------

# Eight melded cards (A-2-3-4-5 of clubs, three fives) and AH + 9D: deadwood 10.
TEN = "AC 2C 3C 4C 5C 5H 5D 5S AH 9D"
OTHER = "2S 3D 4S 6D 7C 8D 9C TC JH QS"


def test_standard_knock_limit_is_ten() -> None:
    deck = deck_order(dealer=OTHER, non_dealer=TEN, upcard="KC", stock="KH")
    m = new_match(dealer=1, deck=deck)
    assert wire(m.view(0))["hand"]["knock_limit"] == 10
    first_draw(m)
    # Discard KH: AH + 9D = 1 + 9 = 10, allowed. Discard 9D: AH + KH = 11,
    # over. Discard AH: 9 + 10 = 19. Any meld card leaves more.
    assert knocks(m, 0) == {"KH": 10}
    with pytest.raises(IllegalAction):
        act(m, 0, "knock", discard="9D")
    act(m, 0, "knock", discard="KH")
    assert wire(m.view(0))["hand"]["result"]["seats"][0]["deadwood_value"] == 10


GIN_READY = "AC 2C 3C 5H 5D 5S 7S 8S 9S 2D"  # with 6S: 6-7-8-9 of spades, discard 2D: gin


def test_straight_gin_only() -> None:
    deck = deck_order(
        dealer=OTHER.replace("2S", "KS"), non_dealer=GIN_READY, upcard="KC", stock="6S"
    )
    m = new_match(dealer=1, deck=deck, rules="straight")
    assert wire(m.view(0))["hand"]["knock_limit"] == 0
    first_draw(m)
    # Discard 2D: all ten melded, deadwood 0. Discard 6S or 9S: 2D left (2), no knock.
    assert knocks(m, 0) == {"2D": 0}
    with pytest.raises(IllegalAction):
        act(m, 0, "knock", discard="6S")
    act(m, 0, "knock", discard="2D")
    assert wire(m.view(0))["hand"]["result"]["kind"] == "gin"


def test_straight_refuses_a_ten_point_knock() -> None:
    deck = deck_order(dealer=OTHER, non_dealer=TEN, upcard="KC", stock="KH")
    m = new_match(dealer=1, deck=deck, rules="straight")
    first_draw(m)
    assert knocks(m, 0) == {}
    with pytest.raises(IllegalAction):
        act(m, 0, "knock", discard="KH")


@pytest.mark.parametrize(
    ("upcard", "limit"),
    [("AH", 0), ("2H", 2), ("7H", 7), ("9H", 9), ("TH", 10), ("JH", 10), ("QH", 10), ("KH", 10)],
)
def test_oklahoma_limit_is_the_first_upcards_value(upcard: str, limit: int) -> None:
    dealer = "2S 3D 4S 6D 7C 8D 9C TC JS QS"
    deck = deck_order(dealer=dealer, non_dealer=GIN_READY, upcard=upcard, stock="6S")
    m = new_match(dealer=1, deck=deck, rules="oklahoma")
    assert wire(m.view(0))["hand"]["knock_limit"] == limit


def test_oklahoma_ace_means_gin_only() -> None:
    dealer = "2S 3D 4S 6D 7C 8D 9C TC JS QS"
    deck = deck_order(dealer=dealer, non_dealer=GIN_READY, upcard="AH", stock="6S")
    m = new_match(dealer=1, deck=deck, rules="oklahoma")
    first_draw(m)
    # Limit 0: only the gin discard (2D); discarding 9S would leave 2D = 2.
    assert knocks(m, 0) == {"2D": 0}


def test_oklahoma_two_allows_deadwood_two_but_not_five() -> None:
    dealer = "2S 3D 4S 6D 7C 8D 9C TC JS QS"
    deck = deck_order(dealer=dealer, non_dealer=GIN_READY, upcard="2H", stock="6S")
    m = new_match(dealer=1, deck=deck, rules="oklahoma")
    first_draw(m)
    k = knocks(m, 0)
    # 2D -> 0 (gin); 6S or 9S -> 2D left = 2 (at the limit); 3C -> AC+2C+2D = 1+2+2 = 5 (over).
    assert k["2D"] == 0 and k["6S"] == 2 and k["9S"] == 2
    assert "3C" not in k
    assert all(v <= 2 for v in k.values())


def test_oklahoma_face_upcard_allows_ten() -> None:
    deck = deck_order(dealer=OTHER, non_dealer=TEN, upcard="QC", stock="KH")
    m = new_match(dealer=1, deck=deck, rules="oklahoma")
    assert wire(m.view(0))["hand"]["knock_limit"] == 10
    first_draw(m)
    assert knocks(m, 0) == {"KH": 10}


# -- docs/rules.md "Laying out and laying off", "Scoring a hand" ---------------


def result(m: Match) -> dict[str, Any]:
    return wire(m.view(None))["hand"]["result"]


def meld_index(melds: list[list[str]], meld: str) -> int:
    return melds.index(cards(meld))


def test_knock_with_chained_run_and_set_layoffs() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    act(m, 0, "take_upcard")
    act(m, 0, "knock", discard="KD")
    r = result(m)
    knocker, defender = r["seats"]
    assert knocker["deadwood"] == ["4D"] and knocker["deadwood_value"] == 4
    melds = knocker["melds"]
    assert sorted(melds) == sorted([cards("AC 2C 3C"), cards("5D 5H 5S"), cards("7S 8S 9S")])
    spades, fives = meld_index(melds, "7S 8S 9S"), meld_index(melds, "5D 5H 5S")
    # The defender lays 6S below 7-8-9 of spades, TS above and JS on top of
    # TS (a chain), and 5C as the fourth five.
    assert sorted((x["card"], x["meld"]) for x in defender["layoffs"]) == sorted(
        [("6S", spades), ("TS", spades), ("JS", spades), ("5C", fives)]
    )
    # Left: 2H 4H 8H QH KC 9D = 2 + 4 + 8 + 10 + 10 + 9 = 43.
    assert defender["deadwood_value"] == 43 and defender["melds"] == []
    # Before laying off, the same cards plus 6S TS JS 5C: 43 + 6 + 10 + 10 + 5 = 74
    # (none of the ten makes a meld of its own).
    assert defender["deadwood_before_layoffs"] == 74
    assert knocker["deadwood_before_layoffs"] == 4 and r["bonus"] == 0
    # Knock, K = 4 < D = 43: the knocker scores 43 - 4 = 39.
    assert (r["kind"], r["knocker"], r["winner"], r["points"]) == ("knock", 0, 0, 39)
    assert r["knock_discard"] == "KD"
    assert wire(m.view(0))["sheet"]["games"][0]["seats"][0]["entries"] == [39]


def test_undercut() -> None:
    deck = deck_order(
        dealer="2H 3H 4H 6C 6D 6H JS JC JD 4S",
        non_dealer="AC 2C 3C 5H 5D 5S 7S 8S 9S 8D",
        upcard="KD",
        stock="QC",
    )
    m = new_match(dealer=1, deck=deck)
    first_draw(m)
    act(m, 0, "knock", discard="QC")
    r = result(m)
    # K = 8 (8D). The defender melds 2-3-4H, three sixes, three jacks; 4S
    # fits nothing: D = 4. K >= D: undercut, 8 - 4 + 25 = 29 to the defender.
    assert (r["kind"], r["knocker"], r["winner"], r["points"]) == ("undercut", 0, 1, 29)
    assert r["seats"][1]["deadwood"] == ["4S"]
    assert r["bonus"] == 25  # the undercut bonus inside the 29


def test_equal_deadwood_is_an_undercut() -> None:
    deck = deck_order(
        dealer="2H 3H 4H 6C 6D 6H JS JC JD 8C",
        non_dealer="AC 2C 3C 5H 5D 5S 7S 8S 9S 8D",
        upcard="KD",
        stock="QC",
    )
    m = new_match(dealer=1, deck=deck)
    first_draw(m)
    act(m, 0, "knock", discard="QC")
    r = result(m)
    # K = 8 (8D), D = 8 (8C): K >= D, so 8 - 8 + 25 = 25 to the defender.
    assert (r["kind"], r["winner"], r["points"]) == ("undercut", 1, 25)


GIN_HAND = "AC 2C 3C 4C 5H 5D 5S 7S 8S 9S"


def test_gin_gets_twenty_five_and_no_layoffs() -> None:
    deck = deck_order(
        dealer="6S 5C TH JH QH 2D 3D 4D KS KC", non_dealer=GIN_HAND, upcard="KD", stock="KH"
    )
    m = new_match(dealer=1, deck=deck)
    first_draw(m)
    assert knocks(m, 0)["KH"] == 0
    act(m, 0, "knock", discard="KH")
    r = result(m)
    defender = r["seats"][1]
    # 6S would extend 7-8-9 of spades and 5C the fives, but not after gin:
    # D = 6 + 5 + 10 + 10 = 31 (TH-JH-QH and 2-3-4D melded); 31 + 25 = 56.
    assert defender["layoffs"] == []
    assert sorted(defender["deadwood"]) == sorted(cards("5C 6S KC KS"))
    assert (r["kind"], r["winner"], r["points"]) == ("gin", 0, 56)
    # After gin nothing is laid off: the deadwood before and after is the same 31.
    assert defender["deadwood_before_layoffs"] == 31 and r["bonus"] == 25


def test_gin_against_a_defender_with_no_deadwood_still_wins_25() -> None:
    deck = deck_order(
        dealer="2H 3H 4H 6C 6D 6H JS JC JD JH", non_dealer=GIN_HAND, upcard="KD", stock="KH"
    )
    m = new_match(dealer=1, deck=deck)
    first_draw(m)
    act(m, 0, "knock", discard="KH")
    r = result(m)
    # D = 0: 0 + 25 = 25, and the knocker still wins.
    assert (r["kind"], r["winner"], r["points"]) == ("gin", 0, 25)


def gin_hand_after_draw() -> Match:
    deck = deck_order(
        dealer="6S 5C TH JH QH 2D 3D 4D KS KC", non_dealer=GIN_HAND, upcard="KD", stock="KH"
    )
    m = new_match(dealer=1, deck=deck)
    first_draw(m)
    return m


def test_named_melds_are_used_as_given() -> None:
    m = gin_hand_after_draw()
    melds = [cards("AC 2C 3C"), cards("5H 5D 5S"), cards("7S 8S 9S")]
    act(m, 0, "knock", discard="KH", melds=melds)
    r = result(m)
    knocker, defender = r["seats"]
    # The knocker leaves 4C out: K = 4, a knock, not gin, so the defender
    # lays off 6S (spades) and 5C (fives) and keeps KS + KC = 20.
    assert knocker["deadwood"] == ["4C"] and knocker["deadwood_value"] == 4
    assert knocker["melds"] == [cards("AC 2C 3C"), cards("5D 5H 5S"), cards("7S 8S 9S")]
    assert sorted(x["card"] for x in defender["layoffs"]) == ["5C", "6S"]
    assert {x["card"]: x["meld"] for x in defender["layoffs"]} == {"5C": 1, "6S": 2}
    # 20 - 4 = 16.
    assert (r["kind"], r["winner"], r["points"]) == ("knock", 0, 16)


@pytest.mark.parametrize(
    ("melds", "error"),
    [
        ([["AC", "2C", "4C"]], IllegalAction),  # not a run
        ([["KH", "KD", "KS"]], IllegalAction),  # not held (KH is the discard)
        ([["AC", "2C", "3C"], ["2C", "3C", "4C"]], IllegalAction),  # a card twice
        ([["5H", "5D", "5S"]], IllegalAction),  # deadwood 1+2+3+4+7+8+9 = 34 > 10
        ([["AC", "AC", "2C"]], BadCard),  # a card twice in one meld
        ([["XX", "2C", "3C"]], BadCard),
        ("AC 2C 3C", BadAction),
        ([["AC", "2C", "3C"], "5H"], BadAction),
    ],
)
def test_bad_named_melds_are_refused_and_change_nothing(melds: object, error: type) -> None:
    m = gin_hand_after_draw()
    before = snapshot(m)
    with pytest.raises(error):
        act(m, 0, "knock", discard="KH", melds=melds)
    assert snapshot(m) == before


def test_named_melds_with_no_deadwood_are_gin() -> None:
    m = gin_hand_after_draw()
    melds = [cards("AC 2C 3C 4C"), cards("5H 5D 5S"), cards("7S 8S 9S")]
    act(m, 0, "knock", discard="KH", melds=melds)
    assert result(m)["kind"] == "gin"


def test_knock_shows_its_deadwood_and_ignores_it_when_sent_back() -> None:
    m = gin_hand_after_draw()
    entry = next(
        a for a in wire(m.view(0))["legal"] if a["kind"] == "knock" and a["discard"] == "KH"
    )
    assert entry == {"kind": "knock", "discard": "KH", "deadwood": 0}
    m.apply(0, parse_action({**entry, "deadwood": 99}), version=m.version)
    assert result(m)["kind"] == "gin"


# -- docs/rules.md "The end of the stock" --------------------------------------


def draw_and_throw(m: Match, draws: int) -> None:
    """Both passed; each turn draws from the stock and discards the drawn card."""
    for _ in range(draws):
        h = wire(m.view(None))["hand"]
        seat = h["turn"]
        act(m, seat, "draw_stock")
        act(m, seat, "discard", card=hand_of(m, seat)[-1])


def wall_match(scoring: str, non_dealer: str = A_NON_DEALER, dealer: str = A_DEALER) -> Match:
    deck = deck_order(dealer=dealer, non_dealer=non_dealer, upcard="KH")
    m = new_match(dealer=1, deck=[deck, deck], scoring=scoring)
    act(m, 0, "pass")
    act(m, 1, "pass")
    return m


@pytest.mark.parametrize("scoring", ["game", "hollywood"])
def test_a_discard_leaving_two_stock_cards_ends_the_hand_as_a_draw(scoring: str) -> None:
    m = wall_match(scoring)
    draw_and_throw(m, 28)  # 31 - 28 = 3 left
    assert wire(m.view(None))["hand"]["stock_count"] == 3
    assert m.status == "playing"
    # Draw 29 is seat 0's (draws alternate 0, 1, ...: odd ones are seat 0's).
    act(m, 0, "draw_stock")
    assert wire(m.view(None))["hand"]["stock_count"] == 2
    act(m, 0, "discard", card=hand_of(m, 0)[-1])
    r = result(m)
    assert (r["kind"], r["knocker"], r["winner"], r["points"]) == ("draw", None, None, 0)
    assert r["games"] == []
    # No lay-offs in a draw: KD = 10; 6+10+10+5+2+4+8+10+10+9 = 74.
    assert [s["deadwood_value"] for s in r["seats"]] == [10, 74]
    sheet = wire(m.view(None))["sheet"]
    assert all(s["entries"] == [] for g in sheet["games"] for s in g["seats"])
    assert m.status == "hand_over"
    act(m, 0, "next_hand")
    act(m, 1, "next_hand")
    # A drawn hand: the same dealer deals again.
    assert wire(m.view(None))["hand"]["dealer"] == 1
    assert wire(m.view(None))["hand"]["number"] == 2


def test_the_player_who_drew_the_third_last_card_may_still_knock() -> None:
    m = wall_match("game", non_dealer=TEN, dealer=OTHER)  # seat 0 holds deadwood 10 throughout
    draw_and_throw(m, 28)
    act(m, 0, "draw_stock")  # the third-last card: two are left
    drawn = hand_of(m, 0)[-1]
    assert knocks(m, 0).get(drawn) == 10
    act(m, 0, "knock", discard=drawn)
    assert result(m)["kind"] in ("knock", "undercut")
    assert result(m)["knocker"] == 0


def test_hand_scoring_plays_past_two_and_reshuffles_an_empty_stock() -> None:
    m = wall_match("hand")
    draw_and_throw(m, 29)
    assert m.status == "playing"
    assert wire(m.view(None))["hand"]["stock_count"] == 2
    draw_and_throw(m, 2)  # 31 draws: the stock is empty
    h = wire(m.view(None))["hand"]
    assert (h["stock_count"], h["discard_count"]) == (0, 32)
    pile_top = h["discard_top"]
    under = [e for e in m.log if isinstance(e, ActionTaken) and e.action.kind == "discard"]
    seat = h["turn"]
    assert wire(m.view(seat))["legal"] == [{"kind": "draw_stock"}, {"kind": "draw_discard"}]
    act(m, seat, "draw_stock")
    h = wire(m.view(None))["hand"]
    # The 31 cards under the top became the stock; one of them was drawn.
    assert (h["stock_count"], h["discard_count"], h["discard_top"]) == (30, 1, pile_top)
    reshuffle = [e.to_json() for e in m.log if isinstance(e, Reshuffle)]
    assert len(reshuffle) == 1 and len(reshuffle[0]["stock"]) == 31  # type: ignore[arg-type]
    old_pile = {"KH"} | {str(e.action.card) for e in under}
    assert set(reshuffle[0]["stock"]) == old_pile - {pile_top}  # type: ignore[arg-type]
    assert hand_of(m, seat)[-1] == reshuffle[0]["stock"][0]  # type: ignore[index]


def test_a_hand_record_places_each_reshuffle_after_the_moves_before_it() -> None:
    """The record is built from the log: its reshuffle says how many of the hand's
    actions came before it (2 passes + 31 turns of draw and discard = 64)."""
    m = wall_match("hand", non_dealer=TEN, dealer=OTHER)  # seat 0 may knock throughout
    draw_and_throw(m, 32)  # the 32nd draw finds the stock empty: a reshuffle first
    act(m, 0, "draw_stock")
    act(m, 0, "knock", discard=hand_of(m, 0)[-1])
    record = m.hand_record(1)
    assert record is not None
    assert [r["after"] for r in record["reshuffles"]] == [64]
    assert len(record["reshuffles"][0]["stock"]) == 31
    kinds = [a["action"]["kind"] for a in record["actions"]]
    assert len(kinds) == 2 + 2 * 32 + 2 and kinds[:2] == ["pass", "pass"]
    assert kinds[-2:] == ["draw_stock", "knock"]
    assert kinds[64] == "draw_stock"  # the draw the reshuffle came before
