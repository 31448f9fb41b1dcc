"""What a seat's view shows of its own cards, worked out once per change of them.

A seat's view carries its cards (`my_cards`), their grouping (`my_melds`,
`my_deadwood`) and, holding eleven, `legal`'s discards and knocks with each knock's
deadwood. All of it follows from the seat's cards in their order, the card it may
not discard and the hand's knock limit, so `Hand` keeps one `Own` per seat and
makes a new one only when one of those changes (a draw, a discard, an arrangement).

The work is done on card masks and 13-bit suit patterns, and each step is a few
table lookups rather than a pass over the cards. Holding eleven, the best discard
(the least deadwood left, then the highest value, then the first in the seat's
order) is found without scoring every discard: a discard's deadwood is a choice of
sets' total less its suit's run deadwood plus that suit's without the card, so per
suit pattern a table keeps the best drop (`_KEY`: 16 times the change of the suit's
run deadwood less the card's value, so one `min` settles deadwood and value) and
the cards that reach it (`_WHICH`); the best over the suits of every choice of sets
(`melds.set_states`; none when no rank can make a set) is the best discard, and
the seat's order breaks a tie. Every discard is scored (`melds.discard_least`) only
when a knock is open or the best is the card it may not discard. The ten kept are
then grouped (`grouping_of`: the same choice of sets as `melds.arrange_mask`, each
suit's runs kept as text per 13-bit pattern). Cards are read written out, not in a
loop: in CPython 3.11 a loop's step, or a `map` through a slot wrapper, costs
several times an unpacked attribute read. It is exactly `Hand.grouping`'s rule and
`Hand.legal`'s list as they were computed from `Card` lists
(`tests/engine/test_own.py` checks it against that computation).
"""

from __future__ import annotations

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import CARDS, Card
from hollywood_gin.engine.melds import (
    discard_least,
    drop_tables,
    lone_drops,
    run_choices,
    run_deadwoods,
    set_states,
)

__all__ = ["Grouping", "Own", "grouping_of", "own_cards"]

Grouping = tuple[tuple[tuple[str, ...], ...], int]  # (melds as text, deadwood)

_BIT = tuple(1 << i for i in range(52))
_DISCARD = tuple(Action.of("discard", c) for c in CARDS)
_KNOCK = tuple(Action.of("knock", c) for c in CARDS)


def _meld_table() -> dict[int, tuple[int, tuple[str, ...]]]:
    """Every meld's mask: (its place in the shown order, its cards' text in index order).

    A meld is shown in index order (a run by rank, a set by suit C D H S) and the
    melds by their first card's rank, then suit: as `melds.arrange` shows them.
    """
    table: dict[int, tuple[int, tuple[str, ...]]] = {}

    def add(indexes: list[int]) -> None:
        mask = 0
        for i in indexes:
            mask |= _BIT[i]
        first = CARDS[indexes[0]]
        table[mask] = (first.rank * 4 + first.index // 13, tuple(CARDS[i].text for i in indexes))

    for suit in range(4):
        for low in range(13):
            for high in range(low + 2, 13):
                add([suit * 13 + r for r in range(low, high + 1)])
    for rank in range(13):
        suits = [s * 13 + rank for s in range(4)]
        add(suits)
        for left_out in range(4):
            add([i for i in suits if i != suits[left_out]])
    return table


_MELDS = _meld_table()
# Each meld's text by its mask, and its place in the shown order by its text.
_TEXT = {mask: texts for mask, (_, texts) in _MELDS.items()}
_PLACE = {texts: place for place, texts in _MELDS.values()}
_T = run_deadwoods()
_LONE = lone_drops()
# By a rank's bit in a suit's 13-bit pattern, the mask of that rank's four cards.
_RANK = {1 << r: sum(1 << (13 * suit + r) for suit in range(4)) for r in range(13)}


def _runs_table() -> tuple[list[tuple[tuple[str, ...], ...]], ...]:
    """Per suit, by 13-bit pattern, the text of each run `arrange_mask` makes of
    the pattern, lowest first (built once: the hot path never misses).

    As `melds._runs_of` reads the choice table from the lowest card: that card is
    deadwood, or starts a run of n; the pattern's runs are then those of what is
    left, the run first, joined to the next one when they touch. Patterns with the
    same runs share one tuple (most patterns have none: the empty tuple).
    """
    choice = run_choices()
    spans: list[tuple[tuple[int, int], ...]] = [()] * (1 << 13)  # (low, past the high) ranks
    for p in range(1, 1 << 13):
        low = p & -p
        r = low.bit_length() - 1
        n = choice[p]
        if not n:
            spans[p] = spans[p ^ low]
            continue
        after = spans[p ^ ((1 << n) - 1) << r]
        if after and after[0][0] == r + n:
            spans[p] = ((r, after[0][1]), *after[1:])
        else:
            spans[p] = ((r, r + n), *after)
    tables = []
    for suit in range(4):
        shared: dict[tuple[tuple[int, int], ...], tuple[tuple[str, ...], ...]] = {}
        for runs in spans:
            if runs not in shared:
                shared[runs] = tuple(
                    _TEXT[((1 << high) - (1 << low)) << 13 * suit] for low, high in runs
                )
        tables.append([shared[runs] for runs in spans])
    return tuple(tables)


_RUNS = _runs_table()


def _drop_tables() -> tuple[list[int], list[int]]:
    """Per 13-bit pattern of one suit: the least, over its cards, of 16 times what
    dropping the card does to the suit's run deadwood less the card's value, and
    the cards (a pattern) that reach it. A discard's deadwood is at most a few
    hundred and a value 1 to 10, so 16 times the one less the other orders by the
    deadwood, then by the highest value. The empty pattern has nothing to drop.

    From `melds.drop_tables` (the least drop and the cards that reach it): of those,
    the highest value is the highest rank's, or every ten and face among them.
    """
    t = _T
    drop_least, drop_which = drop_tables()
    key = [_NO_CARD] * (1 << 13)
    which = [0] * (1 << 13)
    for p in range(1, 1 << 13):
        w = drop_which[p]
        rank = w.bit_length()  # the highest rank among them
        if rank >= 10:
            key[p] = 16 * (drop_least[p] - t[p]) - 10
            which[p] = w & _TENS
        else:
            key[p] = 16 * (drop_least[p] - t[p]) - rank
            which[p] = 1 << (rank - 1)
    return key, which


_TENS = 0b1111 << 9  # the ten, jack, queen and king in a suit's pattern
_NO_CARD = 1 << 20  # above any key
_KEY, _WHICH = _drop_tables()


def grouping_of(mask: int) -> Grouping:
    """One least-deadwood arrangement of a mask as shown: the melds' text, in
    `melds.arrange`'s order, and the deadwood (`arrange_mask`'s arrangement)."""
    t = _T
    runs = _RUNS
    lo = mask & 0x3FFFFFF
    hi = mask >> 26
    c = lo & 8191
    d = lo >> 13
    h = hi & 8191
    s = hi >> 13
    three = (c & d & (h | s)) | (h & s & (c | d))
    melds: tuple[tuple[str, ...], ...]
    if not three:
        # runs only: each suit on its own (what `arrange_mask` does without sets)
        deadwood = t[c] + t[d] + t[h] + t[s]
        melds = runs[0][c] + runs[1][d] + runs[2][h] + runs[3][s]
    else:
        # A set is possible: `arrange_mask`'s choice of sets (the first choice, in
        # `melds.set_states`' order, of the least deadwood), then each suit's runs.
        nr = _LONE[three]
        if nr and not c & d & h & s & three:
            # one rank, in exactly three suits: no set, or that set
            deadwood = t[c] + t[d] + t[h] + t[s]
            a, b, e, f = c & nr, d & nr, h & nr, s & nr
            bare = t[a] + t[b] + t[e] + t[f]
            if bare < deadwood:
                deadwood = bare
                melds = (_TEXT[mask & _RANK[three]],) + (
                    runs[0][a] + runs[1][b] + runs[2][e] + runs[3][f]
                )
            else:
                melds = runs[0][c] + runs[1][d] + runs[2][h] + runs[3][s]
        else:
            states = set_states(c, d, h, s, three)
            a, b, e, f = states[0]
            deadwood = t[a] + t[b] + t[e] + t[f]
            for q in states:
                v = t[q[0]] + t[q[1]] + t[q[2]] + t[q[3]]
                if v < deadwood:
                    (a, b, e, f), deadwood = q, v
            melds = runs[0][a] + runs[1][b] + runs[2][e] + runs[3][f]
            # the sets: per rank that may make one, its cards the choice took out
            taken = mask ^ (a | b << 13 | e << 26 | f << 39)
            while three:
                r = three & -three
                three ^= r
                in_set = taken & _RANK[r]
                if in_set:
                    melds = (_TEXT[in_set], *melds)
    if len(melds) > 1:
        melds = tuple(sorted(melds, key=_PLACE.__getitem__))
    return melds, deadwood


class Own:
    """One seat's own part of its view, for one order of its cards.

    `discards`, `knocks`, `plays` (the two, as `legal` lists them) and
    `knock_deadwood` are empty unless the seat holds eleven (its turn to discard);
    `ten` is then the mask of the ten kept after the best discard, whose grouping
    `grouping` is.
    """

    __slots__ = (
        "cards",
        "discards",
        "grouping",
        "knock_deadwood",
        "knocks",
        "plays",
        "taken",
        "ten",
        "texts",
    )

    def __init__(
        self,
        cards: tuple[Card, ...],
        taken: Card | None,
        texts: tuple[str, ...],
        grouping: Grouping,
        ten: int,
        discards: tuple[Action, ...] = (),
        knocks: tuple[Action, ...] = (),
        knock_deadwood: tuple[int, ...] = (),
    ) -> None:
        self.cards = cards
        self.taken = taken
        self.texts = texts
        self.grouping = grouping
        self.ten = ten
        self.discards = discards
        self.knocks = knocks
        self.knock_deadwood = knock_deadwood
        # `legal`'s play actions holding eleven: the discards, then the knocks.
        self.plays = discards + knocks

    def fits(self, cards: tuple[Card, ...], taken: Card | None) -> bool:
        """Whether this is the `Own` of these cards in this order with this banned card."""
        return self.cards == cards and self.taken == taken


def own_cards(
    cards: tuple[Card, ...], taken: Card | None, knock_limit: int, before: Own | None = None
) -> Own:
    """A seat's `Own`: `cards` in the seat's order; `taken` the card it may not discard
    (holding eleven); `before` the seat's last `Own`, whose grouping of its ten is
    reused when these are those ten, or when those are the ten these keep."""
    texts: tuple[str, ...]
    mask: int
    n = len(cards)
    if n == 10:
        c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 = cards
        texts = (
            c0.text, c1.text, c2.text, c3.text, c4.text,
            c5.text, c6.text, c7.text, c8.text, c9.text,
        )  # fmt: skip
        # Summed as floats: exact (52 bits fit a double), and no int made an add.
        mask = (
            c0.fbit + c1.fbit + c2.fbit + c3.fbit + c4.fbit
            + c5.fbit + c6.fbit + c7.fbit + c8.fbit + c9.fbit
        ).__trunc__()  # fmt: skip
    elif n != 11:
        mask = sum([card.bit for card in cards])
        texts = tuple([card.text for card in cards])
    if n != 11:
        if before is not None and before.ten == mask:
            grouping = before.grouping
        else:
            grouping = grouping_of(mask)
        return Own(cards, taken, texts, grouping, mask)
    c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10 = cards
    texts = (
        c0.text, c1.text, c2.text, c3.text, c4.text, c5.text,
        c6.text, c7.text, c8.text, c9.text, c10.text,
    )  # fmt: skip
    mask = (
        c0.fbit + c1.fbit + c2.fbit + c3.fbit + c4.fbit + c5.fbit
        + c6.fbit + c7.fbit + c8.fbit + c9.fbit + c10.fbit
    ).__trunc__()  # fmt: skip
    t = _T
    key = _KEY
    which = _WHICH
    lo = mask & 0x3FFFFFF
    hi = mask >> 26
    c = lo & 8191
    d = lo >> 13
    h = hi & 8191
    s = hi >> 13
    # The best key (16 * the deadwood left - the card's value) over every discard,
    # and the cards that reach it (`best`, a mask).
    three = (c & d & (h | s)) | (h & s & (c | d))
    if not three:
        # No set: a discard changes its own suit's run deadwood alone.
        ka, kb, ke, kf = key[c], key[d], key[h], key[s]
        least = min(ka, kb, ke, kf)
        left = t[c] + t[d] + t[h] + t[s] + ((least + 15) >> 4)
        best = which[c] if ka == least else 0
        if kb == least:
            best |= which[d] << 13
        if ke == least:
            best |= which[h] << 26
        if kf == least:
            best |= which[s] << 39
    elif (nr := _LONE[three]) and not c & d & h & s & three:
        # One rank in exactly three suits: a discard from each suit with no set, or
        # from each suit less that rank with the set.
        whole = (t[c] + t[d] + t[h] + t[s]) << 4
        a, b, e, f = c & nr, d & nr, h & nr, s & nr
        bare = (t[a] + t[b] + t[e] + t[f]) << 4
        ka, kb, ke, kf = whole + key[c], whole + key[d], whole + key[h], whole + key[s]
        ma, mb, me, mf = bare + key[a], bare + key[b], bare + key[e], bare + key[f]
        least = min(ka, kb, ke, kf, ma, mb, me, mf)
        left = (least + 15) >> 4
        best = which[c] if ka == least else 0
        if kb == least:
            best |= which[d] << 13
        if ke == least:
            best |= which[h] << 26
        if kf == least:
            best |= which[s] << 39
        if ma == least:
            best |= which[a]
        if mb == least:
            best |= which[b] << 13
        if me == least:
            best |= which[e] << 26
        if mf == least:
            best |= which[f] << 39
    else:
        # Each choice of sets: a discard from a suit's pattern left by it.
        least = _NO_CARD
        best = 0
        for a, b, e, f in set_states(c, d, h, s, three):
            total = (t[a] + t[b] + t[e] + t[f]) << 4
            k = total + key[a]
            if k <= least:
                if k < least:
                    least, best = k, which[a]
                else:
                    best |= which[a]
            k = total + key[b]
            if k <= least:
                if k < least:
                    least, best = k, which[b] << 13
                else:
                    best |= which[b] << 13
            k = total + key[e]
            if k <= least:
                if k < least:
                    least, best = k, which[e] << 26
                else:
                    best |= which[e] << 26
            k = total + key[f]
            if k <= least:
                if k < least:
                    least, best = k, which[f] << 39
                else:
                    best |= which[f] << 39
        left = (least + 15) >> 4
    if taken is not None and best & taken.bit:
        best ^= taken.bit  # it may not be discarded
    D = _DISCARD
    discards: tuple[Action, ...] = (
        D[c0.index], D[c1.index], D[c2.index], D[c3.index], D[c4.index], D[c5.index],
        D[c6.index], D[c7.index], D[c8.index], D[c9.index], D[c10.index],
    )  # fmt: skip
    if taken is not None and taken.text in texts:
        at = texts.index(taken.text)  # (by text: a card's `==` is a Python call)
        discards = discards[:at] + discards[at + 1 :]
    knocks: tuple[Action, ...] = ()
    knock_deadwood: tuple[int, ...] = ()
    if not best or left <= knock_limit:
        # The best is the banned card, or a knock is open: every discard scored.
        knocks, knock_deadwood, best = _scored(cards, mask, taken, knock_limit)
    elif best & (best - 1):
        # a tie (the same deadwood left, the same value): the first in the seat's order
        for card in cards:
            if card.bit & best:
                best = card.bit
                break
    ten = mask ^ best
    # The best discard is often the card just drawn: the ten kept are then the ten
    # held before, whose grouping the seat's last `Own` has.
    grouping = before.grouping if before is not None and before.ten == ten else grouping_of(ten)
    return Own(cards, taken, texts, grouping, ten, discards, knocks, knock_deadwood)


def _scored(
    cards: tuple[Card, ...], mask: int, taken: Card | None, knock_limit: int
) -> tuple[tuple[Action, ...], tuple[int, ...], int]:
    """Eleven cards, every discard scored (one search, `discard_least`): the knocks
    open with each one's deadwood, and the best discard's bit (the first in the
    seat's order of the least deadwood left, then the highest value)."""
    least = discard_least(mask)
    knocks = []
    knock_deadwood = []
    best = 0
    best_key = _NO_CARD
    banned = -1 if taken is None else taken.index
    for card in cards:
        if card.index == banned:
            continue
        left = least[card.index]
        if left <= knock_limit:
            knocks.append(_KNOCK[card.index])
            knock_deadwood.append(left)
        k = 16 * left - card.value
        if k < best_key:
            best, best_key = card.bit, k
    return tuple(knocks), tuple(knock_deadwood), best
