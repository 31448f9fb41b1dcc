"""Our pure-Python meld solver against OpenSpiel's C++ one, called from Python.

Run: `pip install -e '.[bench]' && python -m benchmarks.bench_openspiel`

Same seeded hands as `bench_engine`, cold; CPU time, median of 3, ours and
OpenSpiel measured in turn. Checks that both agree on the
least deadwood of every 10-card hand, and counts how often OpenSpiel's
11-card `min_deadwood` (melds of all 11, then drop the highest deadwood card)
differs from the exact least deadwood after the best discard.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pyspiel

from benchmarks.bench_engine import dense_hands, random_hands, table, us_per_call_pair
from hollywood_gin.engine import melds
from hollywood_gin.engine.cards import Card

UTILS = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
# OpenSpiel's suits are s c d h (index suit*13 + rank-1); ours are C D H S.
_OURS_TO_OPENSPIEL = {"C": 1, "D": 2, "H": 3, "S": 0}


def to_openspiel(cards: Sequence[Card]) -> list[int]:
    return [_OURS_TO_OPENSPIEL[c.suit] * 13 + c.rank - 1 for c in cards]


def os_best_discards(hand: list[int]) -> list[tuple[int, int]]:
    """What best_discards tells, from OpenSpiel: knockable discards, then each deadwood."""
    found = []
    for card in UTILS.legal_discards(hand, 10):
        rest = list(hand)
        rest.remove(card)
        found.append((card, UTILS.min_deadwood(rest)))
    return found


def os_all_discards(hand: list[int]) -> list[int]:
    """What discard_deadwoods tells: min_deadwood of each of the 11 remainders."""
    return [UTILS.min_deadwood(hand[:i] + hand[i + 1 :]) for i in range(len(hand))]


def main() -> None:
    r10 = random_hands(10_000, 10, seed=1)
    d10 = dense_hands(2_000, 10, seed=2)
    r11 = random_hands(10_000, 11, seed=3)
    d11 = dense_hands(2_000, 11, seed=4)

    disagree = 0
    for hands in (r10, d10):
        for h in hands:
            if melds.deadwood(h) != UTILS.min_deadwood(to_openspiel(h)):
                disagree += 1
    shortcut = {}
    for name, hands in (("random", r11), ("dense", d11)):
        gaps: Counter[int] = Counter()
        for h in hands:
            exact = melds.best_discards(h)[0][1]
            gap = UTILS.min_deadwood(to_openspiel(h)) - exact
            if gap:
                gaps[gap] += 1
        shortcut[name] = gaps

    rows = []
    for name, hands, ours_fn, os_fn in (
        ("deadwood, random 10", r10, melds.deadwood, UTILS.min_deadwood),
        ("deadwood, dense 10", d10, melds.deadwood, UTILS.min_deadwood),
        (
            "best_discards vs legal_discards+min_deadwood, random 11",
            r11,
            melds.best_discards,
            os_best_discards,
        ),
        (
            "best_discards vs legal_discards+min_deadwood, dense 11",
            d11,
            melds.best_discards,
            os_best_discards,
        ),
        (
            "discard_deadwoods vs 11 x min_deadwood, random 11",
            r11,
            melds.discard_deadwoods,
            os_all_discards,
        ),
        (
            "discard_deadwoods vs 11 x min_deadwood, dense 11",
            d11,
            melds.discard_deadwoods,
            os_all_discards,
        ),
    ):
        os_inputs = [to_openspiel(h) for h in hands]
        ours, theirs = us_per_call_pair(ours_fn, hands, os_fn, os_inputs)
        rows.append((name, len(hands), ours, theirs, f"{theirs / ours:.1f}x"))
    table(
        "Ours (pure Python, list of Card) vs OpenSpiel C++ (list of int), µs per call, median of 3",
        ["call", "hands", "ours µs", "OpenSpiel µs", "ours faster by"],
        rows,
    )
    print(f"\n10-card hands where ours and OpenSpiel disagree: {disagree} of {len(r10) + len(d10)}")
    for name, hands in (("random", r11), ("dense", d11)):
        gaps = shortcut[name]
        detail = ", ".join(f"{n} by {gap:+d}" for gap, n in sorted(gaps.items())) or "none"
        print(
            f"{name} 11-card hands where OpenSpiel's min_deadwood shortcut differs from the "
            f"exact least deadwood after the best discard: {sum(gaps.values())} of "
            f"{len(hands)} ({detail})"
        )


if __name__ == "__main__":
    main()
