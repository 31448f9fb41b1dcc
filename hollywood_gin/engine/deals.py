"""A match's next deal (PROTOCOL.md "Deals nobody can choose"): the commitment to
its server secret, the entropy each seat adds before it, and what it was dealt from.

Plain functions on the `Match`, which keeps the state (`_next`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hollywood_gin.engine.dealer import check_entropy, check_seat, secret_commitment
from hollywood_gin.engine.errors import IllegalAction
from hollywood_gin.engine.events import Deal, Entropy, NextDeal

if TYPE_CHECKING:
    from hollywood_gin.engine.match import Match


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


def open_deal(match: Match, number: int) -> None:
    """Commit to deal `number`'s server secret, before any seat can add entropy."""
    match._next = PendingDeal(number, match._dealer.secret(number))
    if match._next.secret is not None:
        match.log.append(NextDeal(number, match._next.secret.hex()))


def pending(match: Match, number: int) -> PendingDeal | None:
    """The pending deal if it is deal `number`'s."""
    known = match._next
    return known if known is not None and known.hand == number else None


def contribute(match: Match, seat: int, entropy: object) -> None:
    """`Match.contribute`: record `seat`'s entropy for the next deal."""
    seat = check_seat(seat)
    text = check_entropy(entropy)
    next_deal = match._next
    if match.status == "playing" or next_deal is None:
        raise IllegalAction("entropy is added between hands, before the deal")
    if match.ready[seat]:
        raise IllegalAction("you have already sent your part for this deal")
    if next_deal.entropy[seat] is not None:
        raise IllegalAction("this seat's entropy for this deal is recorded already")
    next_deal.entropy[seat] = text
    match.log.append(Entropy(next_deal.hand, seat, text))


def commitment(match: Match) -> str | None:
    """`Match.next_deal`: the commitment (hex) to the next deal's server secret."""
    known = match._next
    if known is None or match.status == "playing":
        return None
    return known.commitment


def resume_deal(match: Match, deal: Deal) -> None:
    """A compacted log starts at a deal: what it was derived from is in its event."""
    source = deal.source
    secret = None if source is None else source.server_secret
    resumed = PendingDeal(deal.hand, None if secret is None else bytes.fromhex(secret))
    if source is not None:
        resumed.entropy = list(source.entropy)
    match._next = resumed
