"""`engine/own.py`: a seat's own part of its view, worked out on masks and indexes,
equals the straightforward computation from `Card` lists (the solver's `arrange`
and `deadwood`, and `Hand.grouping`'s and `Hand.legal`'s rules as written in them),
for random hands, orders and banned cards; and `Hand` keeps it only while the
cards, their order and the banned card stay."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from hollywood_gin.engine import Match, Options
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import CARDS, Card, cards_of, mask_of, parse_cards
from hollywood_gin.engine.melds import arrange, deadwood, deadwood_mask, discard_least
from hollywood_gin.engine.own import grouping_of, own_cards
from tests.engine.helpers import act, deck_order, new_match
from tests.wire import wire


def cards_in(ranks: list[int]) -> list[Card]:
    return [c for c in CARDS if c.rank in ranks]


# Any cards, or cards from a few neighbouring ranks (many sets, runs, sets of four
# and ties between discards, which random hands of 52 rarely hold).
def hands(size: int) -> st.SearchStrategy[list[Card]]:
    anywhere = st.permutations(list(CARDS)).map(lambda cs: cs[:size])
    crowded = st.integers(1, 9).flatmap(
        lambda low: st.permutations(cards_in(list(range(low, low + 5)))).map(lambda cs: cs[:size])
    )
    return st.one_of(anywhere, crowded)


def straightforward(
    held: list[Card], taken: Card | None, limit: int
) -> tuple[list[list[str]], int, list[Action], list[int]]:
    """The grouping, `legal`'s play actions and each knock's deadwood, from Card lists:
    holding eleven, each discard's deadwood by a solve of the ten left, the best
    allowed discard the first in the seat's order of the least (deadwood, -value)."""
    kept = list(held)
    actions: list[Action] = []
    knock_deadwood: list[int] = []
    if len(held) == 11:
        allowed = [c for c in held if c != taken]
        left = {c: deadwood([x for x in held if x != c]) for c in allowed}
        best = min(allowed, key=lambda c: (left[c], -c.value))
        kept.remove(best)
        actions = [Action.of("discard", c) for c in allowed]
        for c in allowed:
            if left[c] <= limit:
                actions.append(Action.of("knock", c))
                knock_deadwood.append(left[c])
    melds, dead = arrange(kept)
    return [[c.text for c in m] for m in melds], sum(c.value for c in dead), actions, knock_deadwood


@given(
    held=st.one_of(hands(10), hands(11)),
    ban=st.integers(-1, 10),
    limit=st.sampled_from([0, 1, 5, 7, 10]),
)
@settings(max_examples=600, deadline=None)
def test_own_cards_is_the_straightforward_computation(
    held: list[Card], ban: int, limit: int
) -> None:
    taken = held[ban] if ban >= 0 and len(held) == 11 else None
    own = own_cards(tuple(held), taken, limit)
    melds, value, actions, knock_deadwood = straightforward(held, taken, limit)
    assert own.texts == tuple(c.text for c in held)
    assert own.grouping == (tuple(tuple(m) for m in melds), value)
    assert [*own.discards, *own.knocks] == actions
    assert list(own.knock_deadwood) == knock_deadwood


@given(held=st.one_of(hands(11), hands(7), hands(12)))
@settings(max_examples=400, deadline=None)
def test_discard_least_is_the_deadwood_of_the_rest(held: list[Card]) -> None:
    mask = mask_of(held)
    least = discard_least(mask)
    for c in held:
        assert least[c.index] == deadwood_mask(mask & ~c.bit)


@given(held=st.one_of(hands(10), hands(4), hands(13)))
@settings(max_examples=400, deadline=None)
def test_grouping_of_a_mask_is_arrange_as_text(held: list[Card]) -> None:
    melds, dead = arrange(held)
    shown, value = grouping_of(mask_of(held))
    assert shown == tuple(tuple(c.text for c in m) for m in melds)
    assert value == sum(c.value for c in dead) == deadwood(held)
    assert cards_of(mask_of(held))  # the mask is the hand


def test_a_tie_between_discards_goes_to_the_first_in_the_seats_order() -> None:
    """Two discards leave the same deadwood and are worth the same: the grouping shown
    is that of the ten kept without whichever the seat holds first, so it follows the
    seat's order of its cards (and a view, its rearrangement)."""
    held = parse_cards(["6C", "8C", "7D", "9D", "7H", "8H", "9H", "TH", "7S", "9S", "TS"])
    least = {c: deadwood([x for x in held if x != c]) for c in held}
    best = min(least.values())
    tied = [c for c in held if least[c] == best]
    assert len({c.value for c in tied}) < len(tied)  # a real tie, value included
    shown = set()
    for order in (held, list(reversed(held))):
        first = min(order, key=lambda c: (least[c], -c.value))
        melds, dead = arrange([c for c in order if c != first])
        own = own_cards(tuple(order), None, 10)
        assert own.grouping == (
            tuple(tuple(c.text for c in m) for m in melds),
            sum(c.value for c in dead),
        )
        shown.add(own.grouping)
    assert len(shown) == 2  # the order decided


def test_the_seat_s_own_part_is_kept_until_its_cards_their_order_or_the_ban_change() -> None:
    m = Match(Options("standard", "hollywood", 100), rng=random.Random(7))
    m.start()
    hand = m.hand
    assert hand is not None
    seat = hand.turn
    assert seat is not None
    kept = hand.own(seat)
    assert hand.own(seat) is kept
    other = hand.own(1 - seat)
    m.apply(seat, Action.of("pass"))
    assert hand.own(1 - seat) is other  # nothing of that seat changed
    order = list(reversed(hand.cards[seat]))
    m.arrange(seat, [c.text for c in order])
    rearranged = hand.own(seat)
    assert rearranged is not kept
    assert rearranged.texts == tuple(c.text for c in order)
    assert m.view(seat).mine is not None
    assert m.view(seat).mine.cards == rearranged.texts  # type: ignore[union-attr]


@given(seed=st.integers(0, 2**32))
@settings(max_examples=12, deadline=None)
def test_every_view_of_a_match_is_the_straightforward_computation(seed: int) -> None:
    """Through whole matches with the end actions open (a seat away now and then,
    resigning now and then, also holding eleven), rearrangements and knocks: each
    seat's `my_cards`, `my_melds`, `my_deadwood`, `legal` and each knock's deadwood
    are what the Card-list computation gives for its cards, order and banned card."""
    rng = random.Random(seed)
    m = Match(Options("standard", "hollywood", 100), rng=random.Random(seed + 1))
    m.endings = True
    m.start()
    for _ in range(300):
        m.presence.absent = [rng.random() < 0.05, rng.random() < 0.05]
        hand = m.hand
        assert hand is not None
        for s in (0, 1):
            view = m.view(s)
            body = wire(view)
            held = list(hand.cards[s])
            taken = hand.taken_from_discard if len(held) == 11 else None
            melds, value, actions, knock_deadwood = straightforward(held, taken, hand.knock_limit)
            assert body["hand"]["my_cards"] == [c.text for c in held]
            assert body["hand"]["my_melds"] == melds
            assert body["hand"]["my_deadwood"] == value
            plays = [a.to_dict() for a in m.legal(s) if a.kind in ("discard", "knock")]
            shown = [a for a in body["legal"] if a["kind"] in ("discard", "knock")]
            if m.status == "playing" and hand.turn == s and hand.phase == "discard":
                assert plays == [a.to_dict() for a in actions]
                assert [a["deadwood"] for a in shown if a["kind"] == "knock"] == knock_deadwood
                assert view.knock_deadwood == tuple(knock_deadwood)
            else:
                assert shown == plays == []
                assert view.knock_deadwood == ()
        if m.status == "match_over":
            break
        seat = next((s for s in (0, 1) if m.legal(s)), None)
        assert seat is not None
        legal = m.legal(seat)
        if rng.random() < 0.1 and len(hand.cards[seat]) > 0:
            order = [c.text for c in hand.cards[seat]]
            rng.shuffle(order)
            m.arrange(seat, order)
            continue
        ends = [a for a in legal if a.kind == "resign"]
        if ends and rng.random() < 0.02:
            m.apply(seat, ends[0])
            continue
        plays = [a for a in legal if a.kind != "resign"] or legal
        m.apply(seat, rng.choice(plays))


def test_a_seat_that_resigns_holding_eleven_is_shown_no_knock() -> None:
    """Resigning while it could knock: the match is over, `legal` is `new_match` and
    no knock's deadwood is left in the view, though its cards still are eleven."""
    deck = deck_order(
        dealer="AC 2C 3C 4C 5C 6C 8C TC QC KC",
        non_dealer="AH 2H 3H 4S 5S 6S 7D 7C 7H 9S",
        upcard="7S",
    )
    m = new_match(dealer=1, deck=deck)
    m.endings = True
    act(m, 0, kind="take_upcard")
    before = m.view(0)
    assert before.knock_deadwood  # it could knock now
    act(m, 0, kind="resign")
    hand = m.hand
    assert hand is not None and len(hand.cards[0]) == 11
    after = m.view(0)
    assert [a.kind for a in after.legal] == ["new_match"]
    assert after.knock_deadwood == ()
    assert after.mine is not None and after.mine.cards == before.mine.cards  # type: ignore[union-attr]


def test_every_suit_pattern_is_grouped_as_arrange_groups_it() -> None:
    """All 8,192 patterns of each suit alone (the runs kept per pattern, built once):
    the melds' text and the deadwood are `arrange`'s."""
    for suit in range(4):
        for pattern in range(1 << 13):
            held = cards_of(pattern << 13 * suit)
            melds, dead = arrange(held)
            assert grouping_of(mask_of(held)) == (
                tuple(tuple(c.text for c in m) for m in melds),
                sum(c.value for c in dead),
            )


@given(
    held=hands(11),
    taken=st.integers(0, 10),
    limit=st.sampled_from([0, 5, 10]),
)
@settings(max_examples=300, deadline=None)
def test_the_card_taken_from_the_pile_is_never_the_best_discard(
    held: list[Card], taken: int, limit: int
) -> None:
    """The banned card is often the one that would be best to discard (here any card
    may be it): the grouping shown is then that of the ten kept after the best of
    the others, as the straightforward computation finds it."""
    own = own_cards(tuple(held), held[taken], limit)
    melds, value, actions, knock_deadwood = straightforward(held, held[taken], limit)
    assert own.ten & held[taken].bit
    assert own.grouping == (tuple(tuple(m) for m in melds), value)
    assert [*own.discards, *own.knocks] == actions
    assert list(own.knock_deadwood) == knock_deadwood


@given(
    deck=st.permutations(list(CARDS)),
    steps=st.lists(st.tuples(st.integers(0, 10), st.booleans(), st.booleans()), max_size=30),
    limit=st.sampled_from([0, 10]),
)
@settings(max_examples=200, deadline=None)
def test_an_own_made_from_the_last_one_is_the_one_made_afresh(
    deck: list[Card], steps: list[tuple[int, bool, bool]], limit: int
) -> None:
    """`own_cards` reuses the last `Own`'s grouping of ten when the ten are the same:
    through any sequence of draws (with or without a banned card), discards (the
    best or any) and rearrangements, each `Own` made with the last one equals the
    one made without it."""
    held = tuple(deck[:10])
    stock = list(deck[10:])
    last = own_cards(held, None, limit)
    for pick, banned, shuffle in steps:
        if len(held) == 10:
            held = (*held, stock.pop())
            taken = held[-1] if banned else None
        else:
            # the best discard, or any
            drop = next(c for c in held if not last.ten & c.bit) if banned else held[pick]
            held = tuple(c for c in held if c is not drop)
            taken = None
        if shuffle:
            held = tuple(random.Random(pick).sample(held, len(held)))
        fresh = own_cards(held, taken, limit)
        kept = own_cards(held, taken, limit, last)
        assert (kept.texts, kept.grouping, kept.ten, kept.plays, kept.knock_deadwood) == (
            fresh.texts,
            fresh.grouping,
            fresh.ten,
            fresh.plays,
            fresh.knock_deadwood,
        )
        last = kept
