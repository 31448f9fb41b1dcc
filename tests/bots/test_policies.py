"""The policies on hand-made positions: each expectation worked out from the rules text."""

from __future__ import annotations

from hollywood_gin.bots.knowledge import Seen
from hollywood_gin.bots.policy import (
    easy_discard,
    easy_take,
    makes_meld,
    normal_discard,
    normal_take,
    should_knock,
)
from hollywood_gin.engine.cards import CARDS, Card, mask_of, parse_cards


def m(text: str) -> int:
    return mask_of(parse_cards(text.split()))


def i(text: str) -> int:
    return Card.parse(text).index


def seen(hand: str, *, pile: str = "", stock: int = 25, limit: int = 10, **kw: object) -> Seen:
    piles = tuple(i(t) for t in pile.split())
    fields: dict[str, object] = {
        "me": 0,
        "hand": m(hand),
        "pile": piles,
        "dead": mask_of(CARDS[p] for p in piles),
        "pile_count": len(piles),
        "opp_has": 0,
        "opp_threw": 0,
        "opp_count": 10,
        "stock_count": stock,
        "knock_limit": limit,
        "wall": False,
        "phase": "discard",
        "dealer": 1,
        "turn": 0,
    }
    fields.update(kw)
    return Seen(**fields)  # type: ignore[arg-type]


def test_makes_meld_sets_and_runs_ace_low() -> None:
    assert makes_meld(m("7C 7D KS"), i("7H"))  # 7C 7D 7H: a set
    assert makes_meld(m("AH 2H"), i("3H"))  # A-2-3 is a run (ace low)
    assert makes_meld(m("5S 7S"), i("6S"))  # the middle card of 5-6-7
    assert not makes_meld(m("QH KH"), i("AH"))  # Q-K-A is not a run
    assert not makes_meld(m("7C 8D"), i("9H"))  # mixed suits


def test_easy_takes_only_a_card_that_makes_a_meld() -> None:
    s = seen("7C 7D 2H 3H 9S JS KC QD 4C 5D", phase="draw", pile="7H")
    assert easy_take(s, i("7H"))
    # AS is low, but makes no meld with this hand: easy draws from the stock
    s = seen("7C 8D 2H 4H 9S JS KC QD 4C 6D", phase="draw", pile="AS")
    assert not easy_take(s, i("AS"))


def test_easy_discards_its_highest_deadwood_card() -> None:
    # melds 2H 3H 4H and 7C 7D 7S; deadwood KC(10) QD(10) 9S(9) 5D(5) 4C(4): 38
    s = seen("2H 3H 4H 7C 7D 7S KC QD 9S 5D 4C")
    card, knock = easy_discard(s)
    assert not knock
    # KC and QD are both 10; ties go to the higher card index (KC is a club,
    # index 12; QD is index 24) so QD
    assert card == i("QD")


def test_easy_knocks_as_soon_as_it_may() -> None:
    # melds 2H3H4H, 7C7D7S, 9S TS JS; deadwood AC(1) KC(10):
    # discarding KC leaves 1 <= 10
    s = seen("2H 3H 4H 7C 7D 7S 9S TS JS AC KC")
    card, knock = easy_discard(s)
    assert (card, knock) == (i("KC"), True)


def test_easy_never_discards_the_card_it_took() -> None:
    # KC is the highest deadwood card, but it was just taken from the pile
    s = seen("2H 3H 4H 7C 7D 7S QC KC 9S 5D 4C", forbidden=i("KC"))
    card, _ = easy_discard(s)
    assert card == i("QC")


def test_normal_goes_gin() -> None:
    # runs A-3C, 4-7D, J-KS and a loose 8H: discarding 8H leaves deadwood 0: gin
    card, knock = normal_discard(seen("AC 2C 3C 4D 5D 6D 7D JS QS KS 8H"))
    assert (card, knock) == (i("8H"), True)


def test_normal_knocks_low_and_asks_for_less_late() -> None:
    early = seen("AC", stock=30)
    late = seen("AC", stock=8)
    # limit 10, full stock: threshold 10 - 6 (early) = 4
    assert should_knock(early, 4)
    assert not should_knock(early, 5)
    # 8 stock cards: threshold 10 - 6 - 2 * (16 - 8) / 2 = -4, floored at 1
    assert should_knock(late, 1)
    assert not should_knock(late, 2)
    # 14 stock cards: 10 - 6 - 2 * (16 - 14) / 2 = 2
    assert should_knock(seen("AC", stock=14), 2)
    assert not should_knock(seen("AC", stock=14), 3)
    # the opponent took one pile card: 10 - 6 - 5 = -1, floored at 1
    took = seen("AC", stock=30, opp_has=m("7S"))
    assert should_knock(took, 1)
    assert not should_knock(took, 2)
    # straight gin (limit 0): only gin
    assert not should_knock(seen("AC", stock=30, limit=0), 1)
    assert should_knock(seen("AC", stock=30, limit=0), 0)


def test_normal_throws_its_high_card_once_the_opponent_may_knock() -> None:
    # Run 9S TS JS QS KS; loose 3C 3H AH 2S 9H 8C (3 + 3 + 1 + 2 + 9 + 8 = 26).
    # Throwing 8C leaves 18 and keeps 9H (a 9 more makes a set with 9S, the
    # run keeping T-K); throwing 9H leaves 17. Before anyone has drawn (stock
    # 31) normal keeps the card with more chances one draw ahead and throws
    # 8C; with the stock at 13 (nine turns played) the deadwood it would pay
    # on the opponent's knock counts in full, and it throws 9H.
    hand = "JS KS QS 3C AH 3H 2S TS 9H 9S 8C"
    assert normal_discard(seen(hand, stock=31)) == (i("8C"), False)
    assert normal_discard(seen(hand, stock=13)) == (i("9H"), False)


def test_normal_at_the_wall_knocks_only_when_it_likely_wins() -> None:
    # game scoring, stock 2 after my draw: a plain discard ends the hand as a draw
    wall = seen("AC", stock=2, wall=True)
    assert should_knock(wall, 5)
    assert not should_knock(wall, 8)


def test_normal_takes_a_pile_card_that_makes_a_meld() -> None:
    s = seen("7C 7D 2H 3H 9S JS KC QD 4C 5D", phase="draw", pile="7H")
    assert normal_take(s, i("7H"))


def test_normal_at_the_wall_draws_the_stock_to_end_the_hand() -> None:
    # game scoring, 3 stock cards: drawing the stock leaves 2, so my discard
    # ends the hand as a draw; JD does not let me knock (deadwood stays far
    # above 10), so normal draws from the stock rather than give the
    # opponent the last draw
    s = seen("7C 7D 2H 3H 9S JS KC QD 4C 5D", phase="draw", pile="JD", stock=3, wall=True)
    assert not normal_take(s, i("JD"))


def test_normal_keeps_the_card_the_opponent_would_use() -> None:
    # Deadwood after either discard: 9H or 9S alone, both worth 9. The opponent
    # took 8S and TS from the pile, so 9S fits its cards; normal throws 9H.
    base = "2C 3C 4C 5D 6D 7D JH QH KH 9H 9S"
    s = seen(base, opp_has=m("8S TS"))
    # (no knock: 9 is over 10 - 6 = 4, and the opponent has taken two cards)
    assert normal_discard(s) == (i("9H"), False)
