"""Where the cards come from: the one thing `Match` asks for each deal and reshuffle.

A `Match` is given one dealer. `Dealer` shuffles with its `rng` (production:
`secrets.SystemRandom()`), after dealing any stacked deck orders first and with
a fixed first dealer if asked (tests, the server's test hooks). `Replayed` deals
what a log recorded, checking that each deal follows from the log's actions, and
hands over to another dealer once the replay is done.
"""

from __future__ import annotations

import random
import secrets
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from hollywood_gin.engine.cards import Card, full_deck, parse_cards
from hollywood_gin.engine.errors import BadAction, NotSeated


def check_seat(seat: object) -> int:
    """A seat number, 0 or 1.

    :raises NotSeated: anything else.
    """
    if isinstance(seat, bool) or seat not in (0, 1):
        raise NotSeated("a seat is 0 or 1")
    return 0 if seat == 0 else 1


class Deals(Protocol):
    """What a match asks of its dealer."""

    def first_dealer(self) -> int:
        """Who deals the match's first hand."""
        ...

    def deal(self, number: int, dealer: int) -> tuple[list[Card], str]:
        """Hand `number`'s deck order (52 cards) and its salt."""
        ...

    def reshuffle(self, number: int, under: list[Card]) -> list[Card]:
        """A new stock, top card first, from the discard pile under its top (`hand` scoring)."""
        ...


class Dealer:
    """Shuffles with `rng`; stacked `decks` are dealt first, in turn (tests)."""

    def __init__(
        self,
        rng: random.Random | None = None,
        decks: Iterable[Sequence[Card | str]] = (),
        first_dealer: int | None = None,
    ) -> None:
        self.rng: random.Random = rng if rng is not None else secrets.SystemRandom()
        self._decks = deque(decks)
        self._first = None if first_dealer is None else check_seat(first_dealer)

    def first_dealer(self) -> int:
        return self._first if self._first is not None else self.rng.randrange(2)

    def deal(self, number: int, dealer: int) -> tuple[list[Card], str]:
        if self._decks:
            order = self._decks.popleft()
            deck = [c if isinstance(c, Card) else Card.parse(c) for c in order]
        else:
            deck = full_deck()
            self.rng.shuffle(deck)
        return deck, f"{self.rng.getrandbits(128):032x}"

    def reshuffle(self, number: int, under: list[Card]) -> list[Card]:
        order = list(under)
        self.rng.shuffle(order)
        return order


class Replayed:
    """Deals and reshuffles as a log recorded them; then, once `done`, as `then` does.

    :raises BadAction: (from `deal`, `reshuffle`, `done`) the log's deals do not
        follow from its actions, or it has deals or reshuffles its actions never reach.
    """

    def __init__(self, events: Iterable[Mapping[str, Any]], then: Deals) -> None:
        events = list(events)
        self._deals = deque(e for e in events if e.get("event") == "deal")
        self._reshuffles = deque(e for e in events if e.get("event") == "reshuffle")
        self._then = then
        self._replaying = True

    def first_dealer(self) -> int:
        if not self._replaying:
            return self._then.first_dealer()
        return check_seat(self._deals[0]["dealer"]) if self._deals else 0

    def deal(self, number: int, dealer: int) -> tuple[list[Card], str]:
        if not self._replaying:
            return self._then.deal(number, dealer)
        if not self._deals:
            raise BadAction("the log ends before this deal")
        event = self._deals.popleft()
        if event.get("hand") != number or event.get("dealer") != dealer:
            raise BadAction(f"the log's deal {number} does not follow from its actions")
        return parse_cards(event["deck"]), str(event["salt"])

    def reshuffle(self, number: int, under: list[Card]) -> list[Card]:
        if not self._replaying:
            return self._then.reshuffle(number, under)
        if not self._reshuffles:
            raise BadAction("the log lacks a reshuffle here")
        return parse_cards(self._reshuffles.popleft()["stock"])

    def done(self) -> None:
        """The log is replayed: every recorded deal and reshuffle must have been used."""
        if self._deals or self._reshuffles:
            raise BadAction("the log has deals or reshuffles that its actions do not reach")
        self._replaying = False
