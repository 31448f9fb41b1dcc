"""What a seat's view shows of its own cards, worked out once per change of them.

A seat's view carries its cards (`my_cards`), their grouping (`my_melds`,
`my_deadwood`) and, holding eleven, `legal`'s discards and knocks with each knock's
deadwood. All of it follows from the seat's cards in their order, the card it may
not discard and the hand's knock limit, so `Hand` keeps one `Own` per seat and
makes a new one only when one of those changes (a draw, a discard, an arrangement).

The work is done on card masks and indexes: one discard solve of the eleven
(`melds.discard_least`; when no set is possible, each discard scored from its own
suit alone), the best discard picked in the same pass over the cards in their order
(ties: the first in that order, of the least deadwood and then the highest value),
and one arrangement of the ten kept (`melds.arrange_mask`; when no set is possible,
each suit's runs, kept per 13-bit pattern), whose melds are turned into text
through a table of every possible meld (329). It is exactly
`Hand.grouping`'s rule and `Hand.legal`'s list as they were computed from `Card`
lists (`tests/engine/test_own.py` checks it against that computation).
"""

from __future__ import annotations

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import CARDS, Card
from hollywood_gin.engine.melds import arrange_mask, discard_least, run_deadwoods

__all__ = ["Grouping", "Own", "grouping_of", "own_cards"]

Grouping = tuple[tuple[tuple[str, ...], ...], int]  # (melds as text, deadwood)

_BIT = tuple(1 << i for i in range(52))
_IN_SUIT = tuple(1 << (i % 13) for i in range(52))  # a card's bit in its suit's pattern
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
_T = run_deadwoods()


class _Shown(dict[int, tuple[tuple[int, tuple[str, ...]], ...]]):
    """Per 13-bit pattern of one suit, the runs `arrange_mask` makes of it, as shown:
    each run's (place in the shown order, its cards' text). Filled as patterns come
    up, for the four suits at once (at most 8,192 patterns; tuples: most patterns
    have no run, and the empty tuple is one object)."""

    def __missing__(self, pattern: int) -> tuple[tuple[int, tuple[str, ...]], ...]:
        runs = arrange_mask(pattern)[1]
        for suit, shown in enumerate(_SHOWN):
            shown[pattern] = tuple([_MELDS[m << 13 * suit] for m in runs])
        return self[pattern]


_SHOWN = (_Shown(), _Shown(), _Shown(), _Shown())


def grouping_of(mask: int) -> Grouping:
    """One least-deadwood arrangement of a mask as shown: the melds' text, in
    `melds.arrange`'s order, and the deadwood (`arrange_mask`'s arrangement)."""
    c = mask & 8191
    d = mask >> 13 & 8191
    h = mask >> 26 & 8191
    s = mask >> 39
    if (c & d & (h | s)) | (h & s & (c | d)):
        # a set is possible: the whole search
        deadwood, melds, _ = arrange_mask(mask)
        table = _MELDS
        shown = [table[m] for m in melds]
    else:
        # runs only: each suit on its own (what `arrange_mask` does without sets)
        t = _T
        deadwood = t[c] + t[d] + t[h] + t[s]
        known = _SHOWN
        shown = [*known[0][c], *known[1][d], *known[2][h], *known[3][s]]
    if len(shown) > 1:
        shown.sort()
    return tuple([texts for _, texts in shown]), deadwood


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
    mask = 0
    for card in cards:
        mask |= _BIT[card.index]
    texts = tuple([card.text for card in cards])
    if len(cards) != 11:
        if before is not None and before.ten == mask:
            grouping = before.grouping
        else:
            grouping = grouping_of(mask)
        return Own(cards, taken, texts, grouping, mask)
    banned = -1 if taken is None else taken.index
    c = mask & 8191
    d = mask >> 13 & 8191
    h = mask >> 26 & 8191
    s = mask >> 39
    t = _T
    suits = (c, d, h, s)
    total = t[c] + t[d] + t[h] + t[s]
    # With a set possible, one search for every discard; else a discard changes its
    # own suit's deadwood alone.
    least = discard_least(mask) if (c & d & (h | s)) | (h & s & (c | d)) else None
    discards = []
    knocks = []
    knock_deadwood = []
    best = -1
    best_left = 1000
    best_value = 0
    for card in cards:
        i = card.index
        if i == banned:
            continue
        if least is None:
            p = suits[i // 13]
            left = total - t[p] + t[p ^ _IN_SUIT[i]]
        else:
            left = least[i]
        discards.append(_DISCARD[i])
        if left <= knock_limit:
            knocks.append(_KNOCK[i])
            knock_deadwood.append(left)
        # The first card in the seat's order of the least (deadwood left, -value).
        if left < best_left or (left == best_left and card.value > best_value):
            best, best_left, best_value = i, left, card.value
    ten = mask ^ _BIT[best]
    # The best discard is often the card just drawn: the ten kept are then the ten
    # held before, whose grouping the seat's last `Own` has.
    grouping = before.grouping if before is not None and before.ten == ten else grouping_of(ten)
    return Own(
        cards,
        taken,
        texts,
        grouping,
        ten,
        tuple(discards),
        tuple(knocks),
        tuple(knock_deadwood),
    )
