"""One hand of Gin Rummy as a state machine (docs/rules.md "A hand").

Deal from a deck order, the upcard offer, draw and discard turns, knock and
gin with lay-offs, the end of the stock. A move is checked in full by
`Hand.validate` (which raises a `RuleError` and changes nothing) and only then
carried out by `Hand.commit`, so a refused move never leaves a half-done state.

Glossary: the *stock* is the face-down pile; the *discard pile* is the
face-up one, its first card the *upcard*; *deadwood* is the value of the
cards in no meld; the *knock limit* is the most deadwood a knock may leave.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from hollywood_gin.engine.actions import PLAY_KINDS, Action
from hollywood_gin.engine.cards import Card, format_cards, parse_cards
from hollywood_gin.engine.errors import BadAction, IllegalAction, NotYourTurn
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.layoffs import lay_off
from hollywood_gin.engine.melds import arrange, deadwood, discard_deadwoods, is_meld
from hollywood_gin.engine.moves import Move, move_of
from hollywood_gin.engine.own import Own, own_cards
from hollywood_gin.engine.scoring import score_hand
from hollywood_gin.engine.vocabulary import HAND_SIZE, WALL, HandKind, Mover, Phase, PlayKind, Rules

DEAL_SIZE = 2 * HAND_SIZE  # cards 0-19 of a deck order
UPCARD_POSITION = DEAL_SIZE  # card 20

_PLAYS: Mapping[str, PlayKind] = {k: k for k in PLAY_KINDS}
_TAKE_UPCARD, _PASS = Action.of("take_upcard"), Action.of("pass")
_DRAW_STOCK, _DRAW_DISCARD = Action.of("draw_stock"), Action.of("draw_discard")
_UPCARD_OFFER = (_TAKE_UPCARD, _PASS)
_DRAWS = (_DRAW_STOCK, _DRAW_DISCARD)
_STOCK_ONLY = (_DRAW_STOCK,)


def knock_limit(rules: Rules, upcard: Card) -> int:
    """Most deadwood a knock may leave: standard 10, straight 0 (gin only),
    oklahoma the first upcard's value, except an ace, which means gin only."""
    if rules == "standard":
        return 10
    if rules == "straight":
        return 0
    return 0 if upcard.rank == 1 else upcard.value


def deck_commitment(deck: Sequence[Card], salt: str) -> str:
    """Hex SHA-256 of `salt + ":" + ",".join(deck)`
    (docs/protocol-guide.md "Deals nobody can choose")."""
    text = salt + ":" + ",".join(str(c) for c in deck)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class SeatResult:
    """A seat's ten cards as laid out at the end of a hand (tuples: every seat's view
    of a result shares it, so nothing in it can change)."""

    melds: tuple[tuple[Card, ...], ...]
    deadwood: tuple[Card, ...]
    deadwood_value: int
    layoffs: tuple[tuple[Card, int], ...] = ()
    # The defender's least deadwood with its own melds only, before laying off
    # (None: no lay-offs were open, so it equals `deadwood_value`).
    before_layoffs: int | None = None

    @classmethod
    def of(
        cls,
        melds: Iterable[Iterable[Card]],
        deadwood: Iterable[Card],
        deadwood_value: int,
        layoffs: Iterable[tuple[Card, int]] = (),
        before_layoffs: int | None = None,
    ) -> SeatResult:
        """One from any sequences (a solver's lists)."""
        return cls(
            tuple(tuple(m) for m in melds),
            tuple(deadwood),
            deadwood_value,
            tuple(layoffs),
            before_layoffs,
        )

    def to_dict(self) -> JsonObject:
        before = self.deadwood_value if self.before_layoffs is None else self.before_layoffs
        return {
            "melds": [format_cards(m) for m in self.melds],
            "deadwood": format_cards(self.deadwood),
            "deadwood_value": self.deadwood_value,
            "deadwood_before_layoffs": before,
            "layoffs": [{"card": str(c), "meld": i} for c, i in self.layoffs],
        }


@dataclass(frozen=True, slots=True)
class HandResult:
    kind: HandKind
    knocker: int | None
    winner: int | None
    points: int
    seats: tuple[SeatResult, SeatResult]
    knock_discard: Card | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    """A validated move, ready to commit (a knock carries its computed result)."""

    seat: int
    action: Action
    result: HandResult | None = None


def _laid_out(cards: Sequence[Card]) -> SeatResult:
    melds, dead = arrange(cards)
    return SeatResult.of(melds, sorted(dead), sum(c.value for c in dead))


class Hand:
    """One hand, from the deal to its result.

    `cards[seat]` is that seat's hand in the order the seat arranged it (a
    drawn card goes to the end). `stock[-1]` is the top of the stock and
    `discard[-1]` the top of the discard pile.
    """

    def __init__(
        self,
        *,
        number: int,
        dealer: int,
        deck: Sequence[Card],
        salt: str,
        rules: Rules,
        wall: bool,
    ) -> None:
        if len(deck) != 52 or len(set(deck)) != 52:
            raise BadAction("a deck order is the 52 cards, each once")
        self.number = number
        self.dealer = dealer
        self.deck: tuple[Card, ...] = tuple(deck)
        self.salt = salt
        self.rules = rules
        self.wall = wall
        non_dealer = 1 - dealer
        self.cards: list[list[Card]] = [[], []]
        # Cards 0-19 alternate, the non-dealer taking the even positions.
        self.cards[non_dealer] = list(deck[0:DEAL_SIZE:2])
        self.cards[dealer] = list(deck[1:DEAL_SIZE:2])
        upcard = deck[UPCARD_POSITION]
        self.discard: list[Card] = [upcard]
        self.stock: list[Card] = list(reversed(deck[UPCARD_POSITION + 1 :]))
        self.knock_limit = knock_limit(rules, upcard)
        self.commitment = deck_commitment(deck, salt)
        self.turn: int | None = non_dealer
        self.phase: Phase = "upcard_offer"
        self.must_draw_stock = False  # both passed the upcard: the first draw is from the stock
        self.taken_from_discard: Card | None = None  # may not be discarded this turn
        # The card drawn this turn (stock or pile), until the turn's discard: the
        # drawing seat's view names it (`my_drawn`), no other's.
        self.drawn: Card | None = None
        self.last_action: Move | None = None
        # The hand's public moves in order, each as `last_action` (what a spectator
        # may see), so a page that reloads still shows the whole move log.
        self.events: list[Move] = []
        self.result: HandResult | None = None
        # Moves made so far (the hand's own actions are in the match's log).
        self.moves = 0
        # Per seat, what its view shows of its own cards (`own.Own`): kept until the
        # seat's cards, their order or the card it may not discard change, so `legal`
        # and `view` for every connection cost one solve per change, not one each.
        self._own: list[Own | None] = [None, None]

    # -- queries ---------------------------------------------------------

    @property
    def non_dealer(self) -> int:
        return 1 - self.dealer

    def own(self, seat: int) -> Own:
        """What `seat`'s view shows of its own cards: their text, grouping and, holding
        eleven, the discards and knocks open with each knock's deadwood."""
        cards = tuple(self.cards[seat])
        taken = self.taken_from_discard if len(cards) == 11 else None
        known = self._own[seat]
        if (
            known is None
            or known.cards != cards
            or not (known.taken is taken or known.fits(cards, taken))
        ):
            known = own_cards(cards, taken, self.knock_limit, known)
            self._own[seat] = known
        return known

    def discard_deadwoods(self, seat: int) -> dict[Card, int]:
        """For each card of an 11-card hand, the deadwood left after discarding it."""
        return discard_deadwoods(self.cards[seat])

    def grouping(self, seat: int) -> tuple[list[list[Card]], int]:
        """The seat's own melds and deadwood for display.

        Ten cards: their least-deadwood arrangement. Eleven (about to discard):
        the arrangement of the ten kept after the best allowed discard (the least
        deadwood left, then the highest value, then the first in the seat's order),
        so the count says what the player will have, as the knock buttons do.
        """
        melds, deadwood = self.own(seat).grouping
        return [parse_cards(meld) for meld in melds], deadwood

    def legal(self, seat: int) -> list[Action]:
        """The play actions open to `seat` now (`Match.view` shows each knock's deadwood)."""
        return list(self.plays(seat))

    def plays(self, seat: int, own: Own | None = None) -> tuple[Action, ...]:
        """`legal` as a tuple of the shared actions; `own`: the seat's `own(seat)`,
        when the caller has it already."""
        if self.phase == "over" or seat != self.turn:
            return ()
        if self.phase == "upcard_offer":
            return _UPCARD_OFFER
        if self.phase == "draw":
            if not self.must_draw_stock and self.discard:
                return _DRAWS
            return _STOCK_ONLY
        return (own or self.own(seat)).plays

    def needs_reshuffle(self, plan: Plan) -> bool:
        """`hand` scoring: a draw from an empty stock first turns the discard
        pile (all but its top card) into a new stock."""
        return plan.action.kind == "draw_stock" and not self.stock

    # -- moves -------------------------------------------------------------

    def validate(self, seat: int, action: Action) -> Plan:
        """Check a play action completely; change nothing.

        :raises IllegalAction: the hand is over, or the move is not open now.
        :raises NotYourTurn: a play action by the seat whose turn it is not.
        """
        if self.phase == "over":
            raise IllegalAction("the hand is over")
        if action.kind not in PLAY_KINDS:
            raise IllegalAction(f"{action.kind} is not open while a hand is played")
        if seat != self.turn:
            raise NotYourTurn("it is the other player's turn")
        kind = action.kind
        if self.phase == "upcard_offer":
            if kind not in ("take_upcard", "pass"):
                raise IllegalAction("first take the upcard or pass")
            return Plan(seat, action)
        if self.phase == "draw":
            if kind == "draw_stock":
                return Plan(seat, action)
            if kind == "draw_discard":
                if self.must_draw_stock:
                    raise IllegalAction("both passed the upcard: draw from the stock")
                if not self.discard:
                    raise IllegalAction("the discard pile is empty")
                return Plan(seat, action)
            raise IllegalAction("draw first, from the stock or the discard pile")
        # phase == "discard"
        if kind not in ("discard", "knock"):
            raise IllegalAction("discard or knock now")
        card = action.card
        assert card is not None  # `Action.check` guarantees it for both kinds
        if card not in self.cards[seat]:
            raise IllegalAction(f"{card} is not in your hand")
        if card == self.taken_from_discard:
            raise IllegalAction(f"{card} was just taken from the discard pile")
        if kind == "discard":
            return Plan(seat, action)
        return Plan(seat, action, self._knock_result(seat, card, action.melds))

    def _knock_result(
        self, seat: int, discard: Card, named: tuple[tuple[Card, ...], ...] | None
    ) -> HandResult:
        ten = [c for c in self.cards[seat] if c != discard]
        if named is None:
            knocker = _laid_out(ten)
        else:
            used: set[Card] = set()
            for meld in named:
                if not is_meld(meld):
                    raise IllegalAction(f"not a meld: {' '.join(map(str, meld))}")
                for c in meld:
                    if c not in ten:
                        raise IllegalAction(f"{c} is not among your ten cards")
                    if c in used:
                        raise IllegalAction(f"{c} is in two melds")
                    used.add(c)
            dead = sorted(c for c in ten if c not in used)
            knocker = SeatResult.of([sorted(m) for m in named], dead, sum(c.value for c in dead))
        k = knocker.deadwood_value
        if k > self.knock_limit:
            raise IllegalAction(f"deadwood {k} is over the knock limit {self.knock_limit}")
        other = 1 - seat
        if k == 0:
            # After gin the defender may not lay off.
            defender = _laid_out(self.cards[other])
        else:
            lo = lay_off(knocker.melds, self.cards[other])
            defender = SeatResult.of(
                [sorted(m) for m in lo.melds],
                sorted(lo.deadwood),
                lo.deadwood_value,
                lo.layoffs,
                deadwood(self.cards[other]),
            )
        score = score_hand(k, defender.deadwood_value)
        seats = (knocker, defender) if seat == 0 else (defender, knocker)
        winner = seat if score.knocker_wins else other
        return HandResult(score.kind, seat, winner, score.points, seats, discard)

    def reshuffle(self, order: Sequence[Card]) -> None:
        """Turn the discard pile, except its top card, into a new stock.

        `order` is the new stock, top card first (a shuffle chosen by the
        caller, so the log can record it and a replay repeat it).
        """
        if self.stock:
            raise IllegalAction("the stock is not empty")
        under = self.discard[:-1]
        if len(order) != len(under) or set(order) != set(under):
            raise BadAction("a reshuffle is a permutation of the discard pile under its top")
        self.stock = list(reversed(order))
        self.discard = self.discard[-1:]
        # The discards named in the move log are now hidden in the stock: the log
        # starts again, so no view names a card whose place is secret.
        self.events = []

    def commit(self, plan: Plan, by: Mover | None = None) -> None:
        """Carry out a move that `validate` accepted; `by`: who made it for the seat
        (the turn clock, a stand-in), None when the seat moved itself."""
        seat, action = plan.seat, plan.action
        kind = action.kind
        hand = self.cards[seat]
        self.moves += 1
        shown: str | None = None  # the move's card, where everyone sees it
        if kind in ("take_upcard", "draw_discard"):
            # Both take the top of the discard pile, face up, and ban it as this turn's discard.
            card = self.discard.pop()
            hand.append(card)
            self.taken_from_discard = self.drawn = card
            self.phase = "discard"
            shown = str(card)
        elif kind == "pass":
            if seat == self.non_dealer:
                self.turn = self.dealer
            else:
                self.turn = self.non_dealer
                self.phase = "draw"
                self.must_draw_stock = True
        elif kind == "draw_stock":
            self.drawn = self.stock.pop()  # out of `last`: it is private
            hand.append(self.drawn)
            self.phase = "discard"
        elif kind == "discard":
            assert action.card is not None
            hand.remove(action.card)
            self.discard.append(action.card)
            shown = str(action.card)
            self._end_turn()
            if self.wall and len(self.stock) == WALL:
                self._end_as_draw()
        else:  # knock
            assert action.card is not None and plan.result is not None
            hand.remove(action.card)
            self.result = plan.result
            self.phase = "over"
            self.turn = None
        play = _PLAYS[kind]  # `validate` let only a play through
        last = move_of(seat, play, shown, by)
        self.last_action = last
        self.events.append(last)

    def _end_turn(self) -> None:
        assert self.turn is not None
        self.turn = 1 - self.turn
        self.phase = "draw"
        self.must_draw_stock = False
        self.taken_from_discard = self.drawn = None

    def _end_as_draw(self) -> None:
        seats = (_laid_out(self.cards[0]), _laid_out(self.cards[1]))
        self.result = HandResult("draw", None, None, 0, seats)
        self.phase = "over"
        self.turn = None

    def arrange(self, seat: int, cards: Sequence[object]) -> None:
        """Store the order the seat keeps its cards in.

        :raises BadAction: not a permutation of the seat's cards.
        """
        if not isinstance(cards, list | tuple):
            raise BadAction("`cards` is a list of cards")
        order = parse_cards(cards)
        if len(order) != len(self.cards[seat]) or set(order) != set(self.cards[seat]):
            raise BadAction("arrange takes exactly the cards in your hand")
        self.cards[seat] = order
