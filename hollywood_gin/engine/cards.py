"""Cards: immutable values, the two-character notation, deadwood values.

A card's `index` is `suit * 13 + (rank - 1)`, so the cards of one suit are 13
consecutive bits of a 52-bit mask and a run is a block of adjacent bits. The
52 cards are interned: `Card.parse("7H") is Card.parse("7H")`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hollywood_gin.engine.errors import BadCard

RANKS = "A23456789TJQK"
SUITS = "CDHS"


@dataclass(frozen=True, slots=True, order=True)
class Card:
    index: int
    # Read on every move and view (the solver's callers, `legal`, every state's card
    # strings): worked out once for each of the 52 cards, not on each read.
    rank: int = field(init=False, compare=False, repr=False)
    """1 (ace) to 13 (king)."""
    suit: str = field(init=False, compare=False, repr=False)
    value: int = field(init=False, compare=False, repr=False)
    """Deadwood value: ace 1, two to nine face value, ten and faces 10."""
    text: str = field(init=False, compare=False, repr=False)
    """The two-character notation, as `str(card)`."""
    bit: int = field(init=False, compare=False, repr=False)
    """`1 << index`: the card in a 52-bit mask (the meld solver adds these up)."""
    fbit: float = field(init=False, compare=False, repr=False)
    """`bit` as a float: ten of them add up exactly (52 bits fit a double's 53), and a
    float add costs a third of a 52-bit int's (no allocation: floats have a free list)."""

    def __post_init__(self) -> None:
        if not 0 <= self.index < 52:
            raise BadCard(f"no such card index: {self.index!r}")
        rank = self.index % 13 + 1
        suit = SUITS[self.index // 13]
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "value", min(rank, 10))
        object.__setattr__(self, "text", RANKS[rank - 1] + suit)
        object.__setattr__(self, "bit", 1 << self.index)
        object.__setattr__(self, "fbit", float(1 << self.index))

    # Written out, not generated: the generated ones build a tuple on every call, and
    # cards are hashed and compared in every solver answer's dict and every `legal`.
    def __eq__(self, other: object) -> bool:
        if other.__class__ is Card:
            return self.index == other.index
        return NotImplemented

    def __hash__(self) -> int:
        return self.index

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        # Copies and pickles come back as the interned card.
        return (_card_at, (self.index,))

    @staticmethod
    def of(rank: int, suit: str) -> Card:
        if not 1 <= rank <= 13 or suit not in SUITS or len(suit) != 1:
            raise BadCard(f"no such card: rank {rank!r}, suit {suit!r}")
        return CARDS[SUITS.index(suit) * 13 + rank - 1]

    @staticmethod
    def parse(text: object) -> Card:
        if not isinstance(text, str):
            raise BadCard(f"a card is a two-character string, not {type(text).__name__}")
        card = _BY_TEXT.get(text)
        if card is None:
            raise BadCard(f"not a card: {text[:8]!r} (rank A23456789TJQK then suit CDHS)")
        return card

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"


CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))
_BY_TEXT: dict[str, Card] = {c.text: c for c in CARDS}


def _card_at(index: int) -> Card:
    return CARDS[index]


def full_deck() -> list[Card]:
    """The 52 cards in index order (clubs A-K, diamonds, hearts, spades)."""
    return list(CARDS)


def parse_cards(texts: Iterable[object]) -> list[Card]:
    """Parse notation; duplicates are refused, since a hand never holds a card twice."""
    cards = [Card.parse(t) for t in texts]
    if len(set(cards)) != len(cards):
        raise BadCard("the same card appears twice")
    return cards


def format_cards(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c.index
    return mask


def cards_of(mask: int) -> list[Card]:
    """The cards of a 52-bit mask, in index order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return out
