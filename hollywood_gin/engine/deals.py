"""A match's deals: the next deal's server secret, committed to before the seats add
their entropy, and the deck each deal is made from
(docs/protocol-guide.md "Deals nobody can choose").

A `Match` owns one `DealBook` and asks it, in this order, for each deal: `open`
(commit to its secret), `add` (a seat's entropy, between hands), `deck` (the cards)
and `dealt` (the deal is made: what it came from is now `revealed`). The book
writes nothing itself: the events it returns are the match's to log. Where the
cards come from (a shuffle, a stacked test deck, a replayed log) is the injected
dealer's (`hollywood_gin.engine.dealer`).
"""

from __future__ import annotations

from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.dealer import Deals, secret_commitment
from hollywood_gin.engine.errors import IllegalAction
from hollywood_gin.engine.events import Deal, DealSource, Entropy, NextDeal

# What a dealt hand's deck came from: the server secret (hex) and each seat's entropy.
Revealed = tuple[str | None, tuple[str | None, str | None]]


class PendingDeal:
    """The deal not yet made: its server secret (None: not derived from secrets, a
    test deck or an old log) and what each seat has added (hex, or None)."""

    __slots__ = ("commitment", "entropy", "hand", "secret")

    def __init__(self, hand: int, secret: bytes | None) -> None:
        self.hand = hand
        self.secret = secret
        self.commitment = None if secret is None else secret_commitment(secret)
        self.entropy: list[str | None] = [None, None]

    def fair(self) -> tuple[bytes, list[bytes | None]] | None:
        """What the dealer derives the deck from (None: no secret)."""
        if self.secret is None:
            return None
        return self.secret, [None if e is None else bytes.fromhex(e) for e in self.entropy]


class DealBook:
    """The deal being prepared (from the end of the hand before it, or the table's
    creation, until it is dealt) and what the last dealt hand was derived from."""

    __slots__ = ("_dealer", "_next", "_revealed")

    def __init__(self, dealer: Deals) -> None:
        self._dealer = dealer
        self._next: PendingDeal | None = None
        self._revealed: Revealed = (None, (None, None))

    def first_dealer(self) -> int:
        """Who deals the match's first hand."""
        return self._dealer.first_dealer()

    def open(self, number: int) -> NextDeal | None:
        """Commit to deal `number`'s server secret, before any seat can add entropy;
        the commitment's event to log (None: the deal is not derived from a secret)."""
        self._next = PendingDeal(number, self._dealer.secret(number))
        secret = self._next.secret
        return None if secret is None else NextDeal(number, secret.hex())

    @property
    def pending(self) -> bool:
        """Whether a deal is prepared (committed to, not yet dealt)."""
        return self._next is not None

    @property
    def commitment(self) -> str | None:
        """The commitment (hex) to the prepared deal's server secret, if any."""
        return None if self._next is None else self._next.commitment

    def add(self, seat: int, entropy: str) -> Entropy:
        """`seat`'s entropy (checked hex) for the prepared deal; the event to log.

        :raises IllegalAction: no deal is prepared, or the seat's entropy for it is
            recorded already.
        """
        pending = self._next
        if pending is None:
            raise IllegalAction("entropy is added between hands, before the deal")
        if pending.entropy[seat] is not None:
            raise IllegalAction("this seat's entropy for this deal is recorded already")
        pending.entropy[seat] = entropy
        return Entropy(pending.hand, seat, entropy)

    def withdraw(self, seat: int) -> None:
        """Forget `seat`'s entropy again (what `add` recorded, when the move it came
        with is refused)."""
        if self._next is not None:
            self._next.entropy[seat] = None

    def deck(self, number: int, dealer: int) -> tuple[list[Card], str]:
        """Deal `number`'s deck order (52 cards) and salt, from its secret and the
        seats' entropy when it was committed to. Changes nothing here."""
        pending = self._prepared(number)
        return self._dealer.deal(number, dealer, None if pending is None else pending.fair())

    def dealt(self, number: int) -> DealSource | None:
        """Deal `number` is made: what it was derived from, now `revealed` (None:
        neither a secret nor entropy went into it)."""
        pending = self._prepared(number)
        self._next = None
        secret = None if pending is None or pending.secret is None else pending.secret.hex()
        entropy = (None, None) if pending is None else (pending.entropy[0], pending.entropy[1])
        self._revealed = (secret, entropy)
        derived = secret is not None or entropy != (None, None)
        return DealSource(secret, entropy) if derived else None

    @property
    def revealed(self) -> Revealed:
        """What the last dealt hand's deck was derived from (its reveal)."""
        return self._revealed

    def resume(self, deal: Deal) -> None:
        """A compacted log starts at `deal`: prepare it as its event says it was."""
        source = deal.source
        secret = None if source is None else source.server_secret
        pending = PendingDeal(deal.hand, None if secret is None else bytes.fromhex(secret))
        if source is not None:
            pending.entropy = list(source.entropy)
        self._next = pending

    def reshuffle(self, number: int, under: list[Card]) -> list[Card]:
        """Hand `number`'s new stock, top card first, from the discard pile under its top."""
        return self._dealer.reshuffle(number, under)

    def _prepared(self, number: int) -> PendingDeal | None:
        known = self._next
        return known if known is not None and known.hand == number else None
