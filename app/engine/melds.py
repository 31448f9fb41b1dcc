"""The meld solver: exact least deadwood, arrangements, discards and lay-offs.

RULES.md §2: a set is 3 or 4 cards of one rank, a run 3 or more cards of one
suit in sequence, ace low (A-2-3 is a run, Q-K-A and K-A-2 are not); a card is
in at most one meld; deadwood is the least total value of unmelded cards.

How it stays exact and fast. A hand is a 52-bit mask (`Card.index` =
suit*13 + rank-1), so each suit is a 13-bit pattern. Any arrangement is some
sets plus runs, and once the sets are chosen, the runs of each suit are
independent of the other suits. So:

1. `_RUN_DEADWOOD[p]` holds, for every 13-bit pattern `p`, the least deadwood
   of those cards using runs only (8,192 entries, built once at import). A run
   of 6 or more is two runs of 3 or more, so runs of 3 to 5 suffice.
2. Only ranks held in at least three suits can form a set. For each, try no
   set, each set of three (a set of four may be split to free a card for a
   run) and the set of four; for each combination, add up four table lookups.

Random 10-card hands usually hold no such rank, and then the answer is four
lookups. `docs/performance.md` has the measurements.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product

from app.engine.cards import CARDS, Card
from app.engine.errors import BadAction, BadCard

__all__ = [
    "LayOff",
    "arrange",
    "arrange_mask",
    "best_discards",
    "deadwood",
    "deadwood_mask",
    "defender_deadwood",
    "discard_deadwoods",
    "is_meld",
    "lay_off",
]

_SUIT = 0x1FFF  # the 13 bits of one suit
_RANK_VALUE = tuple(min(r + 1, 10) for r in range(13))  # by rank - 1


def _build_run_tables() -> tuple[list[int], list[int]]:
    """Least run-only deadwood of every 13-bit pattern, and the choice that reaches it.

    The lowest card of a pattern is either deadwood or the lowest card of a run
    of 3, 4 or 5; both leave a smaller pattern, so increasing order works.
    """
    best = [0] * (1 << 13)
    choice = [0] * (1 << 13)  # 0: the lowest card is deadwood; n: a run of n starts at it
    for p in range(1, 1 << 13):
        low = p & -p
        r = low.bit_length() - 1
        value = _RANK_VALUE[r] + best[p ^ low]
        how = 0
        for length in (3, 4, 5):
            run = ((1 << length) - 1) << r
            if p & run != run:
                break  # a longer run from here is missing the same card
            if best[p ^ run] < value:
                value, how = best[p ^ run], length
        best[p] = value
        choice[p] = how
    return best, choice


_RUN_DEADWOOD, _RUN_CHOICE = _build_run_tables()


def _suits(mask: int) -> tuple[int, int, int, int]:
    return mask & _SUIT, (mask >> 13) & _SUIT, (mask >> 26) & _SUIT, mask >> 39


def _set_options(c: int, d: int, h: int, s: int, r: int) -> list[tuple[int, int, int, int]]:
    """The suit bits a set of rank bit `r` can take: none, each three, all four."""
    if c & d & h & s & r:
        return [(0, 0, 0, 0), (r, r, r, 0), (r, r, 0, r), (r, 0, r, r), (0, r, r, r), (r, r, r, r)]
    return [(0, 0, 0, 0), (c & r, d & r, h & r, s & r)]


def deadwood_mask(mask: int) -> int:
    """Least deadwood of the cards in a 52-bit mask (the hot path; no checks)."""
    t = _RUN_DEADWOOD
    c = mask & _SUIT
    d = (mask >> 13) & _SUIT
    h = (mask >> 26) & _SUIT
    s = mask >> 39
    three = (c & d & (h | s)) | (h & s & (c | d))  # ranks held in 3 or 4 suits
    if not three:
        return t[c] + t[d] + t[h] + t[s]
    states = [(c, d, h, s)]
    while three:
        r = three & -three
        three ^= r
        if c & d & h & s & r:
            nr = ~r
            states = [
                q
                for a, b, e, f in states
                for q in (
                    (a, b, e, f),
                    (a & nr, b & nr, e & nr, f),
                    (a & nr, b & nr, e, f & nr),
                    (a & nr, b, e & nr, f & nr),
                    (a, b & nr, e & nr, f & nr),
                    (a & nr, b & nr, e & nr, f & nr),
                )
            ]
        else:
            nr = ~r
            states = [
                q for a, b, e, f in states for q in ((a, b, e, f), (a & nr, b & nr, e & nr, f & nr))
            ]
    return min([t[a] + t[b] + t[e] + t[f] for a, b, e, f in states])


def _runs_of(pattern: int, suit: int) -> list[int]:
    """The runs (52-bit masks) the table chose for one suit's pattern, adjacent ones merged."""
    runs: list[int] = []
    while pattern:
        low = pattern & -pattern
        r = low.bit_length() - 1
        length = _RUN_CHOICE[pattern]
        if length:
            run = ((1 << length) - 1) << r
            pattern ^= run
            run <<= suit * 13
            # a run that starts where the previous one ended is one longer run
            if runs and runs[-1] & (run >> 1):
                runs[-1] |= run
            else:
                runs.append(run)
        else:
            pattern ^= low
    return runs


def arrange_mask(mask: int) -> tuple[int, list[int], int]:
    """One least-deadwood arrangement of a mask: (deadwood, meld masks, deadwood mask)."""
    c, d, h, s = _suits(mask)
    three = (c & d & (h | s)) | (h & s & (c | d))
    best: tuple[int, int] | None = None  # (deadwood, set cards mask)
    ranks = []
    while three:
        r = three & -three
        three ^= r
        ranks.append(r)
    for choice in product(*(_set_options(c, d, h, s, r) for r in ranks)):
        sets = 0
        for rc, rd, rh, rs in choice:
            sets |= rc | rd << 13 | rh << 26 | rs << 39
        rest = _suits(mask & ~sets)
        value = sum(_RUN_DEADWOOD[p] for p in rest)
        if best is None or value < best[0]:
            best = (value, sets)
    assert best is not None  # product() of no options still yields one empty choice
    value, sets = best
    melds: list[int] = []
    for r in ranks:
        shift = r.bit_length() - 1
        in_set = sets & (1 << shift | 1 << (shift + 13) | 1 << (shift + 26) | 1 << (shift + 39))
        if in_set:
            melds.append(in_set)
    for suit, pattern in enumerate(_suits(mask & ~sets)):
        melds.extend(_runs_of(pattern, suit))
    melded = 0
    for m in melds:
        melded |= m
    return value, melds, mask & ~melded


def _mask_checked(cards: Iterable[Card]) -> int:
    mask = 0
    n = 0
    for card in cards:
        mask |= 1 << card.index
        n += 1
    if mask.bit_count() != n:
        raise BadCard("the same card appears twice")
    return mask


def _cards(mask: int) -> list[Card]:
    out = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return out


def _by_rank(cards: list[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: (c.rank, c.index))


def deadwood(cards: Iterable[Card]) -> int:
    """Least deadwood of a hand over all arrangements. Raises BadCard on a repeated card."""
    return deadwood_mask(_mask_checked(cards))


def arrange(cards: Iterable[Card]) -> tuple[list[list[Card]], list[Card]]:
    """One least-deadwood arrangement: (melds, deadwood cards).

    Deterministic: each meld sorted (a run by rank, a set by suit C D H S),
    melds ordered by their lowest rank then suit, deadwood by rank then suit;
    adjacent runs of one suit are shown as one run.
    Raises BadCard on a repeated card.
    """
    _, melds, dead = arrange_mask(_mask_checked(cards))
    shown = [_by_rank(_cards(m)) for m in melds]
    shown.sort(key=lambda m: (m[0].rank, m[0].index))
    return shown, _by_rank(_cards(dead))


def _discard_deadwoods_mask(mask: int) -> list[tuple[int, int]]:
    """(card index, deadwood after discarding it) for each card of the mask."""
    c, d, h, s = _suits(mask)
    out = []
    if not (c & d & (h | s)) | (h & s & (c | d)):
        # no rank in three suits, and removing a card cannot make one: only
        # the discarded card's suit changes
        t = _RUN_DEADWOOD
        total = t[c] + t[d] + t[h] + t[s]
        for suit, p in enumerate((c, d, h, s)):
            base = total - t[p]
            rest = p
            while rest:
                low = rest & -rest
                rest ^= low
                out.append((suit * 13 + low.bit_length() - 1, base + t[p ^ low]))
        return out
    rest = mask
    while rest:
        low = rest & -rest
        rest ^= low
        out.append((low.bit_length() - 1, deadwood_mask(mask ^ low)))
    return out


def discard_deadwoods(cards: Iterable[Card]) -> dict[Card, int]:
    """For each card, the least deadwood of the others after discarding it.

    With 11 cards these are the knock entries of `legal`. Raises BadCard on a
    repeated card.
    """
    return {CARDS[i]: v for i, v in _discard_deadwoods_mask(_mask_checked(cards))}


def best_discards(cards: Iterable[Card]) -> list[tuple[Card, int]]:
    """The discards that leave the least deadwood, with that deadwood, in card order.

    Raises BadCard on a repeated card.
    """
    found = _discard_deadwoods_mask(_mask_checked(cards))
    if not found:
        return []
    least = min(v for _, v in found)
    return [(CARDS[i], v) for i, v in found if v == least]


def is_meld(cards: Iterable[Card]) -> bool:
    """A valid set (3 or 4 of one rank) or run (3+ of one suit in sequence, ace low)."""
    group = list(cards)
    if len(group) < 3 or len(set(group)) != len(group):
        return False
    if len({c.rank for c in group}) == 1:
        return len(group) <= 4
    if len({c.suit for c in group}) != 1:
        return False
    ranks = sorted(c.rank for c in group)
    return ranks[-1] - ranks[0] == len(ranks) - 1


@dataclass(frozen=True, slots=True)
class LayOff:
    """The defender's best outcome against the knocker's melds (RULES.md §4.5)."""

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


def lay_off(knocker_melds: Sequence[Iterable[Card]], defender_cards: Iterable[Card]) -> LayOff:
    """The defender's least deadwood over all own arrangements and lay-offs.

    A defender may keep a card out of an own meld to lay it off, and lay off
    chains (9H then TH onto 6H-7H-8H). Ties keep the fewest lay-offs.
    Raises BadAction when a knocker meld is not a meld or the cards overlap,
    BadCard on a repeated card.
    """
    melds = [list(m) for m in knocker_melds]
    knocker = 0
    for meld in melds:
        if not is_meld(meld):
            raise BadAction("a knocker meld is not a valid set or run")
        m = _mask_checked(meld)
        if knocker & m:
            raise BadAction("knocker melds share a card")
        knocker |= m
    defender = _mask_checked(defender_cards)
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
    _, own, dead = arrange_mask(defender & ~laid)
    shown = [_by_rank(_cards(m)) for m in own]
    shown.sort(key=lambda m: (m[0].rank, m[0].index))
    return LayOff(melds=shown, deadwood=_by_rank(_cards(dead)), layoffs=pairs, deadwood_value=value)


def defender_deadwood(
    knocker_melds: Sequence[Iterable[Card]], defender_cards: Iterable[Card]
) -> int:
    """The defender's deadwood after the best lay-offs (see `lay_off`)."""
    return lay_off(knocker_melds, defender_cards).deadwood_value
