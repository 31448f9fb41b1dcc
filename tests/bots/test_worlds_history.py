"""`Budget.history`: the drawn (hand, style) pair is checked against every earlier
plain discard of the opponent, not only its last (`worlds.knocked_before`)."""

from __future__ import annotations

import random

from hollywood_gin.bots import Bot, Budget
from hollywood_gin.bots.knowledge import THREW, TOOK, Seen
from hollywood_gin.bots.worlds import knocked_before, sample_opponent
from hollywood_gin.engine.cards import Card, parse_cards
from hollywood_gin.engine.melds import deadwood_mask


def bits(text: str) -> int:
    mask = 0
    for c in parse_cards(text.split()):
        mask |= c.bit
    return mask


def ix(text: str) -> int:
    return Card.parse(text).index


# The opponent held AC 2C 3C 4H 5H 6H 7S 8S 9S KD (deadwood 10) and threw QD: an
# eager player would have knocked there. It then took KS from the pile and threw 7S,
# so it holds NOW (deadwood 37, which no style would knock with).
NOW = bits("AC 2C 3C 4H 5H 6H 8S 9S KD KS")
LOG = ((THREW, ix("QD"), 30), (TOOK, ix("KS"), 30), (THREW, ix("7S"), 30))
MINE = bits("AD 2D 3D 4D 5D 6D 7D 8D 9D TD")


def _seen(log: tuple[tuple[int, int, int], ...], opp_has: int) -> Seen:
    """My view before my draw: the opponent's cards all known (opp_has), so every
    world deals it NOW exactly; 30 cards in the stock."""
    pile = (ix("QD"), ix("7S"))
    return Seen(
        me=0,
        hand=MINE,
        pile=pile,
        dead=bits("QD 7S"),
        pile_count=2,
        opp_has=opp_has,
        opp_threw=bits("QD 7S"),
        opp_count=10,
        stock_count=30,
        knock_limit=10,
        wall=True,
        phase="draw",
        dealer=1,
        turn=0,
        opp_discards=2,
        opp_log=log,
    )


def _theirs() -> Seen:
    """The opponent's own view then (what `knocks` is asked with)."""
    return Seen(
        me=1,
        hand=NOW,
        pile=(),
        dead=0,
        pile_count=2,
        opp_has=0,
        opp_threw=0,
        opp_count=10,
        stock_count=30,
        knock_limit=10,
        wall=True,
        phase="discard",
        dealer=1,
        turn=1,
    )


def test_an_earlier_hand_it_would_have_knocked_with_rules_its_style_out() -> None:
    assert deadwood_mask(NOW) > 10  # its last discard alone says nothing
    w = Bot().weights
    seen = _seen(LOG, NOW)
    rng = random.Random(1)
    # taken back: 7S into the hand, KS (from the pile) out: deadwood 10 before QD went
    assert knocked_before(seen, NOW, _theirs(), "eager", w, rng)
    # a gin hunter does not knock with 10 while 28 stock draws are left, nor normal
    assert not knocked_before(seen, NOW, _theirs(), "gin", w, rng)
    assert not knocked_before(seen, NOW, _theirs(), "normal", w, rng)


def test_a_log_that_does_not_add_up_says_nothing() -> None:
    w = Bot().weights
    rng = random.Random(1)
    # a take with no discard after it (a view missed)
    broken = (*LOG, (TOOK, ix("JH"), 29))
    assert not knocked_before(_seen(broken, NOW), NOW, _theirs(), "eager", w, rng)
    # its last discard a card it still holds
    held = (*LOG[:-1], (THREW, ix("KD"), 30))
    assert not knocked_before(_seen(held, NOW), NOW, _theirs(), "eager", w, rng)


def test_with_history_the_sampler_never_draws_the_style_the_log_rules_out() -> None:
    seen = _seen(LOG, NOW)
    w = Bot().weights
    both = (("eager", 0.5), ("gin", 0.5))
    styles = {
        history: {
            drawn[1]
            for k in range(30)
            if (
                drawn := sample_opponent(
                    seen, random.Random(k), Budget(styles=both, history=history), w
                )
            )
        }
        for history in (False, True)
    }
    assert styles[False] == {"eager", "gin"}  # the last discard alone allows both
    assert styles[True] == {"gin"}
