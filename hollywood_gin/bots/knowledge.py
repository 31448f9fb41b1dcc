"""What a seat knows: built only from the views it has been sent.

`Seen` is one decision's knowledge as plain masks (a card's bit is
`1 << card.index`, as in `hollywood_gin.engine.cards`). `BotMemory` folds a seat's
successive views into a `Seen`: which cards lie in the discard pile (in
order), which cards the opponent took from it and still holds, and which
cards the opponent threw or declined (a hint of what it does not collect).
Nothing here ever looks at anything but the views, so hidden cards cannot
leak into a decision.
"""

from __future__ import annotations

from dataclasses import dataclass

from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.moves import CardMove
from hollywood_gin.engine.views import HandView, View
from hollywood_gin.engine.vocabulary import walled

FULL = (1 << 52) - 1
TAKES = ("take_upcard", "draw_discard")
TOOK, THREW = 0, 1  # the kinds of `Seen.opp_log`


def bit(text: object) -> int:
    """The mask bit of a card in notation; 0 for anything that is not a card."""
    if not isinstance(text, str):
        return 0
    try:
        return Card.parse(text).bit
    except ValueError:
        return 0


def index_of(text: object) -> int:
    """A card's index, or -1 for anything that is not a card."""
    b = bit(text)
    return b.bit_length() - 1 if b else -1


def mask_of_texts(texts: object) -> int:
    mask = 0
    if isinstance(texts, list | tuple):
        for t in texts:
            mask |= bit(t)
    return mask


@dataclass(slots=True)
class Seen:
    """One seat's knowledge at one decision (all cards as indices or masks)."""

    me: int
    hand: int  # my cards
    pile: tuple[int, ...]  # the discard pile cards known, bottom to top (top last)
    dead: int  # the same cards as a mask
    pile_count: int  # how many cards the pile holds (some may be unknown)
    opp_has: int  # cards the opponent took from the pile and still holds
    opp_threw: int  # cards the opponent discarded or declined this hand
    opp_count: int
    stock_count: int
    knock_limit: int
    wall: bool  # game/hollywood: the last two stock cards are never drawn
    phase: str
    dealer: int
    turn: int | None
    forbidden: int = -1  # the card I just took from the pile: not discardable this turn
    # the opponent's plain discards this hand (at least): after one, its ten cards
    # are ones it chose not to knock with
    opp_discards: int = 0
    # the opponent's knocks in earlier hands at this table, as (its deadwood, stock
    # draws left then, knock limit): how low and how late it knocks
    opp_knocks: tuple[tuple[int, int, int], ...] = ()
    # the opponent's pile takes and plain discards this hand, in order, as (kind, card,
    # stock cards then): kind TOOK or THREW; between two discards it drew once, from
    # the stock when no take is logged (`worlds.sample_opponent` with `Budget.history`)
    opp_log: tuple[tuple[int, int, int], ...] = ()

    @property
    def top(self) -> int:
        return self.pile[-1] if self.pile else -1

    @property
    def drawable(self) -> int:
        """Stock draws left before the hand ends (the wall keeps two)."""
        return max(0, self.stock_count - (2 if self.wall else 0))


class BotMemory:
    """Folds one seat's views of one table into what that seat has seen.

    Feed it every view the seat receives, in order (`observe`); a view seen
    twice (same version, e.g. after an `arrange`) is ignored. A gap in the
    views costs only precision: the pile is then known from its top alone.
    """

    def __init__(self) -> None:
        self._hand_key: tuple[int, str] | None = None
        self._version: int | None = None
        self._pile: list[int] = []
        self._opp_has = 0
        self._opp_threw = 0
        self._opp_discards = 0
        self._opp_log: list[tuple[int, int, int]] = []
        self._opp_knocks: list[tuple[int, int, int]] = []
        self._counted: tuple[int, str] | None = None  # the hand whose result is in _opp_knocks
        self._stock_count = -1
        self._top = -1

    def observe(self, view: View) -> None:
        hand = view.hand
        if hand is None:
            return
        me = view.you
        key = (hand.number, hand.deck_commitment)
        top = index_of(hand.discard_top)
        stock_count = hand.stock_count
        if key != self._hand_key:
            self._hand_key = key
            self._pile = [top] if top >= 0 else []
            self._opp_has = 0
            self._opp_threw = 0
            self._opp_discards = 0
            self._opp_log = []
            self._version = view.version
            self._stock_count = stock_count
            self._top = top
            self._note_last(hand, me, stock_count, fresh=True)
            self._settle(view, hand, top)
            self._note_knock(view, hand, me, key, stock_count)
            return
        if view.version == self._version:
            return
        self._version = view.version
        if self._stock_count >= 0 and stock_count > self._stock_count:
            # `hand` scoring turned the pile under its top into a new stock
            self._pile = self._pile[-1:]
        self._note_last(hand, me, stock_count, fresh=False)
        self._stock_count = stock_count
        self._settle(view, hand, top)
        self._note_knock(view, hand, me, key, stock_count)

    def _note_knock(
        self, view: View, hand: HandView, me: int | None, key: tuple[int, str], stock_count: int
    ) -> None:
        """At a hand's end: if the opponent knocked, how low and how late."""
        if hand.outcome is None or key == self._counted:
            return
        self._counted = key
        result = hand.outcome.result
        knocker = result.knocker
        if knocker is None or knocker == me:
            return
        left = max(0, stock_count - (2 if walled(view.table.scoring) else 0))
        self._opp_knocks.append((result.seats[knocker].deadwood_value, left, hand.knock_limit))
        del self._opp_knocks[:-20]  # the latest hands say the most

    def _note_last(self, hand: HandView, me: int | None, stock: int, *, fresh: bool) -> None:
        last = hand.last_action
        if last is None:
            return
        kind = last.kind
        card = index_of(last.card) if isinstance(last, CardMove) else -1
        mine = last.seat == me
        if kind in TAKES and card >= 0:
            if self._pile and self._pile[-1] == card:
                self._pile.pop()
            elif card in self._pile:
                self._pile.remove(card)
            if not mine:
                self._opp_has |= 1 << card
                self._opp_log.append((TOOK, card, stock))
        elif kind == "discard" and card >= 0:
            if not fresh or not self._pile or self._pile[-1] != card:
                if card in self._pile:
                    self._pile.remove(card)
                self._pile.append(card)
            if not mine:
                self._opp_has &= ~(1 << card)
                self._opp_threw |= 1 << card
                self._opp_discards += 1
                self._opp_log.append((THREW, card, stock))
        elif kind in ("pass", "draw_stock") and not mine and self._top >= 0 and not fresh:
            # the opponent could have had this card and did not want it
            self._opp_threw |= 1 << self._top

    def _settle(self, view: View, hand: HandView, top: int) -> None:
        """Make the memory agree with the view, trusting the view where they differ."""
        if top < 0:
            self._pile = []
        elif not self._pile or self._pile[-1] != top or len(self._pile) > hand.discard_count:
            self._pile = [top]
        if view.mine is not None:
            self._opp_has &= ~mask_of_texts(view.mine.cards)
        for i in self._pile:
            self._opp_has &= ~(1 << i)
        self._top = top

    def seen(self, view: View) -> Seen | None:
        """The knowledge for the current decision of this view (None outside a hand)."""
        self.observe(view)
        hand, mine, me = view.hand, view.mine, view.you
        if hand is None or mine is None or me is None:
            return None
        forbidden = -1
        last = hand.last_action
        if (
            hand.phase == "discard"
            and isinstance(last, CardMove)
            and last.seat == me
            and last.kind in TAKES
        ):
            forbidden = index_of(last.card)
        return Seen(
            me=me,
            hand=mask_of_texts(mine.cards),
            pile=tuple(self._pile),
            dead=sum(1 << i for i in self._pile),
            pile_count=hand.discard_count,
            opp_has=self._opp_has,
            opp_threw=self._opp_threw,
            opp_count=mine.opponent_card_count,
            stock_count=self._stock_count,
            knock_limit=hand.knock_limit,
            wall=walled(view.table.scoring),
            phase=hand.phase,
            dealer=hand.dealer,
            turn=hand.turn,
            forbidden=forbidden,
            opp_discards=self._opp_discards,
            opp_knocks=tuple(self._opp_knocks),
            opp_log=tuple(self._opp_log),
        )
