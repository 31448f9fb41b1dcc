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

Random 10-card hands usually hold no such rank (three in four have none), and
then the answer is four lookups. At that point the cost is Python's per-call work,
not the search, and above all the int operations: in CPython 3.11 `&` and `>>`
are not specialised and allocate their result (about 200 to 300 machine
instructions each, against about 60 for a list lookup or a small add). So
`deadwood` sums a list of ten cards as floats without a loop or a call
(`Card.fbit`), splits the mask in halves, looks for set ranks in the suits taken
in pairs (two operations when no two suits share a rank), and the discards read
each suit from precomputed drops (`_DROP_LEAST`, and rows kept per suit pattern)
instead of scoring card by card. `docs/performance.md` has
the measurements; `benchmarks/bench_openspiel.py` times them against OpenSpiel.
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
    "drop_tables",
    "is_meld",
    "lone_drops",
    "mask_checked",
    "run_choices",
    "run_deadwoods",
    "set_states",
    "shown",
]

_SUIT = 0x1FFF  # the 13 bits of one suit
_NONE = 1000  # above any deadwood: "none found yet"
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


def _build_drop_tables() -> tuple[list[int], list[int]]:
    """For every 13-bit pattern of one suit, the least run deadwood left after
    dropping one of its cards, and the cards (a pattern) whose drop leaves it.

    `best_discards` then scores a whole suit with two lookups instead of a pass
    over its cards. The empty pattern has nothing to drop: its least is out of reach.
    """
    t = _RUN_DEADWOOD
    least = [2 * _NONE] * (1 << 13)
    which = [0] * (1 << 13)
    for p in range(1, 1 << 13):
        rest = p
        low_v, w = 2 * _NONE, 0
        while rest:
            low = rest & -rest
            rest ^= low
            v = t[p ^ low]
            if v < low_v:
                low_v, w = v, low
            elif v == low_v:
                w |= low
        least[p] = low_v
        which[p] = w
    return least, which


def run_deadwoods() -> list[int]:
    """The table of every 13-bit pattern's least deadwood with runs only (read only)."""
    return _RUN_DEADWOOD


def run_choices() -> list[int]:
    """The table of every 13-bit pattern's choice for its lowest card (read only): 0
    deadwood, n a run of n from it (`arrange_mask`'s runs follow it)."""
    return _RUN_CHOICE


_DROP_LEAST, _DROP_WHICH = _build_drop_tables()


def drop_tables() -> tuple[list[int], list[int]]:
    """`_build_drop_tables`' two tables (read only): per 13-bit pattern, the least run
    deadwood left after dropping one of its cards, and the cards whose drop leaves it."""
    return _DROP_LEAST, _DROP_WHICH


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


# For each 13-bit pattern: the mask that drops its card if it holds one card, else 0.
# `_LONE[three]` both tells one possible set rank and drops that rank: one list
# lookup instead of `three & (three - 1)` and `~three`, two int operations.
_LONE = [~p if p & (p - 1) == 0 else 0 for p in range(1 << 13)]
_LONE[0] = 0


def lone_drops() -> list[int]:
    """The table `_LONE` (read only): by a 13-bit pattern of the ranks that may make a
    set, `~pattern` when it is one rank, else 0."""
    return _LONE


# `_set_states` for other modules (its order, no sets first, is how `arrange_mask`
# breaks ties); an alias, not a wrapper: a call less.
set_states = _set_states


def deadwood_mask(mask: int) -> int:
    """Least deadwood of the cards in a 52-bit mask (the hot path: no checks)."""
    # Halves first: one shift of the two-digit int, then single-digit operations.
    t = _RUN_DEADWOOD
    lo = mask & 0x3FFFFFF
    hi = mask >> 26
    c = lo & 8191
    d = lo >> 13
    h = hi & 8191
    s = hi >> 13
    # The ranks held in three or four suits: those of clubs and diamonds found in
    # hearts or spades, and the other way round. Most hands have none, and then
    # this takes two operations, or four.
    x = c & d
    y = h & s
    if x:
        three = x & (h | s)
        if y:
            three |= y & (c | d)
    elif y:
        three = y & (c | d)
    else:
        return t[c] + t[d] + t[h] + t[s]
    if not three:
        return t[c] + t[d] + t[h] + t[s]
    nr = _LONE[three]
    if nr and not x & y:
        # the most common case with a set: one rank in exactly three suits
        a = t[c] + t[d] + t[h] + t[s]
        b = t[c & nr] + t[d & nr] + t[h & nr] + t[s & nr]
        return a if a < b else b
    return _least_with_sets(c, d, h, s, three)


def deadwood(cards: Iterable[Card]) -> int:
    """Least deadwood of a hand over all arrangements. Raises BadCard on a repeated card."""
    # `deadwood_mask` written out again (a call would cost a tenth of the time), and
    # a list of ten (a hand between turns) summed without a loop, as floats: exact,
    # and a third of the cost of adding 52-bit ints (see `Card.fbit`).
    mask: int
    if type(cards) is not list:
        mask = mask_checked(cards)
    else:
        try:
            c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 = cards
        except ValueError:  # not ten cards (a zero-cost `try` beats a `len` call)
            return deadwood_mask(mask_checked(cards))
        mask = (
            c0.fbit
            + c1.fbit
            + c2.fbit
            + c3.fbit
            + c4.fbit
            + c5.fbit
            + c6.fbit
            + c7.fbit
            + c8.fbit
            + c9.fbit
        ).__trunc__()
        if mask.bit_count() != 10:
            raise BadCard("the same card appears twice")
    t = _RUN_DEADWOOD
    lo = mask & 0x3FFFFFF
    hi = mask >> 26
    c = lo & 8191
    d = lo >> 13
    h = hi & 8191
    s = hi >> 13
    x = c & d
    y = h & s
    if x:
        three = x & (h | s)
        if y:
            three |= y & (c | d)
    elif y:
        three = y & (c | d)
    else:
        return t[c] + t[d] + t[h] + t[s]
    if not three:
        return t[c] + t[d] + t[h] + t[s]
    nr = _LONE[three]
    if nr and not x & y:
        a = t[c] + t[d] + t[h] + t[s]
        b = t[c & nr] + t[d & nr] + t[h & nr] + t[s & nr]
        return a if a < b else b
    return _least_with_sets(c, d, h, s, three)


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
        mask += card.bit
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


_Row = tuple[tuple[int, int], ...]


def _row(rows: list[_Row | None], suit: int, pattern: int) -> _Row:
    """One suit's pattern as a row: each card's (card index, what dropping it does
    to the suit's run deadwood), lowest first; kept in `rows` (at most 8,192 per
    suit). The pairs are shared (`_PAIRS`), so a row costs its tuple alone.

    A discard's deadwood is then a state's total plus the card's entry: one add.
    (Callers read `rows[pattern] or _row(rows, suit, pattern)`: a list index is
    several times cheaper than a dict's, and the empty row is rare.)
    """
    t = _RUN_DEADWOOD
    whole = t[pattern]
    offset = 13 * suit
    out = []
    rest = pattern
    while rest:
        low = rest & -rest
        rest ^= low
        out.append(_PAIRS[offset + low.bit_length() - 1][t[pattern ^ low] - whole + 10])
    row = rows[pattern] = tuple(out)
    return row


# (index, change) for every card index and every change of a suit's run deadwood
# by dropping one card: from -10 (a deadwood ten) to +39 (the jack of 9-K), at
# `_PAIRS[index][change + 10]`.
_PAIRS = tuple(tuple((i, v - 10) for v in range(50)) for i in range(52))
_ROWS: tuple[list[_Row | None], ...] = tuple([None] * (1 << 13) for _ in range(4))
_Scored = tuple[_Row, int]  # a row, and the total it adds to


def _least_with_discards(c: int, d: int, h: int, s: int, three: int) -> list[int]:
    """By card index, the least deadwood after discarding that card (cards that
    are not held: `_NONE`), for a hand with possible sets (`three`, non-zero).

    Each choice of sets leaves a pattern per suit; a card's discard is scored
    from the best total among the choices that leave its suit that pattern. With
    one possible set rank that groups the choices by hand, so a suit the set does
    not touch is scored once.
    """
    t = _RUN_DEADWOOD
    r0, r1, r2, r3 = _ROWS
    # `first` holds every card once (the choice of no sets, or each suit's whole
    # pattern): its scores are written as they are; `then` can only lower them.
    first: tuple[_Scored, ...]
    then: list[_Scored]
    if not three & (three - 1):
        nr = ~three
        ta, tb, te, tf = t[c], t[d], t[h], t[s]
        c1, d1, h1, s1 = c & nr, d & nr, h & nr, s & nr
        ua, ub, ue, uf = t[c1], t[d1], t[h1], t[s1]
        whole = ta + tb + te + tf  # no set
        bare = ua + ub + ue + uf  # every card of the rank in a set
        if c & d & h & s & three:
            # the set of four, or a set of three that leaves the rank's card in one suit
            la, lb, le, lf = bare - ua + ta, bare - ub + tb, bare - ue + te, bare - uf + tf
            first = (
                ((r0[c] or _row(r0, 0, c)), min(whole, la)),
                ((r1[d] or _row(r1, 1, d)), min(whole, lb)),
                ((r2[h] or _row(r2, 2, h)), min(whole, le)),
                ((r3[s] or _row(r3, 3, s)), min(whole, lf)),
            )
            then = [
                ((r0[c1] or _row(r0, 0, c1)), min(bare, lb, le, lf)),
                ((r1[d1] or _row(r1, 1, d1)), min(bare, la, le, lf)),
                ((r2[h1] or _row(r2, 2, h1)), min(bare, la, lb, lf)),
                ((r3[s1] or _row(r3, 3, s1)), min(bare, la, lb, le)),
            ]
        else:
            # the set of three or none; the suit without the rank is the same in both
            low = whole if whole < bare else bare
            first = (
                ((r0[c] or _row(r0, 0, c)), whole if c != c1 else low),
                ((r1[d] or _row(r1, 1, d)), whole if d != d1 else low),
                ((r2[h] or _row(r2, 2, h)), whole if h != h1 else low),
                ((r3[s] or _row(r3, 3, s)), whole if s != s1 else low),
            )
            then = []
            if c != c1:
                then.append(((r0[c1] or _row(r0, 0, c1)), bare))
            if d != d1:
                then.append(((r1[d1] or _row(r1, 1, d1)), bare))
            if h != h1:
                then.append(((r2[h1] or _row(r2, 2, h1)), bare))
            if s != s1:
                then.append(((r3[s1] or _row(r3, 3, s1)), bare))
    else:
        states = _set_states(c, d, h, s, three)  # the first: no sets
        first = (
            (
                (r0[c] or _row(r0, 0, c))
                + (r1[d] or _row(r1, 1, d))
                + (r2[h] or _row(r2, 2, h))
                + (r3[s] or _row(r3, 3, s)),
                t[c] + t[d] + t[h] + t[s],
            ),
        )
        then = [
            (
                (r0[a] or _row(r0, 0, a))
                + (r1[b] or _row(r1, 1, b))
                + (r2[e] or _row(r2, 2, e))
                + (r3[f] or _row(r3, 3, f)),
                t[a] + t[b] + t[e] + t[f],
            )
            for a, b, e, f in states[1:]
        ]
    least = [_NONE] * 52
    for row, base in first:
        for i, v in row:
            least[i] = base + v
    for row, base in then:
        for i, v in row:
            v += base
            if v < least[i]:
                least[i] = v
    return least


def discard_deadwoods_mask(mask: int) -> list[tuple[int, int]]:
    """(card index, least deadwood after discarding it) for each card, in index order."""
    t = _RUN_DEADWOOD
    lo = mask & 0x3FFFFFF
    hi = mask >> 26
    c = lo & 8191
    d = lo >> 13
    h = hi & 8191
    s = hi >> 13
    three = (c & d & (h | s)) | (h & s & (c | d))
    r0, r1, r2, r3 = _ROWS
    cards = (
        (r0[c] or _row(r0, 0, c))
        + (r1[d] or _row(r1, 1, d))
        + (r2[h] or _row(r2, 2, h))
        + (r3[s] or _row(r3, 3, s))
    )
    if not three:
        # no possible set: only the discarded card's suit changes
        total = t[c] + t[d] + t[h] + t[s]
        return [(i, total + v) for i, v in cards]
    least = _least_with_discards(c, d, h, s, three)
    return [(i, least[i]) for i, _ in cards]


def discard_least(mask: int) -> list[int]:
    """By card index (52 entries), the least deadwood after discarding that card;
    the entries of cards not in `mask` are meaningless.

    One search for all discards: discarding x leaves some choice of sets that
    does not use x, so each set choice of the whole hand is scored once with
    each of its free cards removed from that card's suit.
    """
    t = _RUN_DEADWOOD
    lo = mask & 0x3FFFFFF
    hi = mask >> 26
    c = lo & 8191
    d = lo >> 13
    h = hi & 8191
    s = hi >> 13
    three = (c & d & (h | s)) | (h & s & (c | d))
    if three:
        return _least_with_discards(c, d, h, s, three)
    # no possible set: only the discarded card's suit changes
    least = [_NONE] * 52
    r0, r1, r2, r3 = _ROWS
    total = t[c] + t[d] + t[h] + t[s]
    for i, v in (
        (r0[c] or _row(r0, 0, c))
        + (r1[d] or _row(r1, 1, d))
        + (r2[h] or _row(r2, 2, h))
        + (r3[s] or _row(r3, 3, s))
    ):
        least[i] = total + v
    return least


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
    mask = mask_checked(cards)
    if not mask:
        return []
    t = _RUN_DEADWOOD
    dl = _DROP_LEAST
    dw = _DROP_WHICH
    lo = mask & 0x3FFFFFF
    hi = mask >> 26
    c = lo & 8191
    d = lo >> 13
    h = hi & 8191
    s = hi >> 13
    three = (c & d & (h | s)) | (h & s & (c | d))
    states = _set_states(c, d, h, s, three) if three else ((c, d, h, s),)
    # Per choice of sets, each suit's best drop from two lookups (`_DROP_LEAST`);
    # the cards of every suit and choice that reach the least are the answer.
    least = 2 * _NONE
    which = 0
    for a, b, e, f in states:
        ta = t[a]
        tb = t[b]
        te = t[e]
        tf = t[f]
        total = ta + tb + te + tf
        v = total - ta + dl[a]
        if v <= least:
            if v < least:
                least, which = v, dw[a]
            else:
                which |= dw[a]
        v = total - tb + dl[b]
        if v <= least:
            if v < least:
                least, which = v, dw[b] << 13
            else:
                which |= dw[b] << 13
        v = total - te + dl[e]
        if v <= least:
            if v < least:
                least, which = v, dw[e] << 26
            else:
                which |= dw[e] << 26
        v = total - tf + dl[f]
        if v <= least:
            if v < least:
                least, which = v, dw[f] << 39
            else:
                which |= dw[f] << 39
    out = []
    while which:
        low = which & -which
        which ^= low
        out.append((CARDS[low.bit_length() - 1], least))
    return out


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
