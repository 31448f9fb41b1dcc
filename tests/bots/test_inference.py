"""The model of the opponent's cards (`bots.inference`) and the deals drawn by it."""

from __future__ import annotations

import random

from hollywood_gin.bots.inference import card_features, card_odds
from hollywood_gin.bots.knowledge import FULL, THREW, TOOK, Seen
from hollywood_gin.bots.worlds import sample_world
from hollywood_gin.engine.cards import Card, parse_cards


def bits(text: str) -> int:
    mask = 0
    for c in parse_cards(text.split()):
        mask |= c.bit
    return mask


def ix(text: str) -> int:
    return Card.parse(text).index


MINE = bits("AD 2D 3D 4D 5D 6D 7D 8D 9D TD")


def _seen(*, took: str = "", threw: str = "", passed: str = "", stock: int = 25) -> Seen:
    """My view before my draw, the opponent having taken `took` from the pile (it
    holds it), thrown `threw` in that order, and passed on `passed`."""
    thrown = [ix(t) for t in threw.split()]
    log: list[tuple[int, int, int]] = []
    for t in took.split():
        log.append((TOOK, ix(t), stock))
    log.extend((THREW, i, stock) for i in thrown)
    pile = tuple(thrown)
    return Seen(
        me=0,
        hand=MINE,
        pile=pile,
        dead=sum(1 << i for i in pile),
        pile_count=32 - stock,  # 52 cards: ten in each hand, the rest pile or stock
        opp_has=bits(took) if took else 0,
        opp_threw=(bits(threw) if threw else 0) | (bits(passed) if passed else 0),
        opp_count=10,
        stock_count=stock,
        knock_limit=10,
        wall=True,
        phase="draw",
        dealer=1,
        turn=0,
        opp_discards=len(thrown),
        opp_log=tuple(log),
    )


def test_only_the_cards_i_have_not_seen_are_weighed() -> None:
    seen = _seen(took="7H", threw="KS QC")
    unseen = FULL & ~(MINE | bits("7H KS QC"))
    assert set(card_features(seen)) == {i for i in range(52) if unseen >> i & 1}


def test_a_card_that_fits_what_it_took_is_likelier_than_one_that_fits_nothing() -> None:
    """A player takes a pile card to meld it: its neighbours and its rank are
    likelier in its hand than a card that touches nothing it did (of the same
    value, or lower: a low card is the likelier keep)."""
    odds = card_odds(_seen(took="7H"))
    assert odds[ix("6H")] > odds[ix("6C")]
    assert odds[ix("8H")] > odds[ix("8S")]
    assert odds[ix("7S")] > odds[ix("3S")]
    assert odds[ix("7C")] > odds[ix("3C")]


def test_a_card_that_fits_what_it_threw_or_passed_is_less_likely() -> None:
    """A player keeps what melds with its cards: the rank and the neighbours of a
    card it threw or passed on are less likely in its hand than a card that
    touches nothing it did (of the same value, or higher)."""
    threw = card_odds(_seen(threw="9C"))
    assert threw[ix("9S")] < threw[ix("TS")]
    assert threw[ix("8C")] < threw[ix("8S")]
    assert threw[ix("TC")] < threw[ix("TH")]
    passed = card_odds(_seen(passed="5C"))
    assert passed[ix("5S")] < passed[ix("6S")]
    assert passed[ix("4C")] < passed[ix("4S")]


def test_the_deal_follows_the_odds() -> None:
    """Ten cards with overwhelming odds are the opponent's unknown hand nearly every
    time; with equal odds, about as often as any other ten."""
    seen = _seen()
    favourites = [ix(t) for t in ["2C", "3C", "4C", "5H", "6H", "7H", "8S", "9S", "TS", "JS"]]
    heavy = {i: (1e6 if i in favourites else 1.0) for i in card_features(seen)}
    even = dict.fromkeys(card_features(seen), 1.0)
    rng = random.Random(7)
    fav = sum(1 << i for i in favourites)
    dealt_heavy = dealt_even = 0
    for _ in range(200):
        w = sample_world(seen, rng, shaping=False, odds=heavy)
        assert w is not None
        dealt_heavy += (w.hands[1] & fav).bit_count()
        w = sample_world(seen, rng, shaping=False, odds=even)
        assert w is not None
        dealt_even += (w.hands[1] & fav).bit_count()
    assert dealt_heavy >= 0.99 * 2000
    # 10 of the 42 unseen cards: about 10 x 10/42 of them each time
    assert 0.15 * 2000 < dealt_even < 0.33 * 2000
