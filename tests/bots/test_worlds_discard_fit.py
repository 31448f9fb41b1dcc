"""`Budget.discard_fit`: in a world whose opponent knocks as soon as it may, its
hand must be one with which its last plain discard left the least deadwood
(`worlds.threw_least`)."""

from __future__ import annotations

import random

from hollywood_gin.bots import Budget
from hollywood_gin.bots.knowledge import THREW, TOOK, Seen
from hollywood_gin.bots.policy import WEIGHTS
from hollywood_gin.bots.worlds import sample_opponent, threw_least
from tests.bots.test_worlds_history import bits, ix

MINE = bits("AD 2D 3D 4D 5D 6D 7D 8D 9D TD")


def _seen(log: tuple[tuple[int, int, int], ...], opp_has: int = 0) -> Seen:
    """Before my draw; the opponent threw the 8C last (on the pile's top)."""
    return Seen(
        me=0,
        hand=MINE,
        pile=(ix("8C"),),
        dead=bits("8C"),
        pile_count=1,
        opp_has=opp_has,
        opp_threw=bits("8C"),
        opp_count=10,
        stock_count=31,
        knock_limit=10,
        wall=True,
        phase="draw",
        dealer=1,
        turn=0,
        opp_discards=1,
        opp_log=log,
    )


def test_a_higher_loose_card_kept_does_not_fit_a_least_deadwood_thrower() -> None:
    log = ((THREW, ix("8C"), 31),)
    # AS 2S 3S, 4H 4S 4C melded; KH 2H 3C 5C loose: keeping the KH and throwing the
    # 8C left more deadwood than keeping the 8C and throwing the KH
    assert not threw_least(_seen(log), bits("AS 2S 3S 4H 4S 4C KH 2H 3C 5C"))
    # every loose card kept is lower than the 8C: throwing it was the least
    assert threw_least(_seen(log), bits("AS 2S 3S 4H 4S 4C 2H 3C 5C 6H"))
    # with the 6C and the 7C the 8C made a run: throwing it left more than the KS
    assert not threw_least(_seen(log), bits("AS 2S 3S 4H 4S 4C 6C 7C 5H KS"))


def test_a_card_just_taken_could_not_be_thrown() -> None:
    # it took the KH from the pile and threw the 8C: the KH, though higher, was not
    # a choice, so 8C was its least-deadwood discard among the cards it could throw
    hand = bits("AS 2S 3S 4H 4S 4C KH 2H 3C 5C")
    took = ((TOOK, ix("KH"), 31), (THREW, ix("8C"), 31))
    assert threw_least(_seen(took, bits("KH")), hand)
    assert threw_least(_seen(()), hand)  # nothing logged: nothing to check


def test_with_no_fit_allowed_every_eager_world_fits_and_off_changes_nothing() -> None:
    seen = _seen(((THREW, ix("8C"), 31),))
    eager = Budget(styles=(("eager", 1.0),), discard_fit=0.0)
    fitted = unfit = 0
    for seed in range(60):
        drawn = sample_opponent(seen, random.Random(seed), eager, WEIGHTS, tries=200)
        assert drawn is not None
        fitted += threw_least(seen, drawn[0].hands[1])
        off = sample_opponent(seen, random.Random(seed), Budget(styles=(("eager", 1.0),)), WEIGHTS)
        assert off is not None
        unfit += not threw_least(seen, off[0].hands[1])
    assert fitted == 60
    assert unfit >= 10  # without the check, many dealt hands do not fit


def _eager_share(budget: Budget, seen: Seen, draws: int) -> float:
    eager = 0
    for seed in range(draws):
        drawn = sample_opponent(seen, random.Random(seed), budget, WEIGHTS, tries=200)
        assert drawn is not None
        eager += drawn[1] == "eager"
    return eager / draws


def test_the_check_moves_the_hands_not_the_styles() -> None:
    """The style is drawn as without the check (its prior times "it did not knock");
    only the eager worlds' hands are dealt again until they fit the discard. Were the
    style drawn again too, eager would fade from the worlds (each unfit eager hand
    would give another style its chance)."""
    seen = _seen(((THREW, ix("8C"), 31),))
    styles = (("eager", 0.5), ("normal", 0.5))
    off = _eager_share(Budget(styles=styles), seen, 300)
    on = _eager_share(Budget(styles=styles, discard_fit=0.0), seen, 300)
    assert abs(on - off) < 0.08
