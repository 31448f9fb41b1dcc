"""The dealer: stacked deck orders first, then shuffles; a replay deals what its log says."""

from __future__ import annotations

import random

import pytest

from hollywood_gin.engine.cards import full_deck
from hollywood_gin.engine.dealer import Dealer, Replayed
from hollywood_gin.engine.errors import BadAction
from hollywood_gin.engine.events import Deal


def test_stacked_decks_are_dealt_in_turn_then_shuffled() -> None:
    ordered = [str(c) for c in full_deck()]
    dealer = Dealer(random.Random(1), [ordered, list(reversed(ordered))], first_dealer=1)
    assert dealer.first_dealer() == 1
    first, salt = dealer.deal(1, 1)
    second, _ = dealer.deal(2, 0)
    third, _ = dealer.deal(3, 0)
    assert [str(c) for c in first] == ordered
    assert [str(c) for c in second] == list(reversed(ordered))
    assert sorted(third) == sorted(full_deck()) and [str(c) for c in third] != ordered
    assert len(salt) == 32 and int(salt, 16) >= 0


def test_a_replay_deals_its_log_then_hands_over() -> None:
    events = [Deal(hand=1, dealer=1, deck=tuple(full_deck()), salt="ab" * 16)]
    replayed = Replayed(events, then=Dealer(random.Random(2), first_dealer=0))
    assert replayed.first_dealer() == 1
    with pytest.raises(BadAction):
        replayed.deal(1, 0)  # the log says seat 1 dealt hand 1


def test_a_replay_with_deals_left_over_is_refused() -> None:
    events = [Deal(hand=1, dealer=0, deck=tuple(full_deck()), salt="00" * 16)]
    replayed = Replayed(events, then=Dealer(random.Random(3)))
    with pytest.raises(BadAction):
        replayed.done()
    replayed.deal(1, 0)
    replayed.done()
    assert replayed.first_dealer() in (0, 1)
    assert len(replayed.deal(2, 0)[0]) == 52


def test_dealers_without_an_rng_share_the_system_one() -> None:
    """Every held table has a dealer; a `Random` instance costs 2.5 KB (the Mersenne
    Twister's state, which `SystemRandom` carries and never uses), so the server's
    dealers share one instead of each making its own."""
    first, second = Dealer(fair=True), Dealer(fair=True)
    assert isinstance(first.rng, random.SystemRandom)
    assert first.rng is second.rng
    deck, salt = first.deal(1, 0)
    assert sorted(deck) == sorted(full_deck()) and len(salt) == 32
