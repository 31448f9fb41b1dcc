"""The meld solver against docs/rules.md "Melds and deadwood" and
docs/rules.md "Laying out and laying off".

Hand-worked examples carry their arithmetic; property tests compare the solver
with the brute-force references below, which try every meld of every size
(runs of any length, sets of 3 and 4) with no tables and no shortcuts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from itertools import combinations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hollywood_gin.engine.cards import CARDS, Card, cards_of, mask_of, parse_cards
from hollywood_gin.engine.errors import BadAction, BadCard
from hollywood_gin.engine.layoffs import LayOff, defender_deadwood, lay_off
from hollywood_gin.engine.melds import (
    arrange,
    arrange_mask,
    best_discards,
    deadwood,
    deadwood_mask,
    discard_deadwoods,
    discard_deadwoods_mask,
    discard_least,
    is_meld,
)


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


# ---------------------------------------------------------------- references


def reference_is_meld(group: Sequence[Card]) -> bool:
    """docs/rules.md "Melds and deadwood" read literally: 3-4 of a rank, or 3+ of a suit
    in sequence, ace low."""
    if len(group) < 3 or len(set(group)) != len(group):
        return False
    if all(c.rank == group[0].rank for c in group):
        return len(group) <= 4
    if any(c.suit != group[0].suit for c in group):
        return False
    ranks = sorted(c.rank for c in group)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def reference_solver(hand: Iterable[Card]) -> Callable[[frozenset[Card]], int]:
    """Least deadwood of any part of `hand`, by exhaustive search: the lowest card is
    deadwood or in one of the hand's melds (every size, found by trying every subset)."""
    held = frozenset(hand)
    melds = [
        frozenset(g)
        for k in range(3, len(held) + 1)
        for g in combinations(sorted(held), k)
        if reference_is_meld(g)
    ]

    @cache
    def least(rest: frozenset[Card]) -> int:
        if not rest:
            return 0
        low = min(rest)
        options = [low.value + least(rest - {low})]
        options += [least(rest - m) for m in melds if low in m and m <= rest]
        return min(options)

    return least


def reference_deadwood(hand: Iterable[Card]) -> int:
    held = frozenset(hand)
    return reference_solver(held)(held)


def reference_best_discards(hand: Sequence[Card]) -> list[tuple[Card, int]]:
    least = reference_solver(hand)
    after = {c: least(frozenset(hand) - {c}) for c in hand}
    best = min(after.values())
    return sorted((c, v) for c, v in after.items() if v == best)


def reference_layoff_sets(knocker: list[list[Card]], defender: list[Card]) -> set[frozenset[Card]]:
    """Every set of defender cards that can be laid off, found by adding one card at a
    time in every possible way: a fourth card to a set of three, or a card that
    keeps a run a run (so a card laid off can itself be extended)."""
    found: set[frozenset[Card]] = set()
    seen: set[tuple[frozenset[Card], ...]] = set()

    def grow(melds: tuple[frozenset[Card], ...]) -> None:
        if melds in seen:
            return
        seen.add(melds)
        laid = frozenset().union(*melds) - knocked
        found.add(laid)
        for card in set(defender) - laid:
            for i, meld in enumerate(melds):
                is_set = len({c.rank for c in meld}) == 1
                if (len(meld) == 3 or not is_set) and reference_is_meld([*meld, card]):
                    grow((*melds[:i], meld | {card}, *melds[i + 1 :]))

    knocked = frozenset(c for m in knocker for c in m)
    grow(tuple(frozenset(m) for m in knocker))
    return found


def reference_defender_deadwood(knocker: list[list[Card]], defender: list[Card]) -> int:
    """Least deadwood over every set of cards that can be laid off."""
    least = reference_solver(defender)
    held = frozenset(defender)
    return min(least(held - laid) for laid in reference_layoff_sets(knocker, defender))


# ---------------------------------------------------------------- strategies


def random_hand(size: int) -> st.SearchStrategy[list[Card]]:
    return st.permutations(CARDS).map(lambda deck: list(deck[:size]))


@st.composite
def dense_hand(draw: st.DrawFn, size: int) -> list[Card]:
    """3-5 adjacent ranks x 3-4 suits: sets and runs overlap heavily."""
    width = draw(st.integers(3, 5))
    low = draw(st.integers(0, 13 - width))
    suits = draw(st.sets(st.integers(0, 3), min_size=3, max_size=4))
    pool = [CARDS[s * 13 + r] for r in range(low, low + width) for s in sorted(suits)]
    if len(pool) < size:
        pool += [c for c in CARDS if c not in pool][: size - len(pool)]
    return list(draw(st.permutations(pool))[:size])


def hand(size: int) -> st.SearchStrategy[list[Card]]:
    return st.one_of(random_hand(size), dense_hand(size))


@st.composite
def set_hand(draw: st.DrawFn, size: int) -> list[Card]:
    """One or two ranks held in three or four suits, the rest at random: every way
    the solver groups its choices of sets (a rank in four suits splits four ways)."""
    ranks = draw(st.lists(st.integers(0, 12), min_size=1, max_size=2, unique=True))
    pool: list[Card] = []
    for r in ranks:
        suits = draw(st.sets(st.integers(0, 3), min_size=3, max_size=4))
        pool += [CARDS[s * 13 + r] for s in sorted(suits)]
    # mostly cards within two ranks of a set rank: runs through the set's cards
    near = [c for c in CARDS if c not in pool and any(abs(c.rank - 1 - r) <= 2 for r in ranks)]
    far = [c for c in CARDS if c not in pool and c not in near]
    rest = draw(st.permutations(near)) + draw(st.permutations(far))
    return list(draw(st.permutations(pool + rest[: max(0, size - len(pool))])))


@st.composite
def knock_and_defence(draw: st.DrawFn) -> tuple[list[list[Card]], list[Card]]:
    """1-3 disjoint knocker melds, and 5-10 defender cards, many of them near the melds."""
    used: set[Card] = set()
    melds: list[list[Card]] = []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            suit = draw(st.integers(0, 3))
            length = draw(st.integers(3, 5))
            start = draw(st.integers(0, 13 - length))
            meld = [CARDS[suit * 13 + r] for r in range(start, start + length)]
        else:
            rank = draw(st.integers(0, 12))
            suits = draw(st.sets(st.integers(0, 3), min_size=3, max_size=4))
            meld = [CARDS[s * 13 + rank] for s in sorted(suits)]
        if not used & set(meld):
            used |= set(meld)
            melds.append(meld)
    around = {
        CARDS[c.index // 13 * 13 + r]
        for m in melds
        for c in m
        for r in range(max(0, c.rank - 4), min(13, c.rank + 3))
    }
    # cards of a set's rank, and of the ranks just past each end of a run in
    # every suit: the defender's own sets then compete with lay-offs
    same_rank = {
        CARDS[s * 13 + r]
        for m in melds
        for c in (min(m), max(m))
        for r in {c.rank - 2, c.rank - 1, c.rank}
        if 0 <= r < 13
        for s in range(4)
    }
    near = sorted((around | same_rank) - used)
    size = draw(st.integers(5, 10))
    picked = draw(
        st.lists(st.sampled_from(near), min_size=min(3, len(near)), max_size=size, unique=True)
    )
    rest = [c for c in CARDS if c not in used and c not in picked]
    picked += list(draw(st.permutations(rest))[: size - len(picked)])
    return melds, picked


@st.composite
def own_meld_against_layoff(draw: st.DrawFn) -> tuple[list[list[Card]], list[Card]]:
    """A knocker run, and a defender whose own set or run holds the card that would
    extend it: keeping the own meld and breaking it to lay off both compete."""
    suit = draw(st.integers(0, 3))
    length = draw(st.integers(3, 4))
    start = draw(st.integers(1, 12 - length))
    run = [CARDS[suit * 13 + r] for r in range(start, start + length)]
    end = draw(st.sampled_from([start - 1, start + length]))  # rank index just past an end
    step = -1 if end < start else 1
    suits = draw(st.sets(st.integers(0, 3), min_size=2, max_size=3)) | {suit}
    defender = {CARDS[s * 13 + end] for s in suits}
    if draw(st.booleans()):  # the next card along, so a chain is possible
        beyond = end + step
        if 0 <= beyond < 13:
            defender.add(CARDS[suit * 13 + beyond])
    if draw(st.booleans()):  # or an own run through the extending card
        defender |= {CARDS[suit * 13 + end + k * step] for k in (1, 2) if 0 <= end + k * step < 13}
    knocker = [run]
    other = draw(st.integers(0, 12))
    other_set = [
        CARDS[s * 13 + other] for s in range(4) if CARDS[s * 13 + other] not in defender | set(run)
    ]
    if len(other_set) >= 3 and draw(st.booleans()):
        knocker.append(other_set[:3])
    used = {c for m in knocker for c in m}
    rest = [c for c in CARDS if c not in used and c not in defender]
    filler = draw(st.permutations(rest))[: max(0, 10 - len(defender))]
    return knocker, sorted(defender | set(filler))


# ---------------------------------------------------------------- is_meld


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7C 7D 7H", True),
        ("7C 7D 7H 7S", True),
        ("AH 2H 3H", True),  # ace low
        ("3H AH 2H", True),  # order does not matter
        ("9S TS JS QS KS", True),
        ("AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD", True),
        ("QH KH AH", False),  # the ace is never high
        ("KD AD 2D", False),  # no wrapping round
        ("7C 7D", False),  # too short
        ("AH 2H", False),
        ("5H 6H 8H", False),  # a gap
        ("5H 6H 7S", False),  # two suits
    ],
)
def test_is_meld(text: str, expected: bool) -> None:
    assert is_meld(cards(text)) is expected
    assert reference_is_meld(cards(text)) is expected


def test_the_same_card_twice_is_not_a_meld() -> None:
    seven = Card.parse("7C")
    assert not is_meld([seven, seven, Card.parse("7D")])


# ---------------------------------------------------------------- deadwood, arrange


def test_a_card_fits_a_set_or_a_run_and_the_run_is_better() -> None:
    hand = cards("7H 7S 7D 8H 9H KS QC 2C 3D 5S")
    # set 7H 7S 7D leaves 8H 9H: 8+9 = 17; run 7H 8H 9H leaves 7S 7D: 7+7 = 14;
    # the rest KS QC 2C 3D 5S is 10+10+2+3+5 = 30 either way: 30+14 = 44
    assert deadwood(hand) == 44
    melds, dead = arrange(hand)
    assert melds == [cards("7H 8H 9H")]
    assert dead == cards("2C 3D 5S 7D 7S QC KS")


def test_a_set_of_four_is_split_to_free_a_card_for_a_run() -> None:
    hand = cards("7C 7D 7H 7S 8H 9H KS QS 2C 4D")
    # 7C 7D 7S + 7H 8H 9H melds all six; KS QS 2C 4D: 10+10+2+4 = 26
    # (the set of four would leave 8H 9H: 26+17 = 43)
    assert deadwood(hand) == 26
    melds, dead = arrange(hand)
    assert melds == [cards("7C 7D 7S"), cards("7H 8H 9H")]
    assert dead == cards("2C 4D QS KS")


def test_ace_two_three_is_a_run() -> None:
    hand = cards("AH 2H 3H 5C 6C 7C 9S TS JS KD")
    # three runs, KD left: 10
    assert deadwood(hand) == 10
    assert arrange(hand) == (
        [cards("AH 2H 3H"), cards("5C 6C 7C"), cards("9S TS JS")],
        cards("KD"),
    )


def test_queen_king_ace_and_king_ace_two_are_not_runs() -> None:
    hand = cards("QH KH AH KD AD 2D 4C 6S 8C 9D")
    # no meld: 10+10+1 + 10+1+2 + 4+6+8+9 = 61
    assert deadwood(hand) == 61
    assert arrange(hand)[0] == []


def test_all_deadwood() -> None:
    hand = cards("AC 3D 5H 7S 9C JD KH 2S 4C 6D")
    # ten ranks, no two adjacent in one suit: 1+3+5+7+9+10+10+2+4+6 = 57
    assert deadwood(hand) == 57
    melds, dead = arrange(hand)
    assert melds == []
    assert sorted(dead) == sorted(hand)


def test_gin() -> None:
    hand = cards("AS 2S 3S 4S 5D 5H 5C JC QC KC")
    assert deadwood(hand) == 0
    assert arrange(hand) == (
        [cards("AS 2S 3S 4S"), cards("5C 5D 5H"), cards("JC QC KC")],
        [],
    )


def test_a_long_run_is_shown_as_one_run() -> None:
    hand = cards("2D 3D 4D 5D 6D 7D 8D 9D KC KH")
    # 2D..9D is one run of eight; KC KH: 20
    assert deadwood(hand) == 20
    assert arrange(hand) == ([cards("2D 3D 4D 5D 6D 7D 8D 9D")], cards("KC KH"))


def test_the_hand_may_be_any_iterable_and_repeats_are_refused() -> None:
    assert deadwood(iter(cards("AH 2H 3H KS"))) == 10
    assert deadwood([]) == 0
    with pytest.raises(BadCard):
        deadwood(cards("AH 2H") + cards("AH"))
    with pytest.raises(BadCard):
        arrange(cards("AH 2H") + cards("AH"))


# ---------------------------------------------------------------- discards


def test_two_equal_best_discards() -> None:
    hand = cards("AS 2S 3S 5D 5H 5C JC QC KC 9H 9D")
    # three melds; discarding 9H leaves 9D (9), discarding 9D leaves 9H (9);
    # any meld card breaks a meld: e.g. without 5D, 5H 5C 9H 9D = 5+5+9+9 = 28
    assert best_discards(hand) == [(Card.parse("9D"), 9), (Card.parse("9H"), 9)]
    after = discard_deadwoods(hand)
    assert after[Card.parse("9H")] == after[Card.parse("9D")] == 9
    assert after[Card.parse("5D")] == 28
    # without AS: 2S 3S 9H 9D = 2+3+9+9 = 23
    assert after[Card.parse("AS")] == 23
    assert len(after) == 11


def test_a_discard_can_go_gin() -> None:
    hand = cards("AS 2S 3S 4S 5D 5H 5C JC QC KC 8H")
    assert best_discards(hand) == [(Card.parse("8H"), 0)]
    # dropping an end of the four-card run keeps a run of three, 8H left: 8
    assert discard_deadwoods(hand)[Card.parse("AS")] == 8
    assert discard_deadwoods(hand)[Card.parse("4S")] == 8


def test_discarding_frees_a_set_of_four_for_a_run() -> None:
    hand = cards("7C 7D 7H 7S 8H 9H KS QS 2C 4D JD")
    # best: keep 7C 7D 7S + 7H 8H 9H, discard a ten-point card: KS QS 2C 4D JD
    # minus one of KS QS JD: 2+4+10+10 = 26
    assert best_discards(hand) == [(c, 26) for c in cards("JD QS KS")]


# ---------------------------------------------------------------- lay-offs


def test_lay_off_the_fourth_card_of_a_set() -> None:
    knocker = [cards("7C 7D 7H")]
    defender = cards("7S KD QS 2C 3H 5D 9S JH 4C 8D")
    # no own meld: 7+10+10+2+3+5+9+10+4+8 = 68; laying off 7S: 68-7 = 61
    result = lay_off(knocker, defender)
    assert result.deadwood_value == 61
    assert result.layoffs == [(Card.parse("7S"), 0)]
    assert result.melds == []
    assert defender_deadwood(knocker, defender) == 61


def test_nothing_lays_off_on_a_set_of_four() -> None:
    assert lay_off([cards("7C 7D 7H 7S")], cards("6S 8S KD")).layoffs == []


def test_lay_off_at_both_ends_of_a_run() -> None:
    knocker = [cards("5H 6H 7H")]
    defender = cards("4H 8H KD QS 2C 3D 9S JC TD AD")
    # no own meld: 4+8+10+10+2+3+9+10+10+1 = 67; 4H and 8H go on the run: 67-12 = 55
    result = lay_off(knocker, defender)
    assert result.deadwood_value == 55
    assert sorted(result.layoffs) == [(Card.parse("4H"), 0), (Card.parse("8H"), 0)]


def test_lay_off_a_chain_onto_a_run() -> None:
    knocker = [cards("6H 7H 8H"), cards("KC KD KS")]
    defender = cards("9H TH 2C 3D 5S KH QD AS 4C JD")
    # no own meld: 9+10+2+3+5+10+10+1+4+10 = 64; 9H then TH onto the run (chain),
    # KH onto the kings: 64-9-10-10 = 35
    result = lay_off(knocker, defender)
    assert result.deadwood_value == 35
    assert result.layoffs == [
        (Card.parse("9H"), 0),
        (Card.parse("TH"), 0),
        (Card.parse("KH"), 1),
    ]


def test_a_chain_needs_its_first_link() -> None:
    # TH alone does not touch 6H-7H-8H
    assert lay_off([cards("6H 7H 8H")], cards("TH 2C")).deadwood_value == 12


def test_breaking_an_own_set_to_lay_off_is_better() -> None:
    knocker = [cards("6H 7H 8H"), cards("6S 7S 8S")]
    defender = cards("9H 9S 9D TH 2C 3C 4D KC QD AS")
    # filler 2C 3C 4D KC QD AS: 2+3+4+10+10+1 = 30.
    # keep the set 9H 9S 9D: TH left, 30+10 = 40;
    # break it: 9H then TH onto hearts, 9S onto spades, 9D left: 30+9 = 39
    result = lay_off(knocker, defender)
    assert result.deadwood_value == 39
    assert sorted(result.layoffs) == sorted(
        [(Card.parse("9H"), 0), (Card.parse("TH"), 0), (Card.parse("9S"), 1)]
    )
    assert result.melds == []
    assert sorted(result.deadwood) == sorted(cards("2C 3C 4D KC QD AS 9D"))


def test_a_set_of_four_splits_to_lay_off() -> None:
    knocker = [cards("6H 7H 8H")]
    defender = cards("9C 9D 9H 9S TH")
    # the four 9s leave TH: 10; 9C 9D 9S stay a set, 9H then TH go on the run: 0
    result = lay_off(knocker, defender)
    assert result.deadwood_value == 0
    assert result.melds == [cards("9C 9D 9S")]
    assert result.layoffs == [(Card.parse("9H"), 0), (Card.parse("TH"), 0)]


def test_keeping_an_own_set_is_better() -> None:
    knocker = [cards("6H 7H 8H")]
    defender = cards("9H 9S 9D TH 2C 3C 4D KC QD AS")
    # keep 9H 9S 9D: TH left, 30+10 = 40; laying off 9H and TH leaves 9S 9D: 30+18 = 48
    result = lay_off(knocker, defender)
    assert result.deadwood_value == 40
    assert result.layoffs == []
    assert result.melds == [cards("9D 9H 9S")]


def test_lay_off_refuses_bad_input() -> None:
    with pytest.raises(BadAction):
        lay_off([cards("6H 7H 9H")], cards("2C"))
    with pytest.raises(BadAction):
        lay_off([cards("6H 7H 8H"), cards("8H 8C 8D")], cards("2C"))
    with pytest.raises(BadAction):
        lay_off([cards("6H 7H 8H")], cards("8H 2C"))
    with pytest.raises(BadCard):
        lay_off([cards("6H 7H 8H")], cards("2C") + cards("2C"))


# ---------------------------------------------------------------- properties


@settings(max_examples=250, deadline=None)
@given(st.one_of(hand(10), hand(11)))
def test_deadwood_is_the_exact_minimum(held: list[Card]) -> None:
    assert deadwood(held) == reference_deadwood(held)


@settings(max_examples=250, deadline=None)
@given(st.one_of(hand(10), hand(11)))
def test_arrange_is_valid_and_least(held: list[Card]) -> None:
    melds, dead = arrange(held)
    assert all(reference_is_meld(m) for m in melds)
    laid_out = [c for m in melds for c in m] + dead
    assert sorted(laid_out) == sorted(held)  # disjoint, and every card is shown once
    assert sum(c.value for c in dead) == deadwood(held)
    for m in melds:
        ranks = [c.rank for c in m]
        assert ranks == sorted(ranks)
    assert arrange(list(reversed(held))) == (melds, dead)  # deterministic


@settings(max_examples=200, deadline=None)
@given(hand(11))
def test_discards_match_the_reference(held: list[Card]) -> None:
    expected = reference_best_discards(held)
    assert best_discards(held) == expected
    after = discard_deadwoods(held)
    assert set(after) == set(held)
    least = expected[0][1]
    assert {c for c, v in after.items() if v == least} == {c for c, _ in expected}
    assert all(v >= least for v in after.values())


@settings(max_examples=100, deadline=None)
@given(hand(11), st.integers(0, 10))
def test_each_discard_deadwood_is_exact(held: list[Card], which: int) -> None:
    card = held[which]
    assert discard_deadwoods(held)[card] == reference_deadwood([c for c in held if c != card])


def _check_layoff(knocker: list[list[Card]], defender: list[Card], result: LayOff) -> None:
    """The result is a legal play: own melds, lay-offs applicable in order, deadwood."""
    grown = [list(m) for m in knocker]
    for card, i in result.layoffs:
        meld = grown[i]
        assert len({c.rank for c in meld}) > 1 or len(meld) == 3, "a set of four takes no more"
        assert reference_is_meld([*meld, card])
        meld.append(card)
    assert all(reference_is_meld(m) for m in result.melds)
    shown = [c for m in result.melds for c in m] + result.deadwood + [c for c, _ in result.layoffs]
    assert sorted(shown) == sorted(defender)
    assert result.deadwood_value == sum(c.value for c in result.deadwood)


@settings(max_examples=200, deadline=None)
@given(st.one_of(knock_and_defence(), own_meld_against_layoff()))
def test_lay_off_is_legal_and_optimal(case: tuple[list[list[Card]], list[Card]]) -> None:
    knocker, defender = case
    result = lay_off(knocker, defender)
    _check_layoff(knocker, defender, result)
    assert result.deadwood_value == reference_defender_deadwood(knocker, defender)
    assert defender_deadwood(knocker, defender) == result.deadwood_value
    assert result.deadwood_value <= deadwood(defender)


@settings(max_examples=150, deadline=None)
@given(st.one_of(hand(10), hand(11)))
def test_the_mask_forms_agree(held: list[Card]) -> None:
    mask = mask_of(held)
    assert deadwood_mask(mask) == deadwood(held)
    value, meld_masks, dead = arrange_mask(mask)
    assert value == deadwood(held) == sum(c.value for c in cards_of(dead))
    assert sorted(sorted(cards_of(m)) for m in meld_masks) == sorted(
        sorted(m) for m in arrange(held)[0]
    )
    assert discard_deadwoods_mask(mask) == [
        (c.index, v) for c, v in sorted(discard_deadwoods(held).items())
    ]
    if len(held) == 11:
        left = discard_deadwoods(held)
        least = min(left.values())
        assert best_discards(held) == sorted((c, v) for c, v in left.items() if v == least)


@settings(max_examples=150, deadline=None)
@given(st.one_of(set_hand(9), set_hand(10), set_hand(11), set_hand(12), hand(11)))
# Four fives; the best play after throwing the king of spades is the set of three
# without 5H and the run 4H 5H 6H: 9+10+2+8 = 29 (the set of four leaves 39).
@example(cards("5C 5D 5H 5S 4H 6H KS 9C JD 2S 8D"))
@example(cards("5C 5D 5H 5S 4C 6C KH 9S JD 2H 8D"))
def test_every_discard_is_exact(held: list[Card]) -> None:
    """Each discard's deadwood against the reference, from both mask forms."""
    least = reference_solver(held)
    mask = mask_of(held)
    expected = [(c.index, least(frozenset(held) - {c})) for c in sorted(held)]
    assert discard_deadwoods_mask(mask) == expected
    by_index = discard_least(mask)
    assert [(i, by_index[i]) for i, _ in expected] == expected
    assert deadwood(held) == deadwood_mask(mask) == least(frozenset(held))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 13).flatmap(lambda n: st.one_of(random_hand(n), dense_hand(n))))
def test_deadwood_of_any_size_in_any_container(held: list[Card]) -> None:
    """Ten cards in a list take a shortcut; every other size and container the loop."""
    expected = reference_deadwood(held)
    assert deadwood(held) == deadwood(tuple(held)) == deadwood(iter(held)) == expected
    assert deadwood(set(held)) == deadwood_mask(mask_of(held)) == expected


def test_a_repeated_card_is_refused_in_a_hand_of_ten_or_eleven() -> None:
    ten = cards("AH 2H 3H 4C 5C 6D 7D 8S 9S") + cards("AH")
    with pytest.raises(BadCard):
        deadwood(ten)
    with pytest.raises(BadCard):
        deadwood(tuple(ten))
    with pytest.raises(BadCard):
        best_discards([*ten, CARDS[51]])


def test_a_set_of_four_is_one_meld() -> None:
    hand = cards("9C 9D 9H 9S 2C 4D 6H 8S KC QD")
    # the 9s; the rest is 2+4+6+8+10+10 = 40
    assert deadwood(hand) == 40
    assert arrange(hand)[0] == [cards("9C 9D 9H 9S")]


_SUBSETS = [[s for k, s in enumerate("CDHS") if bits >> k & 1] for bits in range(16)]


@pytest.mark.parametrize("tens", _SUBSETS, ids="".join)
@pytest.mark.parametrize("sixes", _SUBSETS, ids="".join)
def test_every_way_two_ranks_are_held_across_suits(sixes: list[str], tens: list[str]) -> None:
    """Each rank may be held in any of the 16 subsets of suits; the solver finds the
    ranks held in three or four suits from the suits taken in pairs (clubs with
    diamonds, hearts with spades), so every pairing of two ranks' subsets is tried,
    with runs through the sixes and tens competing for their cards."""
    held = [Card.of(6, s) for s in sixes] + [Card.of(10, s) for s in tens]
    for card in cards("5C 7C 9H JH KD 2S 3H QC AD 4S"):
        if len(held) < 10 and card not in held:
            held.append(card)
    expected = reference_deadwood(held)
    assert deadwood(held) == deadwood_mask(mask_of(held)) == expected
    assert deadwood(held[::-1]) == deadwood(tuple(held)) == expected
    with pytest.raises(BadCard):  # ten cards with one twice: the sum carries
        deadwood([*held[:9], held[0]])
