"""Shared helpers for the bots' tests."""

from __future__ import annotations

import random
from collections.abc import Container, Sequence
from typing import TypeVar

C = TypeVar("C")


def unseen_shuffled(deck: Sequence[C], seen: Container[C], seed: int) -> list[C]:
    """`deck` with the cards not in `seen` (what a seat cannot know: the opponent's
    hand, the stock) shuffled among their own places; the seen ones stay put."""
    places = [i for i, c in enumerate(deck) if c not in seen]
    cards = [deck[i] for i in places]
    random.Random(seed).shuffle(cards)
    other = list(deck)
    for i, c in zip(places, cards, strict=True):
        other[i] = c
    return other
