"""The defender's lay-offs after a knock (docs/rules.md "Laying out and laying off"):
the least deadwood over all the defender's own arrangements and lay-offs onto the
knocker's melds.

The solver of one hand's melds is `melds`; this module tries each way of laying
cards off (per knocker meld: its fourth card, or a chain at either end of a run)
and scores what is left with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product

from hollywood_gin.engine.cards import CARDS, Card, cards_of
from hollywood_gin.engine.errors import BadAction
from hollywood_gin.engine.melds import (
    arrange_mask,
    by_rank,
    deadwood_mask,
    is_meld,
    mask_checked,
    shown,
)

__all__ = ["LayOff", "defender_deadwood", "lay_off"]


@dataclass(frozen=True, slots=True)
class LayOff:
    """The defender's best outcome against the knocker's melds
    (docs/rules.md "Laying out and laying off")."""

    melds: list[list[Card]]  # the defender's own melds
    deadwood: list[Card]  # the cards left over, which count
    layoffs: list[tuple[Card, int]]  # (card, index into the knocker's melds)
    deadwood_value: int


def _layoff_options(
    melds: Sequence[Sequence[Card]], defender: int
) -> list[list[tuple[int, list[tuple[Card, int]]]]]:
    """Per knocker meld, each way to lay cards off on it: (cards mask, [(card, meld index)]).

    A set of three takes its fourth card; a run takes, at each end, any number
    of the defender's cards that continue it one after another (a chain).
    """
    options: list[list[tuple[int, list[tuple[Card, int]]]]] = []
    for i, meld in enumerate(melds):
        ways: list[tuple[int, list[tuple[Card, int]]]] = [(0, [])]
        ranks = {c.rank for c in meld}
        if len(ranks) == 1:
            if len(meld) == 3:
                rank = meld[0].rank
                for suit in range(4):
                    card = CARDS[suit * 13 + rank - 1]
                    if card not in meld and defender >> card.index & 1:
                        ways.append((card.bit, [(card, i)]))
        else:
            suit = meld[0].index // 13
            low, high = min(ranks), max(ranks)
            below: list[Card] = []
            r = low - 1
            while r >= 1 and defender >> (suit * 13 + r - 1) & 1:
                below.append(CARDS[suit * 13 + r - 1])
                r -= 1
            above: list[Card] = []
            r = high + 1
            while r <= 13 and defender >> (suit * 13 + r - 1) & 1:
                above.append(CARDS[suit * 13 + r - 1])
                r += 1
            for nb in range(len(below) + 1):
                for na in range(len(above) + 1):
                    if nb or na:
                        chosen = below[:nb] + above[:na]
                        mask = 0
                        for card in chosen:
                            mask |= card.bit
                        ways.append((mask, [(card, i) for card in chosen]))
        options.append(ways)
    return options


def _best_layoff(
    knocker_melds: Sequence[Iterable[Card]], defender_cards: Iterable[Card]
) -> tuple[int, int, int, list[tuple[Card, int]]]:
    """(least deadwood, defender mask, the cards laid off as a mask, the lay-offs)."""
    melds = [list(m) for m in knocker_melds]
    knocker = 0
    for meld in melds:
        if not is_meld(meld):
            raise BadAction("a knocker meld is not a valid set or run")
        m = mask_checked(meld)
        if knocker & m:
            raise BadAction("knocker melds share a card")
        knocker |= m
    defender = mask_checked(defender_cards)
    if knocker & defender:
        raise BadAction("the defender holds a card of the knocker's melds")
    best: tuple[int, int, int, list[tuple[Card, int]]] | None = None
    for combo in product(*_layoff_options(melds, defender)):
        laid = 0
        count = 0
        for mask, pairs in combo:
            if laid & mask:
                break  # two melds claim one card: another combination covers it
            laid |= mask
            count += len(pairs)
        else:
            value = deadwood_mask(defender & ~laid)
            if best is None or (value, count) < (best[0], best[1]):
                best = (value, count, laid, [p for _, pairs in combo for p in pairs])
    assert best is not None  # the combination of no lay-offs is always there
    value, _, laid, pairs = best
    return value, defender, laid, pairs


def lay_off(knocker_melds: Sequence[Iterable[Card]], defender_cards: Iterable[Card]) -> LayOff:
    """The defender's least deadwood over all own arrangements and lay-offs.

    A defender may keep a card out of an own meld to lay it off, and lay off
    chains (9H then TH onto 6H-7H-8H). Ties keep the fewest lay-offs.
    Raises BadAction when a knocker meld is not a meld or the cards overlap,
    BadCard on a repeated card.
    """
    value, defender, laid, pairs = _best_layoff(knocker_melds, defender_cards)
    _, own, dead = arrange_mask(defender & ~laid)
    return LayOff(
        melds=shown(own), deadwood=by_rank(cards_of(dead)), layoffs=pairs, deadwood_value=value
    )


def defender_deadwood(
    knocker_melds: Sequence[Iterable[Card]], defender_cards: Iterable[Card]
) -> int:
    """The defender's deadwood after the best lay-offs (see `lay_off`), without
    laying the rest out: every playout that ends in a knock asks for this."""
    return _best_layoff(knocker_melds, defender_cards)[0]
