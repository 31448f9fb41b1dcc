"""The meld solver: exact least deadwood, arrangements, discards and lay-offs.

docs/rules.md "Melds and deadwood": a set is 3 or 4 cards of one rank, a run 3 or more cards of one
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

from collections.abc import Iterable

from hollywood_gin.engine.cards import CARDS, SUITS, Card, cards_of
from hollywood_gin.engine.errors import BadCard

__all__ = [
    "arrange",
    "arrange_mask",
    "best_discards",
    "by_rank",
    "deadwood",
    "deadwood_mask",
    "discard_deadwoods",
    "discard_deadwoods_mask",
    "discard_least",
    "is_meld",
    "mask_checked",
    "run_deadwoods",
    "shown",
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


def run_deadwoods() -> list[int]:
    """The table of every 13-bit pattern's least deadwood with runs only (read only)."""
    return _RUN_DEADWOOD


_NONE = 1000  # above any deadwood: "none found yet"


_BIT = tuple(1 << i for i in range(52))

State = tuple[int, int, int, int]  # the four suit patterns (C D H S) left after some sets


def _suits(mask: int) -> State:
    return mask & _SUIT, (mask >> 13) & _SUIT, (mask >> 26) & _SUIT, mask >> 39


def _set_states(c: int, d: int, h: int, s: int, three: int) -> list[State]:
    """The suit patterns left by every choice of sets among the ranks in `three`.

    Per rank: no set, or the set of its three cards; with four cards, no set,
    each set of three (a set of four may be split to free a card for a run),
    or the set of four.
    """
    states = [(c, d, h, s)]
    while three:
        r = three & -three
        three ^= r
        nr = ~r
        if c & d & h & s & r:
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
            states = [
                q for a, b, e, f in states for q in ((a, b, e, f), (a & nr, b & nr, e & nr, f & nr))
            ]
    return states


def _least_with_sets(c: int, d: int, h: int, s: int, three: int) -> int:
    """Least deadwood over every choice of sets among the ranks in `three`.

    The highest such rank is scored in place for each choice of the others,
    rather than expanded into states: that saves building the largest list.
    """
    t = _RUN_DEADWOOD
    last = 1 << (three.bit_length() - 1)
    rest = three ^ last
    states = _set_states(c, d, h, s, rest) if rest else [(c, d, h, s)]
    nr = ~last
    best = _NONE
    if c & d & h & s & last:
        for a, b, e, f in states:
            ta, tb, te, tf = t[a], t[b], t[e], t[f]
            na, nb, ne, nf = t[a & nr], t[b & nr], t[e & nr], t[f & nr]
            v = min(
                ta + tb + te + tf,  # no set
                na + nb + ne + tf,  # each set of three
                na + nb + te + nf,
                na + tb + ne + nf,
                ta + nb + ne + nf,
                na + nb + ne + nf,  # the set of four
            )
            if v < best:
                best = v
    else:
        for a, b, e, f in states:
            v = t[a] + t[b] + t[e] + t[f]
            w = t[a & nr] + t[b & nr] + t[e & nr] + t[f & nr]
            if w < v:
                v = w
            if v < best:
                best = v
    return best


def deadwood_mask(mask: int, *, _t: list[int] = _RUN_DEADWOOD) -> int:
    """Least deadwood of the cards in a 52-bit mask (the hot path: no checks)."""
    c = mask & 8191
    d = mask >> 13 & 8191
    h = mask >> 26 & 8191
    s = mask >> 39
    three = (c & d & (h | s)) | (h & s & (c | d))  # ranks held in 3 or 4 suits
    if not three:
        return _t[c] + _t[d] + _t[h] + _t[s]
    if not three & (three - 1) and not c & d & h & s:
        # the most common case with a set: one rank in exactly three suits
        r = ~three
        a = _t[c] + _t[d] + _t[h] + _t[s]
        b = _t[c & r] + _t[d & r] + _t[h & r] + _t[s & r]
        return a if a < b else b
    return _least_with_sets(c, d, h, s, three)


def deadwood(cards: Iterable[Card]) -> int:
    """Least deadwood of a hand over all arrangements. Raises BadCard on a repeated card."""
    return deadwood_mask(mask_checked(cards))


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


def _join(state: State) -> int:
    return state[0] | state[1] << 13 | state[2] << 26 | state[3] << 39


def arrange_mask(mask: int) -> tuple[int, list[int], int]:
    """One least-deadwood arrangement of a mask: (deadwood, meld masks, deadwood mask)."""
    c, d, h, s = _suits(mask)
    three = (c & d & (h | s)) | (h & s & (c | d))
    t = _RUN_DEADWOOD
    if three:
        # The first state of the least deadwood (as `min` with that key would pick).
        states = _set_states(c, d, h, s, three)
        best = states[0]
        least = t[best[0]] + t[best[1]] + t[best[2]] + t[best[3]]
        for q in states:
            v = t[q[0]] + t[q[1]] + t[q[2]] + t[q[3]]
            if v < least:
                best, least = q, v
    else:
        best = (c, d, h, s)
    sets = mask & ~_join(best)
    melds: list[int] = []
    rank_cards = 1 | 1 << 13 | 1 << 26 | 1 << 39
    while three:
        r = three & -three
        three ^= r
        in_set = sets & rank_cards << (r.bit_length() - 1)
        if in_set:
            melds.append(in_set)
    for suit, pattern in enumerate(best):
        melds.extend(_runs_of(pattern, suit))
    melded = 0
    for m in melds:
        melded |= m
    return t[best[0]] + t[best[1]] + t[best[2]] + t[best[3]], melds, mask & ~melded


def mask_checked(cards: Iterable[Card]) -> int:
    """The 52-bit mask of some cards. Raises BadCard on a repeated card."""
    mask = 0
    n = 0
    for card in cards:
        mask += _BIT[card.index]
        n += 1
    if mask.bit_count() != n:
        raise BadCard("the same card appears twice")
    return mask


# Each card's place in rank order, then suit (C D H S) within a rank.
_RANK_MAJOR: dict[Card, int] = {c: c.rank * 4 + SUITS.index(c.suit) for c in CARDS}


def by_rank(cards: list[Card]) -> list[Card]:
    """Cards by rank, then suit (C D H S): how deadwood is shown."""
    return sorted(cards, key=_RANK_MAJOR.__getitem__)


def shown(melds: list[int]) -> list[list[Card]]:
    """Meld masks as shown: each meld's cards, the melds by their first card's rank
    then suit."""
    # A meld's cards in index order are already in rank order (a run is one suit) or
    # in suit order (a set is one rank).
    out = [cards_of(m) for m in melds]
    out.sort(key=lambda m: _RANK_MAJOR[m[0]])
    return out


def arrange(cards: Iterable[Card]) -> tuple[list[list[Card]], list[Card]]:
    """One least-deadwood arrangement: (melds, deadwood cards).

    Deterministic: each meld sorted (a run by rank, a set by suit C D H S),
    melds ordered by their lowest rank then suit, deadwood by rank then suit;
    adjacent runs of one suit are shown as one run.
    Raises BadCard on a repeated card.
    """
    _, melds, dead = arrange_mask(mask_checked(cards))
    return shown(melds), by_rank(cards_of(dead))


def discard_deadwoods_mask(mask: int) -> list[tuple[int, int]]:
    """(card index, least deadwood after discarding it) for each card, in index order."""
    least = discard_least(mask)
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        i = low.bit_length() - 1
        out.append((i, least[i]))
    return out


def discard_least(mask: int) -> list[int]:
    """By card index (52 entries), the least deadwood after discarding that card;
    the entries of cards not in `mask` are meaningless.

    One search for all discards: discarding x leaves some choice of sets that
    does not use x, so each set choice of the whole hand is scored once with
    each of its free cards removed from that card's suit.
    """
    t = _RUN_DEADWOOD
    c, d, h, s = _suits(mask)
    three = (c & d & (h | s)) | (h & s & (c | d))
    least = [_NONE] * 52
    if not three:
        # no possible set: only the discarded card's suit changes
        total = t[c] + t[d] + t[h] + t[s]
        offset = 0
        for p in (c, d, h, s):
            base = total - t[p]
            rest = p
            while rest:
                low = rest & -rest
                rest ^= low
                least[offset + low.bit_length() - 1] = base + t[p ^ low]
            offset += 13
        return least
    drops = _DROPS
    for state in _set_states(c, d, h, s, three):
        total = t[state[0]] + t[state[1]] + t[state[2]] + t[state[3]]
        offset = 0
        for p in state:
            base = total - t[p]
            for j, left in drops[p]:
                v = base + left
                i = offset + j
                if v < least[i]:
                    least[i] = v
            offset += 13
    return least


class _Drops(dict[int, tuple[tuple[int, int], ...]]):
    """Per 13-bit pattern of one suit, each card's (rank index, the pattern's run
    deadwood without it), lowest first: filled as patterns come up (at most 8,192)."""

    def __missing__(self, pattern: int) -> tuple[tuple[int, int], ...]:
        t = _RUN_DEADWOOD
        out = []
        rest = pattern
        while rest:
            low = rest & -rest
            rest ^= low
            out.append((low.bit_length() - 1, t[pattern ^ low]))
        drops = self[pattern] = tuple(out)
        return drops


_DROPS = _Drops()


def discard_deadwoods(
    cards: Iterable[Card], *, _bit: tuple[int, ...] = _BIT, _t: list[int] = _RUN_DEADWOOD
) -> dict[Card, int]:
    """For each card, the least deadwood of the others after discarding it.

    With 11 cards these are the knock entries of `legal`. Raises BadCard on a
    repeated card. (The keyword-only defaults are tables bound for speed.)
    """
    held = list(cards)
    mask = 0
    for card in held:
        mask += _bit[card.index]
    if mask.bit_count() != len(held):
        raise BadCard("the same card appears twice")
    c = mask & 8191
    d = mask >> 13 & 8191
    h = mask >> 26 & 8191
    s = mask >> 39
    if (c & d & (h | s)) | (h & s & (c | d)):
        return {CARDS[i]: v for i, v in discard_deadwoods_mask(mask)}
    # no possible set: only the discarded card's suit changes
    total = _t[c] + _t[d] + _t[h] + _t[s]
    suits = (c, d, h, s)
    out = {}
    for card in held:
        i = card.index
        k = i // 13
        p = suits[k]
        out[card] = total - _t[p] + _t[p ^ 1 << (i - 13 * k)]
    return out


def best_discards(cards: Iterable[Card]) -> list[tuple[Card, int]]:
    """The discards that leave the least deadwood, with that deadwood, in card order.

    Raises BadCard on a repeated card.
    """
    left = discard_deadwoods_mask(mask_checked(cards))
    if not left:
        return []
    least = min(value for _, value in left)
    return [(CARDS[i], value) for i, value in left if value == least]


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
